import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import rateLimitPlugin, { normalizeIP, type CreateRateLimitOptions } from '@fastify/rate-limit';
import { Redis } from 'ioredis';
import type { RateLimitSettings } from '@idv/config';
import { isId } from '@idv/domain';
import { ApiError } from './api-error.ts';
import { OPERATOR_HEADER } from './operator.ts';

/**
 * Request rate limits (docs/rate-limits.md), counted by @fastify/rate-limit in fixed windows: in
 * this process's memory, or in Redis shared by every instance when REDIS_URL is set.
 *
 * - Before the credential is read: a client address that has had too many authentications refused
 *   (401) in the window gets 429 on every request until the window ends, so a flood of wrong keys
 *   or session tokens never reaches the database.
 * - Once the credential is known: per integration key; per journey session; for a console
 *   credential (one credential, many operators) per operator named in X-Service-Operator and a
 *   higher ceiling for the credential as a whole.
 *
 * Health routes and /v1/openapi.json (auth 'none') are never limited. When the store fails (Redis
 * unreachable) requests pass unlimited and a warning is logged: an outage of the counters must not
 * become an outage of the service.
 */

type Limiter = ReturnType<FastifyInstance['createRateLimit']>;

interface Policy {
  max: number;
  limiter: Limiter;
}

interface Count {
  max: number;
  remaining: number;
  resetS: number;
  exceeded: boolean;
}

/** At most one warning per minute about the store, however many requests find it down. */
const STORE_WARNING_INTERVAL_MS = 60_000;
/** Counters kept in memory per policy (the least recently used go first). */
const MEMORY_COUNTERS = 100_000;

export interface RateLimits {
  /** Before authentication: the per-address gate of refused authentications. */
  installAddressGate(): void;
  /** After authentication: the per-credential limits, and the count of refused authentications. */
  installCredentialLimits(): void;
}

export async function createRateLimits(app: FastifyInstance, settings: RateLimitSettings, redisUrl: string | null): Promise<RateLimits | null> {
  if (!settings.enabled) return null;

  let lastWarning = 0;
  const warn = (err: unknown) => {
    if (Date.now() - lastWarning < STORE_WARNING_INTERVAL_MS) return;
    lastWarning = Date.now();
    app.log.warn({ err: String(err) }, 'rate-limit store unavailable: requests pass unlimited until it is back');
  };

  const redis = redisUrl ? await connectRedis(redisUrl, warn) : null;
  if (redis) app.addHook('onClose', async () => redis.disconnect());
  await app.register(rateLimitPlugin, {
    global: false,
    ...(redis ? { redis, nameSpace: settings.redisPrefix } : {}),
  });

  const windowMs = settings.windowS * 1000;
  const policy = (max: number, keyOf: (req: FastifyRequest) => string): Policy => ({
    max,
    // skipOnError stays off: the store's error is caught below, to log it.
    limiter: app.createRateLimit({ max, timeWindow: windowMs, keyGenerator: keyOf, cache: MEMORY_COUNTERS } as CreateRateLimitOptions),
  });
  const keyId = (req: FastifyRequest) => req.auth!.key.id;
  const operatorHeader = (req: FastifyRequest) => req.headers[OPERATOR_HEADER] as string;
  const address = policy(settings.unauthenticatedPerIp, (req) => `ip:${normalizeIP(req.ip)}`);
  const integrationKey = policy(settings.perKey, (req) => `key:${keyId(req)}`);
  const consoleCredential = policy(settings.perConsoleCredential, (req) => `console:${keyId(req)}`);
  const operator = policy(settings.perOperator, (req) => `op:${keyId(req)}:${operatorHeader(req)}`);
  const session = policy(settings.perSession, (req) => `ses:${req.journeySession!.id}`);

  const count = async (p: Policy, req: FastifyRequest, increment = true): Promise<Count | null> => {
    try {
      const r = await p.limiter(req, { increment });
      if (r.isAllowed) return null;
      // A read (increment false) tells how many were counted: none may pass once they reach max.
      const exceeded = increment ? r.isExceeded : r.remaining === 0;
      return { max: p.max, remaining: exceeded ? 0 : r.remaining, resetS: Math.max(1, r.ttlInSeconds), exceeded };
    } catch (err) {
      warn(err);
      return null;
    }
  };

  const report = (reply: FastifyReply, c: Count) => {
    reply.header('ratelimit-policy', `${c.max};w=${settings.windowS}`);
    reply.header('ratelimit-limit', c.max);
    reply.header('ratelimit-remaining', c.remaining);
    reply.header('ratelimit-reset', c.resetS);
  };
  const refuse = (c: Count, what: string): never => {
    throw new ApiError('rate_limited', `Too many requests ${what}: at most ${c.max} per ${settings.windowS} seconds. Retry in ${c.resetS} seconds.`, undefined, {
      'retry-after': String(c.resetS),
      'ratelimit-policy': `${c.max};w=${settings.windowS}`,
      'ratelimit-limit': String(c.max),
      'ratelimit-remaining': '0',
      'ratelimit-reset': String(c.resetS),
    });
  };
  const limited = (req: FastifyRequest) => Boolean(req.routeOptions.url) && req.routeOptions.config.auth !== 'none';

  return {
    installAddressGate() {
      app.addHook('onRequest', async (req) => {
        if (!limited(req) || req.method === 'OPTIONS') return;
        const c = await count(address, req, false);
        if (c?.exceeded) refuse(c, 'with refused credentials from this address');
      });
    },

    installCredentialLimits() {
      app.addHook('onRequest', async (req, reply) => {
        if (!limited(req) || reply.sent) return;
        let counts: [Count | null, string][];
        if (req.journeySession) {
          counts = [[await count(session, req), 'for this journey session']];
        } else if (!req.auth) {
          return;
        } else if (req.auth.key.kind === 'console') {
          const header = req.headers[OPERATOR_HEADER];
          const [whole, one] = await Promise.all([
            count(consoleCredential, req),
            typeof header === 'string' && isId('op', header) ? count(operator, req) : null,
          ]);
          counts = [[whole, 'for this console credential'], [one, 'for this operator']];
        } else {
          counts = [[await count(integrationKey, req), 'for this API key']];
        }
        for (const [c, what] of counts) if (c?.exceeded) refuse(c, what);
        // The tightest of the limits that apply is the one the client must pace itself by.
        const tightest = counts.map(([c]) => c).filter((c) => c !== null).sort((a, b) => a.remaining - b.remaining)[0];
        if (tightest) report(reply, tightest);
      });

      // A refused credential counts against the address it came from (before the answer leaves,
      // so that the next request already sees it).
      // Synchronous unless there is something to count: see the onSend hook of app.ts.
      app.addHook('onSend', (req, reply, payload, done) => {
        if (reply.statusCode !== 401 || req.auth || req.journeySession || !limited(req)) return done(null, payload);
        void count(address, req).then((c) => {
          if (c) report(reply, c);
          done(null, payload);
        });
      });
    },
  };
}

/**
 * Commands fail at once while Redis is unreachable (no offline queue, one attempt, a short
 * timeout), so requests are never held waiting for it; the client keeps reconnecting in the
 * background and the limits apply again as soon as it is back.
 */
async function connectRedis(url: string, warn: (err: unknown) => void): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: 1000,
    commandTimeout: 500,
    retryStrategy: (times) => Math.min(times * 100, 2000),
  });
  redis.on('error', warn);
  await redis.connect().catch(warn);
  return redis;
}
