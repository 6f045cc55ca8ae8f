import { and, count, desc, eq, gt, inArray, isNull, lt } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { webhookDeliveries, webhookEndpoints } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import { notifyDispatcher } from './webhook-outbox.ts';

export type WebhookEndpointRow = typeof webhookEndpoints.$inferSelect;

export async function insertWebhookEndpoint(tx: Executor, row: typeof webhookEndpoints.$inferInsert): Promise<WebhookEndpointRow> {
  const [inserted] = await tx.insert(webhookEndpoints).values(row).returning();
  return inserted;
}

/** The tenant's endpoints that exist for the client: a deleted one is only kept for the delivery log. */
const liveEndpoints = (tenant: Tenant) => and(tenantFilter(webhookEndpoints, tenant), isNull(webhookEndpoints.deletedAt));

/** The endpoint, or null when there is none or it was deleted. */
export async function findWebhookEndpoint(db: Executor, tenant: Tenant, id: string): Promise<WebhookEndpointRow | null> {
  const [row] = await db.select().from(webhookEndpoints).where(and(liveEndpoints(tenant), eq(webhookEndpoints.id, id)));
  return row ?? null;
}

/**
 * The endpoint locked until the transaction ends: a write that derives its new state from the
 * current one (a rotation keeps the current secret as the previous) must not race another.
 */
export async function findWebhookEndpointForUpdate(tx: Executor, tenant: Tenant, id: string): Promise<WebhookEndpointRow | null> {
  const [row] = await tx.select().from(webhookEndpoints).where(and(liveEndpoints(tenant), eq(webhookEndpoints.id, id))).for('update');
  return row ?? null;
}

export async function countWebhookEndpoints(db: Executor, tenant: Tenant): Promise<number> {
  const [row] = await db.select({ n: count() }).from(webhookEndpoints).where(liveEndpoints(tenant));
  return Number(row.n);
}

/** Newest first; returns up to limit + 1 rows so the caller can tell whether more follow. */
export async function listWebhookEndpoints(db: Executor, tenant: Tenant, limit: number, startingAfter?: string) {
  const where = startingAfter ? and(liveEndpoints(tenant), lt(webhookEndpoints.id, startingAfter)) : liveEndpoints(tenant);
  return db.select().from(webhookEndpoints).where(where).orderBy(desc(webhookEndpoints.id)).limit(limit + 1);
}

/**
 * Reactivates an endpoint. The deliveries that waited (pending, or retrying with a later time)
 * become due at once; the dispatcher is woken when the transaction commits. Resuming an active
 * endpoint changes nothing. Returns null when there is no such endpoint.
 */
export async function resumeWebhookEndpoint(tx: Executor, tenant: Tenant, id: string, now: Date): Promise<WebhookEndpointRow | null> {
  const endpoint = await findWebhookEndpoint(tx, tenant, id);
  if (!endpoint || endpoint.status === 'active') return endpoint;
  const [resumed] = await tx
    .update(webhookEndpoints)
    .set({ status: 'active', suspendedAt: null, disabledAt: null, updatedAt: now })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  await sendWaitingNow(tx, id, now);
  return resumed;
}

/** What waited for the endpoint (pending, or retrying with a later time) becomes due now; the dispatcher is woken at commit. */
async function sendWaitingNow(tx: Executor, id: string, now: Date): Promise<void> {
  await tx
    .update(webhookDeliveries)
    .set({ nextAttemptAt: now })
    .where(
      and(
        eq(webhookDeliveries.endpointId, id),
        inArray(webhookDeliveries.status, ['pending', 'retrying']),
        gt(webhookDeliveries.nextAttemptAt, now),
      ),
    );
  await notifyDispatcher(tx);
}
