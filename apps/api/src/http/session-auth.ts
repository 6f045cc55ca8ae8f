import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findSessionByTokenHash, type Db, type SessionByToken, type Tenant } from '@idv/db';
import { constantTimeEqual, secretHash } from '@idv/vault';
import { ApiError } from './api-error.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A journey route that still answers once the session has expired (it reveals nothing personal). */
    expiredSessionAllowed?: boolean;
  }
  interface FastifyRequest {
    /** The session of the journey token (routes with `auth: 'session'`). */
    journeySession?: SessionByToken;
  }
}

/** `Authorization: Session <token>`: the token is the fragment of the journey link (32 random bytes, base64url). */
const SESSION = /^Session ([A-Za-z0-9_-]{43})$/;
/** Journey routes share this prefix; only they answer the journey origin's cross-origin requests. */
const JOURNEY_ROUTE_PREFIX = '/v1/sessions/current';
/** The phone's opening of a handoff code: called by the journey app too, before it has a session. */
export const HANDOFF_OPEN_PATH = '/v1/sessions/handoff';

export function journeyOf(req: FastifyRequest): { session: SessionByToken; tenant: Tenant } {
  const session = req.journeySession;
  if (!session) throw new Error(`route ${req.routeOptions.url} used journeyOf without a session`);
  return { session, tenant: { clientId: session.clientId, environment: session.environment } };
}

/**
 * The journey's own routes are authenticated by the session token alone (never an API key) and
 * are called by the journey app from its own origin: they answer that origin's CORS requests,
 * and no other. The token travels in a header, never in a query string, so it stays out of
 * access logs, proxies and Referer headers.
 */
export function installSessionAuth(app: FastifyInstance, db: Db, journeyUrl: string, now: () => Date): void {
  const journeyOrigin = new URL(journeyUrl).origin;
  const under = (url: string, path: string) => url === path || url.startsWith(`${path}?`);
  const isJourneyPath = (url: string) => under(url, JOURNEY_ROUTE_PREFIX) || url.startsWith(`${JOURNEY_ROUTE_PREFIX}/`) || under(url, HANDOFF_OPEN_PATH);

  app.addHook('onRequest', async (req, reply) => {
    if (!isJourneyPath(req.url)) return;
    reply.header('vary', 'Origin');
    if (req.headers.origin === journeyOrigin) {
      reply.header('access-control-allow-origin', journeyOrigin);
      // The journey app may read when to retry after a 429 (docs/rate-limits.md).
      reply.header('access-control-expose-headers', 'x-request-id, retry-after, ratelimit-policy, ratelimit-limit, ratelimit-remaining, ratelimit-reset');
    }
    // CORS preflight: answered here, before routing (no OPTIONS route is declared).
    if (req.method === 'OPTIONS') {
      if (req.headers.origin === journeyOrigin) {
        reply.header('access-control-allow-methods', 'GET, POST, PUT');
        reply.header('access-control-allow-headers', 'authorization, content-type');
        reply.header('access-control-max-age', '600');
      }
      return reply.code(204).send();
    }
    if (req.routeOptions.config.auth !== 'session') return;
    const header = req.headers.authorization;
    if (!header) throw new ApiError('session_token_missing');
    const match = SESSION.exec(header);
    if (!match) throw new ApiError('session_token_invalid', 'The Authorization header must be "Session <token>".');
    const hash = secretHash(match[1]);
    const session = await findSessionByTokenHash(db, hash);
    if (!session || !constantTimeEqual(session.tokenHash, hash)) throw new ApiError('session_token_invalid');
    if (session.expiresAt <= now() && !req.routeOptions.config.expiredSessionAllowed) throw new ApiError('session_expired', `The journey link expired at ${session.expiresAt.toISOString()}.`);
    req.journeySession = session;
  });
}
