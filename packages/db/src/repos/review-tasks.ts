import { and, asc, desc, eq, inArray, lte, sql, type SQL } from 'drizzle-orm';
import { ALL_COUNTRIES, HIGH_RISK, type QueuePosition, type TaskStatus } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { queryRows } from '../connect.ts';
import { caseJournal, caseRevisions, cases, reviewCorrections, reviewDecisions, reviewTasks } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export type ReviewTaskRow = typeof reviewTasks.$inferSelect;
export type ReviewDecisionRow = typeof reviewDecisions.$inferSelect;
export type ReviewCorrectionRow = typeof reviewCorrections.$inferSelect;
export type CaseRevisionRow = typeof caseRevisions.$inferSelect;

/** The part of a clearance the database filters on. */
export interface ClearanceFilter {
  countries: readonly string[];
  /** Highest sensitivity rank the operator may see. */
  maxSensitivityRank: number;
}

function clearanceWhere(c: ClearanceFilter): SQL[] {
  const where: SQL[] = [lte(reviewTasks.sensitivityRank, c.maxSensitivityRank)];
  if (!c.countries.includes(ALL_COUNTRIES)) {
    // An empty list sees nothing (inArray of nothing is refused by drizzle).
    where.push(c.countries.length ? inArray(reviewTasks.country, [...c.countries]) : sql`false`);
  }
  return where;
}

// Written as literals so the planner matches the partial index `review_tasks_queue`.
const ACTIVE = sql`${reviewTasks.status} <> 'closed'`;

export async function findTask(db: Executor, tenant: Tenant, id: string): Promise<ReviewTaskRow | null> {
  const [row] = await db.select().from(reviewTasks).where(and(tenantFilter(reviewTasks, tenant), eq(reviewTasks.id, id)));
  return row ?? null;
}

export async function findTaskForUpdate(tx: Executor, tenant: Tenant, id: string): Promise<ReviewTaskRow | null> {
  const [row] = await tx
    .select()
    .from(reviewTasks)
    .where(and(tenantFilter(reviewTasks, tenant), eq(reviewTasks.id, id)))
    .for('update');
  return row ?? null;
}

/** The task of a case still in review, if any (at most one: unique partial index). */
export async function findActiveTaskOfCase(tx: Executor, tenant: Tenant, caseId: string): Promise<ReviewTaskRow | null> {
  const [row] = await tx
    .select()
    .from(reviewTasks)
    .where(and(tenantFilter(reviewTasks, tenant), eq(reviewTasks.caseId, caseId), ACTIVE))
    .for('update');
  return row ?? null;
}

export async function tasksOfCase(db: Executor, tenant: Tenant, caseId: string): Promise<ReviewTaskRow[]> {
  return db
    .select()
    .from(reviewTasks)
    .where(and(tenantFilter(reviewTasks, tenant), eq(reviewTasks.caseId, caseId)))
    .orderBy(asc(reviewTasks.id));
}

export async function updateTask(tx: Executor, tenant: Tenant, id: string, patch: Partial<typeof reviewTasks.$inferInsert>): Promise<ReviewTaskRow> {
  const [row] = await tx
    .update(reviewTasks)
    .set(patch)
    .where(and(tenantFilter(reviewTasks, tenant), eq(reviewTasks.id, id)))
    .returning();
  return row;
}

export interface QueueQuery {
  status?: TaskStatus;
  clearance: ClearanceFilter;
  after?: QueuePosition;
  limit: number;
}

/** What a queue row shows of its case besides the task: which case it is, for the reviewer. */
interface QueueCase {
  externalRef: string | null;
  flowName: string;
  state: string;
  createdAt: Date;
}

export type QueueRow = ReviewTaskRow & { case: QueueCase };

/**
 * The queue in its fixed order (risk descending, due date ascending, id), within the clearance,
 * each task with its case's reference, flow, state and age (one primary-key lookup per row of the
 * page: the order still comes from the queue index alone); returns up to limit + 1 rows so the
 * caller can tell whether more follow.
 */
