import type { WebhookAttemptRow, WebhookDeliveryRow, WebhookEndpointRow } from '@idv/db';
import type { WebhookEventType } from '@idv/domain';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentEndpoint(row: WebhookEndpointRow, now: Date) {
  // A previous secret past its overlap no longer signs (the worker reads the same expiry), even
  // before the hourly purge erases it.
  const overlap = row.previousSecretExpiresAt && row.previousSecretExpiresAt > now ? row.previousSecretExpiresAt : null;
  return {
    id: row.id,
    object: 'webhook_endpoint' as const,
    url: row.url,
    events: row.events as WebhookEventType[],
    description: row.description,
    status: row.status,
    environment: row.environment,
    created_at: row.createdAt.toISOString(),
    suspended_at: iso(row.suspendedAt),
    disabled_at: iso(row.disabledAt),
    previous_secret_expires_at: iso(overlap),
  };
}

export function presentDelivery(row: WebhookDeliveryRow) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    endpoint_id: row.endpointId,
    event_id: row.eventId,
    event_type: row.eventType as WebhookEventType,
    status: row.status,
    attempt_count: row.attemptCount,
    next_attempt_at: iso(row.nextAttemptAt),
    last_attempt_at: iso(row.lastAttemptAt),
    last_response_status: row.lastResponseStatus,
    last_error: row.lastError,
    delivered_at: iso(row.deliveredAt),
    replay_of: row.replayOf,
    created_at: row.createdAt.toISOString(),
  };
}

export function presentDeliveryDetail(row: WebhookDeliveryRow & { body: string; attempts: WebhookAttemptRow[] }) {
  return {
    ...presentDelivery(row),
    body: row.body,
    attempts: row.attempts.map((a) => ({
      attempt: a.attempt,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      response_status: a.responseStatus,
      error: a.error,
    })),
  };
}
