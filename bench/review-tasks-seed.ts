import { sql } from 'drizzle-orm';
import type { Database, Tenant } from '@idv/db';

/**
 * `count` cases and their review tasks for a tenant, in two INSERT … SELECT generate_series
 * statements (ids keep the id shape; a tenth closed, one in 23 waiting for a second validation,
 * risk, due dates, countries and sensitivities spread), then ANALYZE. Shared by bench:reviews and
 * bench:console so that both measure the same queue.
 */
export async function seedReviewTasks(database: Database, tenant: Tenant, flowId: string, now: Date, count: number): Promise<void> {
  const t = now.toISOString();
  await database.db.execute(sql`
    INSERT INTO cases (id, client_id, environment, flow_id, flow_name, flow_version, country, state, status, created_at, updated_at, expires_at)
    SELECT 'case_' || lpad(to_hex(g), 26, '0'), ${tenant.clientId}, ${tenant.environment}, ${flowId}, 'standard', 1,
           (ARRAY['FR','DE','ES','IT','BE','NL','PT','PL'])[1 + g % 8],
           CASE WHEN g % 10 = 0 THEN 'approved' ELSE 'in_review' END,
           CASE WHEN g % 10 = 0 THEN 'decided' ELSE 'review' END,
           ${t}::timestamptz - make_interval(mins => g % 10000), ${t}::timestamptz, ${t}::timestamptz + interval '7 days'
      FROM generate_series(1, ${count}) AS g`);
  await database.db.execute(sql`
    INSERT INTO review_tasks (id, client_id, environment, case_id, country, sensitivity_rank, risk_score, due_at, status, double_validation,
                              reasons, outcome, closed_by, closed_at, created_at, updated_at)
    SELECT 'tsk_' || lpad(to_hex(g), 26, '0'), ${tenant.clientId}, ${tenant.environment}, 'case_' || lpad(to_hex(g), 26, '0'),
           (ARRAY['FR','DE','ES','IT','BE','NL','PT','PL'])[1 + g % 8],
           CASE WHEN g % 97 = 0 THEN 2 WHEN g % 20 = 0 THEN 1 ELSE 0 END,
           ((g::bigint * 7919) % 101)::int,
           ${t}::timestamptz + make_interval(mins => (((g::bigint * 104729) % 2880) - 1440)::int),
           CASE WHEN g % 10 = 0 THEN 'closed' WHEN g % 23 = 0 THEN 'second_validation' ELSE 'open' END,
           g % 23 = 0, '["faces_uncertain"]'::jsonb,
           CASE WHEN g % 10 = 0 THEN 'approve' END, CASE WHEN g % 10 = 0 THEN 'op:seed' END,
           CASE WHEN g % 10 = 0 THEN ${t}::timestamptz - make_interval(mins => g % 5000) END,
           ${t}::timestamptz - make_interval(mins => g % 10000), ${t}::timestamptz
      FROM generate_series(1, ${count}) AS g`);
  await database.db.execute(sql`ANALYZE cases`);
  await database.db.execute(sql`ANALYZE review_tasks`);
}