export async function listQueue(db: Executor, tenant: Tenant, q: QueueQuery): Promise<QueueRow[]> {
  const where: SQL[] = [tenantFilter(reviewTasks, tenant), q.status ? eq(reviewTasks.status, q.status) : ACTIVE, ...clearanceWhere(q.clearance)];
  if (q.after) {
    const { riskScore: r, dueAt: d, id } = q.after;
    where.push(
      sql`(${reviewTasks.riskScore} < ${r} OR (${reviewTasks.riskScore} = ${r} AND (${reviewTasks.dueAt} > ${d.toISOString()}::timestamptz OR (${reviewTasks.dueAt} = ${d.toISOString()}::timestamptz AND ${reviewTasks.id} > ${id}))))`,
    );
  }
  const rows = await db
    .select({
      task: reviewTasks,
      case: { externalRef: cases.externalRef, flowName: cases.flowName, state: cases.state, createdAt: cases.createdAt },
    })
    .from(reviewTasks)
    .innerJoin(cases, eq(cases.id, reviewTasks.caseId))
    .where(and(...where))
    // NULLS LAST as in the indexes (risk_score is never null): otherwise the planner cannot read them in order.
    .orderBy(sql`${reviewTasks.riskScore} DESC NULLS LAST`, asc(reviewTasks.dueAt), asc(reviewTasks.id))
    .limit(q.limit + 1);
  return rows.map((r) => ({ ...r.task, case: r.case }));
}

export interface QueueSummary {
  active: number;
  open: number;
  second_validation: number;
  escalated: number;
  overdue: number;
  unclaimed: number;
  locked: number;
  locked_by_me: number;
  high_risk: number;
}

