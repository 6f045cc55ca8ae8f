import { and, asc, count, desc, eq, gte, inArray, lt, type SQL } from 'drizzle-orm';
import { idFloor, newId } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { webhookAttempts, webhookDeliveries, webhookEvents, type WebhookDeliveryStatus } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import { notifyDispatcher } from './webhook-outbox.ts';

export type WebhookDeliveryRow = typeof webhookDeliveries.$inferSelect;
export type WebhookAttemptRow = typeof webhookAttempts.$inferSelect;

export interface DeliveryFilters {
  status?: WebhookDeliveryStatus;
  eventType?: string;
  endpointId?: string;
  /** Only deliveries created at or after this time. */
  since: Date;
  startingAfter?: string;
  limit: number;
}

/** Newest first; returns up to limit + 1 rows so the caller can tell whether more follow. */
export async function listWebhookDeliveries(db: Executor, tenant: Tenant, f: DeliveryFilters): Promise<WebhookDeliveryRow[]> {
  const where: SQL[] = [tenantFilter(webhookDeliveries, tenant), gte(webhookDeliveries.createdAt, f.since)];
  if (f.status) where.push(eq(webhookDeliveries.status, f.status));
  if (f.eventType) where.push(eq(webhookDeliveries.eventType, f.eventType));
  if (f.endpointId) where.push(eq(webhookDeliveries.endpointId, f.endpointId));
  if (f.startingAfter) where.push(lt(webhookDeliveries.id, f.startingAfter));
  return db.select().from(webhookDeliveries).where(and(...where)).orderBy(desc(webhookDeliveries.id)).limit(f.limit + 1);
}

/** Only a deleted endpoint's deliveries are cancelled, and a deleted endpoint is never listed: no count for them. */
export type DeliveryCounts = Record<Exclude<WebhookDeliveryStatus, 'cancelled'>, number>;

/**
 * Deliveries created since `since` per endpoint and status: an endpoint's health at a glance
 * (at most 16 endpoints per environment). Ids are time-ordered, so the window is also a range of
 * the (endpoint_id, id) index: a busy endpoint's older log is not read.
 */
export async function countRecentDeliveries(db: Executor, tenant: Tenant, endpointIds: string[], since: Date): Promise<Map<string, DeliveryCounts>> {
  const counts = new Map<string, DeliveryCounts>(endpointIds.map((id) => [id, { pending: 0, retrying: 0, succeeded: 0, failed: 0 }]));
  if (endpointIds.length === 0) return counts;
  const rows = await db
    .select({ endpointId: webhookDeliveries.endpointId, status: webhookDeliveries.status, n: count() })
    .from(webhookDeliveries)
    .where(and(tenantFilter(webhookDeliveries, tenant), inArray(webhookDeliveries.endpointId, endpointIds), gte(webhookDeliveries.id, idFloor('dlv', since.getTime())), gte(webhookDeliveries.createdAt, since)))
    .groupBy(webhookDeliveries.endpointId, webhookDeliveries.status);
  for (const r of rows) {
    const c = counts.get(r.endpointId);
    if (c && r.status !== 'cancelled') c[r.status] = Number(r.n);
  }
  return counts;
}

export async function findWebhookDelivery(db: Executor, tenant: Tenant, id: string): Promise<WebhookDeliveryRow | null> {
  const [row] = await db.select().from(webhookDeliveries).where(and(tenantFilter(webhookDeliveries, tenant), eq(webhookDeliveries.id, id)));
  return row ?? null;
}

/** A delivery with the exact body its destination received and every attempt in order. */
export async function findWebhookDeliveryDetail(db: Executor, tenant: Tenant, id: string) {
  const [row] = await db
    .select({ delivery: webhookDeliveries, body: webhookEvents.body })
    .from(webhookDeliveries)
    .innerJoin(webhookEvents, eq(webhookEvents.id, webhookDeliveries.eventId))
    .where(and(tenantFilter(webhookDeliveries, tenant), eq(webhookDeliveries.id, id)));
  if (!row) return null;
  const attempts = await db
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, id))
    .orderBy(asc(webhookAttempts.attempt));
  return { ...row.delivery, body: row.body, attempts };
}

/**
 * A replay is a new delivery (new id, due now) of the same event to the same endpoint, pointing
 * back to the delivery it replays. The original keeps its own status and attempts, so the log
 * stays true, and receivers that deduplicate on X-Service-Delivery do not drop the replay.
 */
export async function insertReplay(tx: Executor, original: WebhookDeliveryRow, now: Date): Promise<WebhookDeliveryRow> {
  const [row] = await tx
    .insert(webhookDeliveries)
    .values({
      id: newId('dlv', now.getTime()),
      clientId: original.clientId,
      environment: original.environment,
      endpointId: original.endpointId,
      eventId: original.eventId,
      eventType: original.eventType,
      status: 'pending',
      nextAttemptAt: now,
      replayOf: original.id,
      createdAt: now,
    })
    .returning();
  await notifyDispatcher(tx);
  return row;
}
