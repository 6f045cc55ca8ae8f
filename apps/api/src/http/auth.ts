import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findApiKeyBySecretHash, type ApiKeyRow, type Permission, type Tenant, type Db } from '@idv/db';
import { constantTimeEqual, secretHash } from '@idv/vault';
import { ApiError } from './api-error.ts';
import { unavailableOrNull } from './service-unavailable.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * 'none' for public routes (health, contract), 'session' for the journey's routes (session
     * token), 'handoff' for the opening of a handoff code (the code is the credential, checked by
     * the route; a refused one counts against the address like a refused key); others need an API key.
     */
    auth?: 'none' | 'key' | 'session' | 'handoff';
    /** Key permission the route requires. */
    permission?: Permission;
    /** Signed creation: timestamp + HMAC signature + Idempotency-Key. */
    signed?: boolean;
    /**
     * Signed creation (without `permission`) whose handler reserves with runIdempotentStatement
     * (or, POST /v1/cases, creates in one statement: createCaseOnce): a key this instance has read
     * before is read again from the database by that statement itself (one round trip less), not
     * by this hook; see `confirm` below.
     */
    keyReadWithReservation?: boolean;
  }
  interface FastifyRequest {
    auth?: RequestAuth;
  }
}

export interface RequestAuth {
  key: ApiKeyRow;
  tenant: Tenant;
  /**
   * Present while the key comes from this instance's memory of keys it has read, not yet from the
   * database for this request: the reservation's statement reads it (acceptKey), and any refusal
   * before that reads it first (so a revoked or unknown key gets its 401, whatever else is wrong).
   */
  confirm?: () => Promise<void>;
}

const BEARER = /^Bearer (sk_(?:sandbox|live)_[A-Za-z0-9_-]{43})$/;

/** The authenticated key of a request on a route that requires one. */
export function authOf(req: FastifyRequest): RequestAuth {
  if (!req.auth) throw new Error(`route ${req.routeOptions.url} used authOf without authentication`);
  return req.auth;
}

/**
 * Keys read from the database, by secret hash: only for `keyReadWithReservation` routes, which
 * still read the key from the database within the request (so a revocation applies to the next
 * request). Fields that matter there never change: id, tenant, hash, sealed signing secret (a
 * master-key rewrap seals the same secret anew).
 */
const knownKeys = new Map<string, ApiKeyRow>();
const KNOWN_KEYS_MAX = 10_000;

/**
 * The key of the request as read from the database now (null when no key has that hash): refuses
 * an unknown or revoked key, else authenticates the request with it. On a refusal the request
 * has no key (it is not counted for a client).
 */
export function acceptKey(req: FastifyRequest, hash: string, key: ApiKeyRow | null): RequestAuth {
  req.auth = undefined;
  // The lookup is by hash; the comparison below keeps the final check constant-time anyway.
  if (!key || !constantTimeEqual(key.secretHash, hash)) throw new ApiError('api_key_invalid');
  if (key.revokedAt) throw new ApiError('api_key_revoked');
  if (!knownKeys.has(hash)) {
    if (knownKeys.size >= KNOWN_KEYS_MAX) knownKeys.delete(knownKeys.keys().next().value!);
    knownKeys.set(hash, key);
  }
  req.auth = { key, tenant: { clientId: key.clientId, environment: key.environment } };
  return req.auth;
}

/**
 * Authenticates every keyed route on each request from the database (no cache that outlives a
 * revocation), so that a revoked key stops working on the next request on every instance. On
 * `keyReadWithReservation` routes the read of a known key is the reservation's (see RequestAuth).
 */
export function installAuth(app: FastifyInstance, db: Db): void {
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    if (!req.routeOptions.url || config.auth === 'none' || config.auth === 'session' || config.auth === 'handoff') return;
    const header = req.headers.authorization;
    if (!header) throw new ApiError('api_key_missing');
    const match = BEARER.exec(header);
    if (!match) throw new ApiError('api_key_invalid', 'The Authorization header must be "Bearer <API key>".');
    const hash = secretHash(match[1]);
    const known = config.keyReadWithReservation && !config.permission ? knownKeys.get(hash) : undefined;
    if (known) {
      req.auth = {
        key: known,
        tenant: { clientId: known.clientId, environment: known.environment },
        confirm: async () => void acceptKey(req, hash, await findApiKeyBySecretHash(db, hash)),
      };
      return;
    }
    const key = acceptKey(req, hash, await findApiKeyBySecretHash(db, hash)).key;
    if (config.permission && !key.permissions.includes(config.permission)) {
      throw new ApiError('permission_denied', `This route requires a key with the permission ${config.permission}.`);
    }
  });

}

/**
 * For the error handler: a request refused before its key was read from the database (bad
 * signature, invalid body, malformed JSON…) reads it first, so that a revoked or unknown key gets
 * its 401 as it would have before anything else was checked; otherwise the refusal stands.
 */
export async function keyRefusalFirst(req: FastifyRequest, refusal: ApiError): Promise<ApiError> {
  // A 429 stays free of any database read: it is the answer to a client already sending too much.
  // Nor a 503: the confirmation would need the database that cannot be reached.
  if (!req.auth?.confirm || refusal.code === 'rate_limited' || refusal.code === 'service_unavailable') return refusal;
  try {
    await req.auth.confirm();
    return refusal;
  } catch (err) {
    return err instanceof ApiError ? err : (unavailableOrNull(err) ?? new ApiError('internal_error'));
  }
}
