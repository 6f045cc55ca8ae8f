import { and, eq, sql } from 'drizzle-orm';
import { eventBodyText, newId, type EventDataByType, type EventObject, type WebhookEventType } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

/** The channel the dispatcher listens on; a notification means "deliveries may be due now". */
export const WEBHOOK_CHANNEL = 'idv_webhook_deliveries';

/**
 * Wakes the dispatcher. Inside a transaction PostgreSQL (and PGlite) hold the notification until
 * commit and drop it on rollback, so a worker never looks for rows it cannot see yet. A lost
 * notification only costs latency: the dispatcher also polls.
 */
export async function notifyDispatcher(tx: Executor): Promise<void> {
  await tx.execute(sql`SELECT pg_notify(${WEBHOOK_CHANNEL}, '')`);
}

export interface NewEvent<T extends WebhookEventType> {
  type: T;
  object: EventObject;
  data: EventDataByType[T];
}

export interface EmittedEvent {
  eventId: string;
  deliveryIds: string[];
  body: string;
}

/**
 * Records an event in the outbox and one pending delivery per endpoint of the tenant subscribed
 * to its type (suspended endpoints included: their deliveries wait for resume). Call it with the
 * transaction of the state change that causes the event, so both commit or neither does.
 * `onlyEndpointId` addresses one endpoint whatever it subscribes to (the test event).
 */
export async function emitEvent<T extends WebhookEventType>(
  tx: Executor,
  tenant: Tenant,
  event: NewEvent<T>,
  now: Date,
  options: { onlyEndpointId?: string } = {},
): Promise<EmittedEvent> {
  const eventId = newId('evt', now.getTime());
  const body = eventBodyText({
    data: event.data,
    object: { ...event.object, environment: tenant.environment },
    occurred_at: now.toISOString(),
    type: event.type,
  });
  await tx.insert(webhookEvents).values({
    id: eventId,
    ...tenant,
    type: event.type,
    objectId: event.object.id,
    body,
    occurredAt: now,
  });
  const endpoints = await tx
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(
      options.onlyEndpointId
        ? and(tenantFilter(webhookEndpoints, tenant), eq(webhookEndpoints.id, options.onlyEndpointId))
        : and(tenantFilter(webhookEndpoints, tenant), sql`${webhookEndpoints.events} @> ${JSON.stringify([event.type])}::jsonb`),
    );
  const deliveryIds = endpoints.map(() => newId('dlv', now.getTime()));
  if (endpoints.length > 0) {
    await tx.insert(webhookDeliveries).values(
      endpoints.map((e, i) => ({
        id: deliveryIds[i],
        ...tenant,
        endpointId: e.id,
        eventId,
        eventType: event.type,
        status: 'pending' as const,
        nextAttemptAt: now,
        createdAt: now,
      })),
    );
    await notifyDispatcher(tx);
  }
  return { eventId, deliveryIds, body };
}
