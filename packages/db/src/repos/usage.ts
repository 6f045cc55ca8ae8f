import { sql } from 'drizzle-orm';
import { emptyUsage, isUsageService, periodOf, type UsageService } from '@idv/domain';
import { queryRows, type Executor } from '../connect.ts';
import type { Tenant } from './tenant.ts';

/** Rows each monthly total is spread over (schema.ts, usage_monthly). */
const USAGE_SLOTS = 8;

export interface UsageUnit extends Tenant {
  service: UsageService;
  /** One per act (usageSourceKey in @idv/domain): the unit is recorded once whatever the retries. */
  sourceKey: string;
  /** The case identifier returned at case opening. */
  caseId: string;
  /** 1 unless the act is worth several units. */
  quantity?: number;
  /** The act's instant (ctx.now() of the request or job); it decides the month. */
  at: Date;
}

/**
 * Records one unit inside the caller's transaction (the act's own), with the monthly total, in one
 * statement: both commit with the act or neither does. Returns false when the act was already
 * recorded (a retried or replayed act adds nothing).
 */
export async function recordUsage(tx: Executor, unit: UsageUnit): Promise<boolean> {
  const quantity = unit.quantity ?? 1;
  const slot = Math.floor(Math.random() * USAGE_SLOTS);
  const [row] = await queryRows<{ added: number }>(
    tx,
    sql`WITH unit AS (
          INSERT INTO usage_units (source_key, client_id, environment, service, case_id, quantity, occurred_at)
          VALUES (${unit.sourceKey}, ${unit.clientId}, ${unit.environment}, ${unit.service}, ${unit.caseId}, ${quantity}, ${unit.at.toISOString()})
          ON CONFLICT (source_key) DO NOTHING
          RETURNING client_id, environment, service, quantity
        ), total AS (
          INSERT INTO usage_monthly (client_id, environment, period, service, slot, quantity)
          SELECT client_id, environment, ${periodOf(unit.at)}, service, ${slot}, quantity FROM unit
          ON CONFLICT (client_id, environment, period, service, slot)
          DO UPDATE SET quantity = usage_monthly.quantity + excluded.quantity
          RETURNING 1
        )
        SELECT (SELECT count(*) FROM unit)::int AS added`,
  );
  return Number(row?.added ?? 0) > 0;
}

/**
 * The month's total of one service, as a scalar subquery: the sum of its slots in usage_monthly.
 * The slots are this module's layout; quota checks embed this in their own statements.
 */
export const monthTotal = (tenant: Tenant, service: UsageService, period: string) =>
  sql`(SELECT coalesce(sum(m.quantity), 0)::bigint FROM usage_monthly AS m
       WHERE m.client_id = ${tenant.clientId} AND m.environment = ${tenant.environment}
         AND m.period = ${period} AND m.service = ${service})`;

/** The month's total per service for one tenant (zeros for a month with nothing): the same sums, grouped. */
export async function monthlyUsage(db: Executor, tenant: Tenant, period: string): Promise<Record<UsageService, number>> {
  const rows = await queryRows<{ service: string; quantity: string | number }>(
    db,
    sql`SELECT service, sum(quantity)::bigint AS quantity FROM usage_monthly
        WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment} AND period = ${period}
        GROUP BY service`,
  );
  const totals = emptyUsage();
  for (const r of rows) if (isUsageService(r.service)) totals[r.service] = Number(r.quantity);
  return totals;
}

/**
 * Units per UTC day and service over one month (days with nothing are not returned: fillDays in
 * @idv/domain adds them), from the units themselves over the index the export reads
 * (usage_units_export: tenant, instant). Costs a read of the month's units, which GET /v1/usage's
 * totals (usage_monthly) do not: it is a route of its own.
 */
export async function dailyUsage(db: Executor, tenant: Tenant, start: Date, end: Date): Promise<Array<{ day: string; service: UsageService; quantity: number }>> {
  const rows = await queryRows<{ day: string; service: string; quantity: string | number }>(
    db,
    sql`SELECT to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, service, sum(quantity)::bigint AS quantity
          FROM usage_units
         WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment}
           AND occurred_at >= ${start.toISOString()}::timestamptz AND occurred_at < ${end.toISOString()}::timestamptz
         GROUP BY 1, 2`,
  );
  return rows.filter((r) => isUsageService(r.service)).map((r) => ({ day: r.day, service: r.service as UsageService, quantity: Number(r.quantity) }));
}
