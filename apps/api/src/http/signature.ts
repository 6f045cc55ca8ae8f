import type { FastifyInstance } from 'fastify';
import { signRequest } from '@idv/sdk';
import type { MasterKeyring } from '@idv/vault';
import { constantTimeEqual } from '@idv/vault';
import { ApiError } from './api-error.ts';
import { authOf } from './auth.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The verified v2 signature of a signed creation, stored with its idempotency entry: a signature is accepted once. */
    signature?: string;
  }
}

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{8,255}$/;

/**
 * Signing secrets opened from their sealed form, by sealed form: a key's secret never changes
 * (a master-key rewrap seals the same secret anew, which is another entry), so opening it once is
 * enough; the key itself is still read from the database on every request.
 */
const openedSecrets = new Map<string, string>();
const OPENED_SECRETS_MAX = 10_000;

function signingSecret(keyring: MasterKeyring, key: { id: string; signingSecretSealed: string }): string {
  let secret = openedSecrets.get(key.signingSecretSealed);
  if (secret === undefined) {
    secret = keyring.openText(key.signingSecretSealed, `api_key:${key.id}:signing`);
    if (openedSecrets.size >= OPENED_SECRETS_MAX) openedSecrets.delete(openedSecrets.keys().next().value!);
    openedSecrets.set(key.signingSecretSealed, secret);
  }
  return secret;
}

/**
 * Signed creations: checked after the body is read (the HMAC covers the raw bytes) and before the
 * body is validated, so a tampered body is refused as such. Several `v2=` values separated by
 * commas are accepted, which lets a client roll its signing secret without a gap.
 */
export function installSignatureCheck(app: FastifyInstance, keyring: MasterKeyring, toleranceS: number, now: () => Date): void {
  app.addHook('preValidation', async (req) => {
    const config = req.routeOptions.config;
    if (!config.signed) return;
    const { key } = authOf(req);
    if (key.kind === 'console' && config.operator?.alsoIntegration) {
      // The console server acting for an operator: the console credential never leaves that server
      // and the operator is checked on this call (http/operator.ts), as on every operator route,
      // none of which is signed. The Idempotency-Key is still required: a retried click is one action.
      requireIdempotencyKey(req.headers['idempotency-key']);
      return;
    }
    const timestamp = req.headers['x-service-timestamp'];
    const signature = req.headers['x-service-signature'];
    if (typeof timestamp !== 'string' || typeof signature !== 'string') throw new ApiError('signature_missing');
    if (!/^\d{1,12}$/.test(timestamp)) {
      throw new ApiError('signature_invalid', 'X-Service-Timestamp must be Unix time in seconds.');
    }
    const candidates = signature
      .split(',')
      .map((s) => s.trim())
      .filter((s) => /^v2=[0-9a-f]{64}$/.test(s));
    if (candidates.length === 0) throw new ApiError('signature_invalid', 'X-Service-Signature must be v2=<64 hex digits>.');
    const secret = signingSecret(keyring, key);
    const expected = signRequest(secret, timestamp, req.method, req.url, req.rawBody ?? '');
    // Compare against every candidate (no early exit) so timing says nothing about which one matched.
    const valid = candidates.map((c) => constantTimeEqual(c, expected)).includes(true);
    if (!valid) throw new ApiError('signature_invalid');
    if (Math.abs(now().getTime() / 1000 - Number(timestamp)) > toleranceS) throw new ApiError('signature_expired');
    requireIdempotencyKey(req.headers['idempotency-key']);
    req.signature = expected;
  });
}

function requireIdempotencyKey(idem: string | string[] | undefined): void {
  if (idem === undefined) throw new ApiError('idempotency_key_missing', undefined, 'Idempotency-Key');
  if (typeof idem !== 'string' || !IDEMPOTENCY_KEY.test(idem)) {
    throw new ApiError('idempotency_key_invalid', undefined, 'Idempotency-Key');
  }
}