/** Counters over the whole queue within the clearance (not the loaded page). */
export async function queueSummary(db: Executor, tenant: Tenant, clearance: ClearanceFilter, operatorId: string, now: Date): Promise<QueueSummary> {
  const t = now.toISOString();
  const live = sql`(${reviewTasks.lockedBy} IS NOT NULL AND ${reviewTasks.lockExpiresAt} > ${t}::timestamptz)`;
  const [row] = await db
    .select({
      active: sql<number>`count(*)::int`,
      open: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.status} = 'open'))::int`,
      second_validation: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.status} = 'second_validation'))::int`,
      escalated: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.status} = 'escalated'))::int`,
      overdue: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.dueAt} <= ${t}::timestamptz))::int`,
      locked: sql<number>`(count(*) FILTER (WHERE ${live}))::int`,
      locked_by_me: sql<number>`(count(*) FILTER (WHERE ${live} AND ${reviewTasks.lockedBy} = ${operatorId}))::int`,
      high_risk: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.riskScore} >= ${HIGH_RISK}))::int`,
    })
    .from(reviewTasks)
    .where(and(tenantFilter(reviewTasks, tenant), ACTIVE, ...clearanceWhere(clearance)));
  const n = (v: unknown) => Number(v ?? 0);
  return {
    active: n(row.active),
    open: n(row.open),
    second_validation: n(row.second_validation),
    escalated: n(row.escalated),
    overdue: n(row.overdue),
    unclaimed: n(row.active) - n(row.locked),
    locked: n(row.locked),
    locked_by_me: n(row.locked_by_me),
    high_risk: n(row.high_risk),
  };
}

export interface ReviewMetricsRow {
  opened: number;
  closed: number;
  closed_by_operators: number;
  closed_by_keys: number;
  approved: number;
  rejected: number;
  resubmission_requested: number;
  closed_without_decision: number;
  closed_overdue: number;
  decision_seconds_p50: number | null;
  decision_seconds_p90: number | null;
  decision_seconds_avg: number | null;
  overdue_now: number;
  oldest_overdue_due_at: Date | null;
  escalations: number;
  second_validations: number;
  revisions: number;
}

/** Volumes, decision times and outcomes since a date, and what is overdue now, within the clearance. */
export async function reviewMetrics(db: Executor, tenant: Tenant, clearance: ClearanceFilter, since: Date, now: Date): Promise<ReviewMetricsRow> {
  const s = since.toISOString();
  const t = now.toISOString();
  const scope = and(tenantFilter(reviewTasks, tenant), ...clearanceWhere(clearance));
  const [tasks] = await db
    .select({
      opened: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.createdAt} >= ${s}::timestamptz))::int`,
      closed: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz))::int`,
      closed_by_operators: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.closedBy} LIKE 'op:%'))::int`,
      closed_by_keys: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.closedBy} LIKE 'key:%'))::int`,
      approved: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.outcome} = 'approve'))::int`,
      rejected: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.outcome} = 'reject'))::int`,
      resubmission_requested: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.outcome} = 'resubmit'))::int`,
      closed_without_decision: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.outcome} IS NULL))::int`,
      closed_overdue: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.closedAt} > ${reviewTasks.dueAt}))::int`,
      p50: sql<number | null>`percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ${reviewTasks.closedAt} - ${reviewTasks.createdAt})) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.outcome} IS NOT NULL)`,
      p90: sql<number | null>`percentile_cont(0.9) WITHIN GROUP (ORDER BY extract(epoch FROM ${reviewTasks.closedAt} - ${reviewTasks.createdAt})) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.outcome} IS NOT NULL)`,
      avg: sql<number | null>`avg(extract(epoch FROM ${reviewTasks.closedAt} - ${reviewTasks.createdAt})) FILTER (WHERE ${reviewTasks.closedAt} >= ${s}::timestamptz AND ${reviewTasks.outcome} IS NOT NULL)`,
      overdue_now: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.status} <> 'closed' AND ${reviewTasks.dueAt} <= ${t}::timestamptz))::int`,
      oldest_overdue: sql<string | null>`min(${reviewTasks.dueAt}) FILTER (WHERE ${reviewTasks.status} <> 'closed' AND ${reviewTasks.dueAt} <= ${t}::timestamptz)`,
    })
    .from(reviewTasks)
    .where(scope);
  const [decisions] = await queryRows<{ escalations: number; second_validations: number }>(
    db,
    sql`SELECT (count(*) FILTER (WHERE d.effect = 'escalate'))::int AS escalations,
               (count(*) FILTER (WHERE d.effect = 'await_second_validation'))::int AS second_validations
          FROM ${reviewDecisions} d JOIN ${reviewTasks} ON ${reviewTasks.id} = d.task_id
         WHERE d.client_id = ${tenant.clientId} AND d.environment = ${tenant.environment}
           AND d.created_at >= ${s}::timestamptz AND ${and(...clearanceWhere(clearance))}`,
  );
  const [revisions] = await queryRows<{ n: number }>(
    db,
    sql`SELECT count(*)::int AS n FROM ${caseRevisions} r JOIN ${reviewTasks} ON ${reviewTasks.id} = r.task_id
         WHERE r.client_id = ${tenant.clientId} AND r.environment = ${tenant.environment}
           AND r.created_at >= ${s}::timestamptz AND ${and(...clearanceWhere(clearance))}`,
  );
  const num = (v: unknown) => Number(v ?? 0);
  const opt = (v: unknown) => (v === null || v === undefined ? null : Math.round(Number(v) * 10) / 10);
  return {
    opened: num(tasks.opened),
    closed: num(tasks.closed),
    closed_by_operators: num(tasks.closed_by_operators),
    closed_by_keys: num(tasks.closed_by_keys),
    approved: num(tasks.approved),
    rejected: num(tasks.rejected),
    resubmission_requested: num(tasks.resubmission_requested),
    closed_without_decision: num(tasks.closed_without_decision),
    closed_overdue: num(tasks.closed_overdue),
    decision_seconds_p50: opt(tasks.p50),
    decision_seconds_p90: opt(tasks.p90),
    decision_seconds_avg: opt(tasks.avg),
    overdue_now: num(tasks.overdue_now),
    oldest_overdue_due_at: tasks.oldest_overdue ? new Date(tasks.oldest_overdue) : null,
    escalations: num(decisions?.escalations),
    second_validations: num(decisions?.second_validations),
    revisions: num(revisions?.n),
  };
}

/** What one UTC day of the metrics window saw (days with nothing are not returned: fillDays). */
export interface ReviewDayRow {
  day: string;
  opened?: number;
  closed?: number;
  approved?: number;
  rejected?: number;
  resubmission_requested?: number;
  closed_after_due_date?: number;
  decision_seconds_p50?: number | null;
}

const UTC_DAY = (column: SQL) => sql<string>`to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD')`;

