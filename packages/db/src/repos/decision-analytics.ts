import { and, sql } from 'drizzle-orm';
import type { DecidedBy, DecisionGroup } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { queryRows } from '../connect.ts';
import { cases, reviewTasks } from '../schema.ts';
import { caseClearanceWhere } from './cases.ts';
import type { ClearanceFilter } from './review-tasks.ts';
import { tenantFilter, type Tenant } from './tenant.ts';


// GROUPING(day, outcome, reason_code, decided_by): a bit per column left out of the set.
const SETS: Record<number, DecisionGroup['set']> = { 0: 'detail', 7: 'day', 14: 'decider', 15: 'all' };

/**
 * The cases concluded (approved or rejected) since a date within the clearance, grouped four ways
 * in one pass: the decision is the case's current one (`cases.decision`, whose `decided_at` a
 * revision moves), its decider the review task closed with that outcome, if any. Reads ids,
 * states, reason codes and times only: no personal data.
 */
export async function decisionGroups(db: Executor, tenant: Tenant, clearance: ClearanceFilter, since: Date): Promise<DecisionGroup[]> {
  // The text itself is compared with the window's start (both toISOString's form): the index
  // cases_tenant_decided holds it so.
  const decidedText = sql`(${cases.decision}->>'decided_at')`;
  const decidedAt = sql`${decidedText}::timestamptz`;
  const rows = await queryRows<{ g: number; day: string | null; outcome: DecisionGroup['outcome']; reason_code: string | null; decided_by: DecidedBy | null; n: number; p50: unknown }>(
    db,
    sql`WITH d AS (
          SELECT to_char(${decidedAt} AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, ${cases.state} AS outcome,
                 ${cases.decision}->>'reason_code' AS reason_code,
                 CASE WHEN t.closed_by LIKE 'op:%' THEN 'operator' WHEN t.closed_by LIKE 'key:%' THEN 'key' ELSE 'automatic' END AS decided_by,
                 extract(epoch FROM ${decidedAt} - ${cases.createdAt}) AS seconds
            FROM ${cases}
            LEFT JOIN LATERAL (
              SELECT rt.closed_by FROM ${reviewTasks} rt
               WHERE rt.case_id = ${cases.id} AND rt.outcome IN ('approve', 'reject')
               ORDER BY rt.closed_at DESC LIMIT 1) t ON true
           WHERE ${and(tenantFilter(cases, tenant), ...caseClearanceWhere(clearance))}
             AND ${cases.decision} IS NOT NULL AND ${decidedText} >= ${since.toISOString()}
             AND ${cases.state} IN ('approved', 'rejected'))
        SELECT GROUPING(day, outcome, reason_code, decided_by)::int AS g, day, outcome, reason_code, decided_by, count(*)::int AS n,
               percentile_cont(0.5) WITHIN GROUP (ORDER BY seconds) AS p50
          FROM d GROUP BY GROUPING SETS ((day, outcome, reason_code, decided_by), (day), (decided_by), ())`,
  );
  return rows.map((r) => ({
    set: SETS[Number(r.g)],
    day: r.day,
    outcome: r.outcome,
    reason_code: r.reason_code,
    decided_by: r.decided_by,
    count: Number(r.n),
    p50: r.p50 === null || r.p50 === undefined ? null : Math.round(Number(r.p50) * 10) / 10,
  }));
}
