import { sql } from 'drizzle-orm';
import { queryRows, type Executor, type Tenant } from '@idv/db';

/**
 * `count` decided cases and their closed review tasks over the `days` days before `now`, in two
 * INSERT … SELECT generate_series statements: the history the review metrics read (the console's
 * browser tests, bench:console). Ids never meet those of bench/review-tasks-seed.ts.
 */
export async function seedDecidedTasks(db: Executor, tenant: Tenant, now: Date, count: number, days: number, prefix = 'd'): Promise<void> {
  const [flow] = await queryRows<{ id: string }>(db, sql`SELECT id FROM flows WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment} LIMIT 1`);
  if (!flow) throw new Error('no flow to seed decided cases with');
  if (!Number.isInteger(count) || !Number.isInteger(days) || count < 1 || days < 1) throw new RangeError('count and days are positive integers');
  // The decision of task g: evenly over the window, the newest an hour before now; opened 20 minutes to 34 hours before.
  const closedAt = `(timestamptz '${now.toISOString()}' - interval '1 hour' - make_interval(secs => g::double precision * ${(days * 86_400) / count}))`;
  const closed = sql.raw(closedAt);
  const opened = sql.raw(`(${closedAt} - make_interval(mins => 20 + (g * 37) % 2000))`);
  const id = (kind: string) => sql.raw(`'${kind}_${prefix}' || lpad(to_hex(g), 25, '0')`);
  await db.execute(sql`
    INSERT INTO cases (id, client_id, environment, flow_id, flow_name, flow_version, country, state, status, created_at, updated_at, expires_at)
    SELECT ${id('case')}, ${tenant.clientId}, ${tenant.environment}, ${flow.id}, 'standard', 1,
           (ARRAY['FR','DE','ES','IT','BE'])[1 + g % 5],
           CASE g % 3 WHEN 0 THEN 'approved' WHEN 1 THEN 'rejected' ELSE 'resubmission_requested' END,
           CASE g % 3 WHEN 2 THEN 'collecting' ELSE 'decided' END,
           ${opened}, ${closed}, ${opened} + interval '7 days'
      FROM generate_series(1, ${count}) AS g`);
  await db.execute(sql`
    INSERT INTO review_tasks (id, client_id, environment, case_id, country, sensitivity_rank, risk_score, due_at, status, double_validation,
                              reasons, outcome, closed_by, closed_at, created_at, updated_at)
    SELECT ${id('tsk')}, ${tenant.clientId}, ${tenant.environment}, ${id('case')},
           (ARRAY['FR','DE','ES','IT','BE'])[1 + g % 5], 0, (g * 7919) % 101,
           ${opened} + interval '24 hours', 'closed', false, '["faces_uncertain"]'::jsonb,
           CASE WHEN g % 17 = 0 THEN NULL ELSE (ARRAY['approve','reject','resubmit'])[1 + g % 3] END,
           CASE WHEN g % 17 = 0 THEN 'system' ELSE 'op:seed' END,
           ${closed}, ${opened}, ${closed}
      FROM generate_series(1, ${count}) AS g`);
  await db.execute(sql`ANALYZE review_tasks`);
}
