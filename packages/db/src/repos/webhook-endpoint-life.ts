import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { webhookDeliveries, webhookEndpoints } from '../schema.ts';
import { findWebhookEndpointForUpdate, type WebhookEndpointRow } from './webhook-endpoints.ts';
import type { Tenant } from './tenant.ts';

// The writes of an endpoint's life after its creation. Each takes the caller's transaction, so the
// change, its journal entry and the stored idempotent response commit together.

export interface EndpointChange {
  url?: string;
  events?: string[];
  /** null clears it. */
  description?: string | null;
}

/** Returns null when there is no such (live) endpoint. */
export async function updateWebhookEndpoint(tx: Executor, tenant: Tenant, id: string, change: EndpointChange, now: Date): Promise<WebhookEndpointRow | null> {
  if (!(await findWebhookEndpointForUpdate(tx, tenant, id))) return null;
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ ...change, updatedAt: now })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}

/**
 * Disables an endpoint: no delivery is created for it while it stays so (emitEvent skips it) and
 * the dispatcher claims nothing of it; what was already scheduled waits for enable. Disabling a
 * disabled endpoint keeps its first time. Returns the endpoint and whether it changed.
 */
export async function disableWebhookEndpoint(
  tx: Executor,
  tenant: Tenant,
  id: string,
  now: Date,
): Promise<{ row: WebhookEndpointRow; changed: boolean } | null> {
  const endpoint = await findWebhookEndpointForUpdate(tx, tenant, id);
  if (!endpoint) return null;
  if (endpoint.status === 'disabled') return { row: endpoint, changed: false };
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ status: 'disabled', disabledAt: now, updatedAt: now })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return { row, changed: true };
}

/**
 * Deletes an endpoint for the client: what was scheduled for it is cancelled (never sent), its
 * secrets are erased, and the row stays, marked deleted, while the delivery log refers to it
 * (purgeWebhookLog removes it with the last of its deliveries). Returns how many deliveries were
 * cancelled, or null when there is no such endpoint. A delivery already in flight loses its claim,
 * so its attempt is not recorded over the cancellation.
 */
export async function deleteWebhookEndpoint(tx: Executor, tenant: Tenant, id: string, now: Date): Promise<{ row: WebhookEndpointRow; cancelled: number } | null> {
  const endpoint = await findWebhookEndpointForUpdate(tx, tenant, id);
  if (!endpoint) return null;
  const cancelled = await tx
    .update(webhookDeliveries)
    .set({ status: 'cancelled', nextAttemptAt: null, lockedUntil: null, claimToken: null })
    .where(and(eq(webhookDeliveries.endpointId, id), inArray(webhookDeliveries.status, ['pending', 'retrying'])))
    .returning({ id: webhookDeliveries.id });
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ deletedAt: now, updatedAt: now, secretSealed: '', previousSecretSealed: null, previousSecretExpiresAt: null })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return { row, cancelled: cancelled.length };
}

/**
 * Puts a new sealed secret in place. The current one becomes the previous one until
 * `previousExpiresAt` (null: dropped at once); a previous secret of an earlier rotation is
 * dropped, so at most two secrets ever sign.
 */
export async function rotateWebhookEndpointSecret(
  tx: Executor,
  tenant: Tenant,
  id: string,
  sealed: { current: string; previous: string | null },
  previousExpiresAt: Date | null,
  now: Date,
): Promise<WebhookEndpointRow | null> {
  if (!(await findWebhookEndpointForUpdate(tx, tenant, id))) return null;
  const [row] = await tx
    .update(webhookEndpoints)
    .set({ secretSealed: sealed.current, previousSecretSealed: sealed.previous, previousSecretExpiresAt: previousExpiresAt, updatedAt: now })
    .where(eq(webhookEndpoints.id, id))
    .returning();
  return row;
}
