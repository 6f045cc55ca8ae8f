import {
  appendClientJournal,
  deleteWebhookEndpoint,
  disableWebhookEndpoint,
  findWebhookEndpointForUpdate,
  resumeWebhookEndpoint,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
  type EndpointChange,
  type Executor,
  type Tenant,
  type WebhookEndpointRow,
} from '@idv/db';
import { randomSecret, type MasterKeyring } from '@idv/vault';
import { ApiError } from '../http/api-error.ts';
import { previousSecretAad, secretAad } from './webhooks.ts';

// An endpoint's life after its creation: each write takes the idempotent request's transaction
// and journals what it changed in the client journal (never a secret), in that transaction.

interface Act {
  tx: Executor;
  tenant: Tenant;
  endpointId: string;
  actor: string;
  now: Date;
}

const notFound = () => new ApiError('resource_not_found', 'No such webhook endpoint.', 'endpoint_id');

async function journal(act: Act, action: 'updated' | 'disabled' | 'enabled' | 'deleted' | 'secret_rotated', detail: Record<string, unknown>): Promise<void> {
  await appendClientJournal(act.tx, act.tenant, { actor: act.actor, action: `webhook_endpoint.${action}`, detail: { endpoint_id: act.endpointId, ...detail }, at: act.now });
}

const FIELDS = ['url', 'events', 'description'] as const;

/** Applies the fields sent; journals those whose value differs, with before and after. */
export async function changeEndpoint(act: Act, change: EndpointChange): Promise<WebhookEndpointRow> {
  const before = await findWebhookEndpointForUpdate(act.tx, act.tenant, act.endpointId);
  if (!before) throw notFound();
  const row = (await updateWebhookEndpoint(act.tx, act.tenant, act.endpointId, change, act.now))!;
  const changed = FIELDS.filter((f) => change[f] !== undefined && JSON.stringify(before[f]) !== JSON.stringify(row[f]));
  if (changed.length > 0) {
    const pick = (r: WebhookEndpointRow) => Object.fromEntries(changed.map((f) => [f, r[f]]));
    await journal(act, 'updated', { changed, before: pick(before), after: pick(row) });
  }
  return row;
}

export async function disableEndpoint(act: Act): Promise<WebhookEndpointRow> {
  const result = await disableWebhookEndpoint(act.tx, act.tenant, act.endpointId, act.now);
  if (!result) throw notFound();
  if (result.changed) await journal(act, 'disabled', {});
  return result.row;
}

/** Active again, from disabled or suspended: what waited is sent at once (as resume does). */
export async function enableEndpoint(act: Act): Promise<WebhookEndpointRow> {
  const before = await findWebhookEndpointForUpdate(act.tx, act.tenant, act.endpointId);
  if (!before) throw notFound();
  if (before.status === 'active') return before;
  const row = (await resumeWebhookEndpoint(act.tx, act.tenant, act.endpointId, act.now))!;
  await journal(act, 'enabled', { previous_status: before.status });
  return row;
}

export async function deleteEndpoint(act: Act): Promise<{ cancelled: number }> {
  const result = await deleteWebhookEndpoint(act.tx, act.tenant, act.endpointId, act.now);
  if (!result) throw notFound();
  await journal(act, 'deleted', { url: result.row.url, cancelled_deliveries: result.cancelled });
  return { cancelled: result.cancelled };
}

/**
 * A new secret; the current one keeps signing beside it for `overlapSeconds` (0: not at all).
 * The previous secret is sealed again under its own aad, so it can never be taken for the current.
 */
export async function rotateSecret(act: Act, keyring: MasterKeyring, overlapSeconds: number): Promise<{ row: WebhookEndpointRow; secret: string }> {
  const endpoint = await findWebhookEndpointForUpdate(act.tx, act.tenant, act.endpointId);
  if (!endpoint) throw notFound();
  const secret = randomSecret('whsec_');
  const expiresAt = overlapSeconds > 0 ? new Date(act.now.getTime() + overlapSeconds * 1000) : null;
  const previous = expiresAt ? keyring.seal(keyring.openText(endpoint.secretSealed, secretAad(endpoint.id)), previousSecretAad(endpoint.id)) : null;
  const row = (await rotateWebhookEndpointSecret(
    act.tx,
    act.tenant,
    act.endpointId,
    { current: keyring.seal(secret, secretAad(endpoint.id)), previous },
    expiresAt,
    act.now,
  ))!;
  await journal(act, 'secret_rotated', { previous_secret_expires_at: expiresAt?.toISOString() ?? null });
  return { row, secret };
}
