import {
  appendClientJournal,
  countWebhookEndpoints,
  emitEvent,
  findWebhookEndpoint,
  insertReplay,
  insertWebhookEndpoint,
  type Db,
  type Executor,
  type Tenant,
  type WebhookDeliveryRow,
  type WebhookEndpointRow,
} from '@idv/db';
import { isWebhookEventType, newId, type WebhookEventType } from '@idv/domain';
import { randomSecret, type MasterKeyring } from '@idv/vault';
import { checkEndpointUrl, resolvesToPublicAddresses } from '@idv/webhooks';
import { ApiError } from '../http/api-error.ts';

/** Endpoints per client and environment: several receivers are plausible, hundreds are a mistake. */
const MAX_ENDPOINTS = 16;

export const secretAad = (endpointId: string) => `webhook_endpoint:${endpointId}:secret`;
/** The previous secret during a rotation's overlap (apps/worker opens it with the same aad). */
export const previousSecretAad = (endpointId: string) => `webhook_endpoint:${endpointId}:previous_secret`;

/**
 * Checks a new endpoint before any transaction opens (the DNS lookup may take a while and must
 * not hold a database connection): events from the catalogue, and a destination the
 * environment allows, resolved in production so no private address gets in.
 */
export async function checkNewEndpoint(
  body: { url: string; events: string[] },
  tenant: Tenant,
  allowPrivateNetworks: boolean,
): Promise<WebhookEventType[]> {
  const events = checkEvents(body.events);
  await checkDestination(body.url, tenant, allowPrivateNetworks);
  return events;
}

export function checkEvents(events: string[]): WebhookEventType[] {
  const unknown = events.filter((e) => !isWebhookEventType(e));
  if (unknown.length) {
    throw new ApiError('unknown_event_type', `Unknown event ${unknown.map((e) => JSON.stringify(e)).join(', ')}; GET /v1/webhook-events lists them.`, 'events');
  }
  return events as WebhookEventType[];
}

/** The destination rule of the environment; in production the host is resolved (outside any transaction). */
export async function checkDestination(url: string, tenant: Tenant, allowPrivateNetworks: boolean): Promise<void> {
  const check = checkEndpointUrl(url, { environment: tenant.environment, allowPrivateNetworks });
  if (!check.ok) throw new ApiError('webhook_url_refused', check.reason, 'url');
  if (tenant.environment === 'prod' && !allowPrivateNetworks) {
    const resolved = await resolvesToPublicAddresses(check.url.hostname);
    if (!resolved.ok) throw new ApiError('webhook_url_refused', resolved.reason, 'url');
  }
}

export async function createEndpoint(
  tx: Executor,
  keyring: MasterKeyring,
  tenant: Tenant,
  spec: { url: string; events: WebhookEventType[]; description: string | null; createdBy: string; now: Date },
): Promise<{ row: WebhookEndpointRow; secret: string }> {
  if ((await countWebhookEndpoints(tx, tenant)) >= MAX_ENDPOINTS) throw new ApiError('webhook_endpoint_limit_reached');
  const id = newId('whe', spec.now.getTime());
  const secret = randomSecret('whsec_');
  const row = await insertWebhookEndpoint(tx, {
    id,
    ...tenant,
    url: spec.url,
    events: spec.events,
    description: spec.description,
    secretSealed: keyring.seal(secret, secretAad(id)),
    status: 'active',
    createdBy: spec.createdBy,
    createdAt: spec.now,
    updatedAt: spec.now,
  });
  await appendClientJournal(tx, tenant, {
    actor: spec.createdBy,
    action: 'webhook_endpoint.created',
    detail: { endpoint_id: id, url: spec.url, events: spec.events },
    at: spec.now,
  });
  return { row, secret };
}

export async function endpointOr404(db: Executor, tenant: Tenant, id: string): Promise<WebhookEndpointRow> {
  const endpoint = await findWebhookEndpoint(db, tenant, id);
  if (!endpoint) throw new ApiError('resource_not_found', 'No such webhook endpoint.', 'endpoint_id');
  return endpoint;
}

/**
 * Replays a delivery as a new delivery of the same event (see insertReplay). Refused while the
 * original is still scheduled (it would go twice) and while the endpoint is suspended (nothing
 * would go: resume it, which also sends what waited).
 */
export async function replayDelivery(db: Db, tenant: Tenant, original: WebhookDeliveryRow, now: Date): Promise<WebhookDeliveryRow> {
  if (original.status === 'pending' || original.status === 'retrying') {
    throw new ApiError(
      'webhook_delivery_scheduled',
      original.nextAttemptAt
        ? `The delivery is ${original.status}; its next attempt is due at ${original.nextAttemptAt.toISOString()}.`
        : undefined,
      'delivery_id',
    );
  }
  return db.transaction(async (tx) => {
    const endpoint = await endpointOr404(tx, tenant, original.endpointId);
    refuseIfNotSending(endpoint);
    return insertReplay(tx, original, now);
  });
}

/** Nothing is sent to a suspended or disabled endpoint: a test or replay would only wait. */
function refuseIfNotSending(endpoint: WebhookEndpointRow): void {
  if (endpoint.status === 'suspended') throw new ApiError('webhook_endpoint_suspended');
  if (endpoint.status === 'disabled') throw new ApiError('webhook_endpoint_disabled');
}

/** A webhook.test event addressed to this endpoint only, whatever it subscribes to. */
export async function sendTestEvent(db: Db, tenant: Tenant, endpointId: string, now: Date): Promise<string> {
  return db.transaction(async (tx) => {
    const endpoint = await endpointOr404(tx, tenant, endpointId);
    refuseIfNotSending(endpoint);
    const emitted = await emitEvent(
      tx,
      tenant,
      { type: 'webhook.test', object: { id: endpoint.id, type: 'webhook_endpoint', external_ref: null, flow_name: null }, data: {} },
      now,
      { onlyEndpointId: endpoint.id },
    );
    return emitted.deliveryIds[0];
  });
}
