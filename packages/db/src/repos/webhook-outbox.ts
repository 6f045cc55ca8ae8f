import { sql } from 'drizzle-orm';
import { eventBodyText, newId, type EventDataByType, type EventObject, type WebhookEventType } from '@idv/domain';
import { queryRows, type Executor } from '../connect.ts';
import { currentRequestId } from '../request-context.ts';
import type { Tenant } from './tenant.ts';

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
 * to its type (suspended endpoints included: their deliveries wait for resume; disabled and deleted
 * ones excluded: a disabled endpoint receives no new delivery). Call it with the
 * transaction of the state change that causes the event, so both commit or neither does.
 * `onlyEndpointId` addresses one endpoint whatever it subscribes to (the test event). The event
 * records the request it is the work of (request-context.ts), for the worker's log lines.
 */
export async function emitEvent<T extends WebhookEventType>(
  tx: Executor,
  tenant: Tenant,
  event: NewEvent<T>,
  now: Date,
  options: { onlyEndpointId?: string } = {},
): Promise<EmittedEvent> {
  const eventId = newId('evt', now.getTime());
  const at = now.toISOString();
  const body = eventBodyText({
    data: event.data,
    object: { ...event.object, environment: tenant.environment },
    occurred_at: at,
    type: event.type,
  });
  const which = options.onlyEndpointId
    ? sql`e.id = ${options.onlyEndpointId}`
    : sql`e.events @> ${JSON.stringify([event.type])}::jsonb`;
  // Delivery ids take the time part of a newId and 16 random characters drawn in SQL (hex digits
  // are in the id alphabet), so the event, its deliveries and the wake-up are one statement: it
  // costs the caller's transaction a single round trip, which matters on the embedded database.
  const timePart = newId('dlv', now.getTime()).slice(4, 14);
  const [row] = await queryRows<{ ids: string[] | null }>(
    tx,
    sql`WITH ev AS (
          INSERT INTO webhook_events (id, client_id, environment, type, object_id, body, occurred_at, request_id)
          VALUES (${eventId}, ${tenant.clientId}, ${tenant.environment}, ${event.type}, ${event.object.id}, ${body}, ${at}, ${currentRequestId()})
          RETURNING id
        ), dl AS (
          INSERT INTO webhook_deliveries (id, client_id, environment, endpoint_id, event_id, event_type, status, next_attempt_at, created_at)
          SELECT 'dlv_' || ${timePart} || substr(md5(gen_random_uuid()::text), 1, 16), e.client_id, e.environment, e.id, ev.id,
                 ${event.type}, 'pending', ${at}, ${at}
          FROM webhook_endpoints AS e, ev
          WHERE e.client_id = ${tenant.clientId} AND e.environment = ${tenant.environment} AND ${which}
            AND e.status <> 'disabled' AND e.deleted_at IS NULL
          RETURNING id
        )
        SELECT (SELECT array_agg(id ORDER BY id) FROM dl) AS ids,
               CASE WHEN EXISTS (SELECT 1 FROM dl) THEN (SELECT 1 FROM pg_notify(${WEBHOOK_CHANNEL}, '')) END AS woken`,
  );
  return { eventId, deliveryIds: row?.ids ?? [], body };
}
