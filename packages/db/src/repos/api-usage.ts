import { and, gte, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { apiUsageDaily } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

export interface UsageIncrement extends Tenant {
  day: string;
  statusCode: number;
  calls: number;
}

/** Adds counts; additive upserts let several API instances flush into the same rows. */
export async function addApiUsage(db: Executor, increments: UsageIncrement[]): Promise<void> {
  if (increments.length === 0) return;
  await db
    .insert(apiUsageDaily)
    .values(increments)
    .onConflictDoUpdate({
      target: [apiUsageDaily.clientId, apiUsageDaily.environment, apiUsageDaily.day, apiUsageDaily.statusCode],
      set: { calls: sql`${apiUsageDaily.calls} + excluded.calls` },
    });
}

export async function readApiUsage(db: Executor, tenant: Tenant, fromDay: string) {
  return db
    .select()
    .from(apiUsageDaily)
    .where(and(tenantFilter(apiUsageDaily, tenant), gte(apiUsageDaily.day, fromDay)))
    .orderBy(apiUsageDaily.day, apiUsageDaily.statusCode);
}
