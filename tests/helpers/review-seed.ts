import { sql } from 'drizzle-orm';
import { queryRows, type Executor, type Tenant } from '@idv/db';

/** An instant as the service writes `decision.decided_at` (toISOString: UTC, milliseconds, Z). */
const isoText = (at: ReturnType<typeof sql>) => sql`to_char(${at} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** Reject reasons the seeded rejections give, in turn. */
const REJECT_REASONS = sql.raw(`(ARRAY['document_expired','face_mismatch','underage'])`);

/**
 * `count` decided cases and their closed review tasks over the `days` days before `now`, in
 * INSERT … SELECT generate_series statements: the history the review metrics and the decision
 * analytics read (the console's browser tests, bench:console). The operators' decisions are
 * `actors`' in turn (`op:<id>`). Ids never meet those of bench/review-tasks-seed.ts.
 */
export async function seedDecidedTasks(db: Executor, tenant: Tenant, now: Date, count: number, days: number, prefix = 'd', actors: readonly string[] = ['op:seed']): Promise<void> {
  const flow = await flowOf(db, tenant);
  checkSizes(count, days);
  // The decision of task g: evenly over the window, the newest an hour before now; opened 20 minutes to 34 hours before.
  const closedAt = `(timestamptz '${now.toISOString()}' - interval '1 hour' - make_interval(secs => g::double precision * ${(days * 86_400) / count}))`;
  const closed = sql.raw(closedAt);
  const opened = sql.raw(`(${closedAt} - make_interval(mins => 20 + (g * 37) % 2000))`);
  const id = (kind: string) => sql.raw(`'${kind}_${prefix}' || lpad(to_hex(g), 25, '0')`);
  const actor = sql`(${sql.raw(`ARRAY[${actors.map((a) => `'${a.replace(/'/g, '')}'`).join(',')}]`)})[1 + g % ${actors.length}]`;
  const outcome = sql.raw(`(ARRAY['approve','reject','resubmit'])[1 + g % 3]`);
  const reason = sql`CASE WHEN g % 3 = 1 THEN ${REJECT_REASONS}[1 + (g / 3) % 3] END`;
  await db.execute(sql`
    INSERT INTO cases (id, client_id, environment, flow_id, flow_name, flow_version, country, state, status, decision, created_at, updated_at, expires_at)
    SELECT ${id('case')}, ${tenant.clientId}, ${tenant.environment}, ${flow}, 'standard', 1,
           (ARRAY['FR','DE','ES','IT','BE'])[1 + g % 5],
           CASE g % 3 WHEN 0 THEN 'approved' WHEN 1 THEN 'rejected' ELSE 'resubmission_requested' END,
           CASE g % 3 WHEN 2 THEN 'collecting' ELSE 'decided' END,
           CASE WHEN g % 3 < 2 THEN jsonb_build_object('outcome', CASE g % 3 WHEN 0 THEN 'approved' ELSE 'rejected' END, 'reason_code', ${reason}, 'decided_at', ${isoText(closed)}) END,
           ${opened}, ${closed}, ${opened} + interval '7 days'
      FROM generate_series(1, ${count}) AS g`);
  await db.execute(sql`
    INSERT INTO review_tasks (id, client_id, environment, case_id, country, sensitivity_rank, risk_score, due_at, status, double_validation,
                              reasons, outcome, closed_by, closed_at, created_at, updated_at)
    SELECT ${id('tsk')}, ${tenant.clientId}, ${tenant.environment}, ${id('case')},
           (ARRAY['FR','DE','ES','IT','BE'])[1 + g % 5], 0, (g * 7919) % 101,
           ${opened} + interval '24 hours', 'closed', false, '["faces_uncertain"]'::jsonb,
           CASE WHEN g % 17 = 0 THEN NULL ELSE ${outcome} END,
           CASE WHEN g % 17 = 0 THEN 'system' ELSE ${actor} END,
           ${closed}, ${opened}, ${closed}
      FROM generate_series(1, ${count}) AS g`);
  await db.execute(sql`
    INSERT INTO review_decisions (id, client_id, environment, task_id, case_id, actor, outcome, reason_code, steps, effect, created_at)
    SELECT ${id('dec')}, ${tenant.clientId}, ${tenant.environment}, ${id('tsk')}, ${id('case')}, ${actor}, ${outcome}, ${reason},
           CASE WHEN g % 3 = 2 THEN '["document"]'::jsonb END, 'concluded', ${closed}
      FROM generate_series(1, ${count}) AS g WHERE g % 17 <> 0`);
  await db.execute(sql`ANALYZE review_tasks`);
}

/**
 * `count` cases the checks decided alone (no review task) over the `days` days before `now`,
 * two thirds approved, a third rejected, each decided one to three hours after its creation.
 */
export async function seedAutomaticDecisions(db: Executor, tenant: Tenant, now: Date, count: number, days: number, prefix = 'a'): Promise<void> {
  const flow = await flowOf(db, tenant);
  checkSizes(count, days);
  const decided = sql.raw(`(timestamptz '${now.toISOString()}' - interval '1 hour' - make_interval(secs => g::double precision * ${(days * 86_400) / count}))`);
  const created = sql`(${decided} - make_interval(mins => 60 + (g * 13) % 120))`;
  await db.execute(sql`
    INSERT INTO cases (id, client_id, environment, flow_id, flow_name, flow_version, country, state, status, decision, created_at, updated_at, expires_at)
    SELECT ${sql.raw(`'case_${prefix}' || lpad(to_hex(g), 25, '0')`)}, ${tenant.clientId}, ${tenant.environment}, ${flow}, 'standard', 1,
           (ARRAY['FR','DE','ES','IT','BE'])[1 + g % 5],
           CASE WHEN g % 3 = 2 THEN 'rejected' ELSE 'approved' END, 'decided',
           jsonb_build_object('outcome', CASE WHEN g % 3 = 2 THEN 'rejected' ELSE 'approved' END,
                              'reason_code', CASE WHEN g % 3 = 2 THEN ${REJECT_REASONS}[1 + (g / 3) % 3] END, 'decided_at', ${isoText(decided)}),
           ${created}, ${decided}, ${created} + interval '7 days'
      FROM generate_series(1, ${count}) AS g`);
  await db.execute(sql`ANALYZE cases`);
}

async function flowOf(db: Executor, tenant: Tenant): Promise<string> {
  const [flow] = await queryRows<{ id: string }>(db, sql`SELECT id FROM flows WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment} LIMIT 1`);
  if (!flow) throw new Error('no flow to seed decided cases with');
  return flow.id;
}

function checkSizes(count: number, days: number): void {
  if (!Number.isInteger(count) || !Number.isInteger(days) || count < 1 || days < 1) throw new RangeError('count and days are positive integers');
}