/**
 * Tasks opened per UTC day, and closed per UTC day with their outcomes and median decision time,
 * since a date, within the clearance: two grouped reads over the indexes on (tenant, created_at)
 * and (tenant, closed_at), the same scope and filters as reviewMetrics.
 */
export async function reviewMetricsByDay(db: Executor, tenant: Tenant, clearance: ClearanceFilter, since: Date): Promise<ReviewDayRow[]> {
  const s = since.toISOString();
  const scope = [tenantFilter(reviewTasks, tenant), ...clearanceWhere(clearance)];
  const openedDay = UTC_DAY(sql`${reviewTasks.createdAt}`);
  const closedDay = UTC_DAY(sql`${reviewTasks.closedAt}`);
  const [opened, closed] = await Promise.all([
    db
      .select({ day: openedDay, opened: sql<number>`count(*)::int` })
      .from(reviewTasks)
      .where(and(...scope, sql`${reviewTasks.createdAt} >= ${s}::timestamptz`))
      .groupBy(openedDay),
    db
      .select({
        day: closedDay,
        closed: sql<number>`count(*)::int`,
        approved: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.outcome} = 'approve'))::int`,
        rejected: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.outcome} = 'reject'))::int`,
        resubmission_requested: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.outcome} = 'resubmit'))::int`,
        closed_after_due_date: sql<number>`(count(*) FILTER (WHERE ${reviewTasks.closedAt} > ${reviewTasks.dueAt}))::int`,
        p50: sql<number | null>`percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM ${reviewTasks.closedAt} - ${reviewTasks.createdAt})) FILTER (WHERE ${reviewTasks.outcome} IS NOT NULL)`,
      })
      .from(reviewTasks)
      .where(and(...scope, sql`${reviewTasks.closedAt} >= ${s}::timestamptz`))
      .groupBy(closedDay),
  ]);
  const num = (v: unknown) => Number(v ?? 0);
  return [
    ...opened.map((r) => ({ day: r.day, opened: num(r.opened) })),
    ...closed.map((r) => ({
      day: r.day,
      closed: num(r.closed),
      approved: num(r.approved),
      rejected: num(r.rejected),
      resubmission_requested: num(r.resubmission_requested),
      closed_after_due_date: num(r.closed_after_due_date),
      decision_seconds_p50: r.p50 === null || r.p50 === undefined ? null : Math.round(Number(r.p50) * 10) / 10,
    })),
  ];
}

/** What one operator decided in the window (reviewer throughput). */
export interface ReviewerThroughputRow {
  operator_id: string;
  decisions: number;
  approved: number;
  rejected: number;
  resubmission_requested: number;
  /** UTC days with at least one decision of theirs. */
  active_days: number;
}

/**
 * Operators' decisions since a date on tasks within the clearance, one row per operator, most
 * decisions first: every decision counts, a first one under double validation included (it is
 * work done), key decisions not (no operator made them).
 */
export async function reviewerThroughput(db: Executor, tenant: Tenant, clearance: ClearanceFilter, since: Date, limit = 100): Promise<ReviewerThroughputRow[]> {
  const rows = await queryRows<{ actor: string; decisions: number; approved: number; rejected: number; resubmitted: number; active_days: number }>(
    db,
    sql`SELECT d.actor, count(*)::int AS decisions,
               (count(*) FILTER (WHERE d.outcome = 'approve'))::int AS approved,
               (count(*) FILTER (WHERE d.outcome = 'reject'))::int AS rejected,
               (count(*) FILTER (WHERE d.outcome = 'resubmit'))::int AS resubmitted,
               count(DISTINCT to_char(d.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD'))::int AS active_days
          FROM ${reviewTasks} JOIN ${reviewDecisions} d ON d.task_id = ${reviewTasks.id}
         WHERE ${and(tenantFilter(reviewTasks, tenant), ...clearanceWhere(clearance))}
           -- A decision made since then is on a task still open or closed since (no earlier than
           -- the decision): the tasks' indexes on closed_at and on the open queue find them.
           AND (${reviewTasks.closedAt} >= ${since.toISOString()}::timestamptz OR ${ACTIVE})
           AND d.created_at >= ${since.toISOString()}::timestamptz AND d.actor LIKE 'op:%'
         GROUP BY d.actor ORDER BY decisions DESC, d.actor LIMIT ${limit}`,
  );
  return rows.map((r) => ({
    operator_id: r.actor.slice('op:'.length),
    decisions: Number(r.decisions),
    approved: Number(r.approved),
    rejected: Number(r.rejected),
    resubmission_requested: Number(r.resubmitted),
    active_days: Number(r.active_days),
  }));
}

// ---------------------------------------------------------------- decisions, corrections, revisions

export async function decisionsOfTask(db: Executor, tenant: Tenant, taskId: string): Promise<ReviewDecisionRow[]> {
  return db
    .select()
    .from(reviewDecisions)
    .where(and(tenantFilter(reviewDecisions, tenant), eq(reviewDecisions.taskId, taskId)))
    .orderBy(asc(reviewDecisions.id));
}

export async function decisionsOfCase(db: Executor, tenant: Tenant, caseId: string): Promise<ReviewDecisionRow[]> {
  return db
    .select()
    .from(reviewDecisions)
    .where(and(tenantFilter(reviewDecisions, tenant), eq(reviewDecisions.caseId, caseId)))
    .orderBy(asc(reviewDecisions.id));
}

export async function insertDecision(tx: Executor, row: typeof reviewDecisions.$inferInsert): Promise<ReviewDecisionRow> {
  const [inserted] = await tx.insert(reviewDecisions).values(row).returning();
  return inserted;
}

export async function insertCorrection(tx: Executor, row: typeof reviewCorrections.$inferInsert): Promise<ReviewCorrectionRow> {
  const [inserted] = await tx.insert(reviewCorrections).values(row).returning();
  return inserted;
}

export async function correctionsOfCase(db: Executor, tenant: Tenant, caseId: string): Promise<ReviewCorrectionRow[]> {
  return db
    .select()
    .from(reviewCorrections)
    .where(and(tenantFilter(reviewCorrections, tenant), eq(reviewCorrections.caseId, caseId)))
    .orderBy(asc(reviewCorrections.id));
}

export async function insertRevision(tx: Executor, row: typeof caseRevisions.$inferInsert): Promise<CaseRevisionRow> {
  const [inserted] = await tx.insert(caseRevisions).values(row).returning();
  return inserted;
}

export async function revisionsOfCase(db: Executor, tenant: Tenant, caseId: string): Promise<CaseRevisionRow[]> {
  return db
    .select()
    .from(caseRevisions)
    .where(and(tenantFilter(caseRevisions, tenant), eq(caseRevisions.caseId, caseId)))
    .orderBy(asc(caseRevisions.id));
}

/** Releases every lock an operator holds (at revocation): their tasks go back to the queue at once. */
export async function releaseLocksOf(tx: Executor, tenant: Tenant, operatorId: string, now: Date): Promise<void> {
  await tx
    .update(reviewTasks)
    .set({ lockedBy: null, lockExpiresAt: null, updatedAt: now })
    .where(and(tenantFilter(reviewTasks, tenant), eq(reviewTasks.lockedBy, operatorId)));
}

/** The latest journal entries of a case, newest first (what the case screen shows). */
export async function latestJournal(db: Executor, tenant: Tenant, caseId: string, limit: number) {
  return db
    .select({ actor: caseJournal.actor, action: caseJournal.action, detail: caseJournal.detail, at: caseJournal.at })
    .from(caseJournal)
    .where(and(tenantFilter(caseJournal, tenant), eq(caseJournal.caseId, caseId)))
    .orderBy(desc(caseJournal.id))
    .limit(limit);
}
