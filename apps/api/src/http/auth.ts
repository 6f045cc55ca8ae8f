import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findApiKeysBySecretHashes, type ApiKeyRow, type Permission, type Tenant, type Db } from '@idv/db';
import { constantTimeEqual, secretHash } from '@idv/vault';
import { ApiError } from './api-error.ts';
import { batchedLookup } from './batched-lookup.ts';

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
  }
  interface FastifyRequest {
    auth?: RequestAuth;
  }
}

export interface RequestAuth {
  key: ApiKeyRow;
  tenant: Tenant;
}

const BEARER = /^Bearer (sk_(?:sandbox|live)_[A-Za-z0-9_-]{43})$/;

/** The authenticated key of a request on a route that requires one. */
export function authOf(req: FastifyRequest): RequestAuth {
  if (!req.auth) throw new Error(`route ${req.routeOptions.url} used authOf without authentication`);
  return req.auth;
}

/**
 * Authenticates every keyed route on each request from the database (no cache that outlives a
 * revocation), so that a revoked key stops working on the next request on every instance. The
 * keys of concurrent requests are read in one statement (batched-lookup.ts).
 */
export function installAuth(app: FastifyInstance, db: Db): void {
  const keys = batchedLookup((hashes: readonly string[]) => findApiKeysBySecretHashes(db, hashes), (hash) => hash, (row) => row.secretHash);
  app.addHook('onRequest', async (req) => {
    const config = req.routeOptions.config;
    if (!req.routeOptions.url || config.auth === 'none' || config.auth === 'session' || config.auth === 'handoff') return;
    const header = req.headers.authorization;
    if (!header) throw new ApiError('api_key_missing');
    const match = BEARER.exec(header);
    if (!match) throw new ApiError('api_key_invalid', 'The Authorization header must be "Bearer <API key>".');
    const hash = secretHash(match[1]);
    const key = await keys.load(hash);
    // The lookup is by hash; the comparison keeps the final check constant-time anyway.
    if (!key || !constantTimeEqual(key.secretHash, hash)) throw new ApiError('api_key_invalid');
    if (key.revokedAt) throw new ApiError('api_key_revoked');
    // Authenticated even when refused for its permission: the request counts for the key's client.
    req.auth = { key, tenant: { clientId: key.clientId, environment: key.environment } };
    // The console credential does operator-bound work only (http/operator.ts checks its operator
    // there): on an integration route it is refused as what it is, before the permission, the
    // signature or the body are looked at, so it never reads, signs or creates as a client would.
    if (key.kind === 'console' && !config.operator && !config.console) {
      throw new ApiError('integration_key_required', 'The console credential acts for operators only; call this route with an integration key.');
    }
    if (config.permission && !key.permissions.includes(config.permission)) {
      throw new ApiError('permission_denied', `This route requires a key with the permission ${config.permission}.`);
    }
  });
}
