import type { Server } from 'node:http';
import Fastify, { LogController, type FastifyBaseLogger } from 'fastify';
import cookie from '@fastify/cookie';
import { isDatabaseUnavailable, type Db } from '@idv/db';
import { newId, parserRefusalAnswer, parserRefusalCode } from '@idv/domain';
import type { MasterKeyring } from '@idv/vault';
import { installAssets, type ConsoleAssets } from './assets.ts';
import { registerAuthRoutes } from './auth-routes.ts';
import { fail, type ConsoleContext } from './context.ts';
import { OidcClient, type OidcSettings } from './oidc.ts';
import { registerProxy } from './proxy.ts';
import { installSecurityHeaders } from './security-headers.ts';
import { ServiceClient } from './service-client.ts';
import { DEFAULT_ABSOLUTE_MS, DEFAULT_IDLE_MS, Sessions } from './sessions.ts';
import { ConsoleStateStore } from './state-store.ts';

export type { ConsoleAssets } from './assets.ts';
;

export interface ConsoleServerOptions {
  /** The web app (loadConsoleAssets() of apps/console/src/build.ts). */
  assets: ConsoleAssets;
  /** The service's base URL (API_BASE_URL). */
  apiBaseUrl: string;
  /** The console credential: an API key of kind console (CONSOLE_API_KEY). */
  consoleCredential: string;
  oidc: OidcSettings;
  /** The console's public URL (CONSOLE_URL): cookies, redirect URI and origin checks derive from it. */
  consoleUrl: string;
  /** Base of the error documentation (doc_url), DOCS_URL. */
  docsUrl?: string;
  /** Where sessions and pending actions are kept (shared by every console instance), and the keyring that seals them. */
  db: Db;
  keyring: MasterKeyring;
  /** pino-compatible; only method, route pattern, status and duration are logged per request. */
  logger?: FastifyBaseLogger;
  now?: () => Date;
  /** The service's REAUTH_MAX_AGE_S: how long the sign-in's ID token is sent as a re-authentication proof. */
  reauthMaxAgeS?: number;
  idleTimeoutMs?: number;
  absoluteTimeoutMs?: number;
}

const BODY_LIMIT = 1_048_576;
const SWEEP_MS = 10 * 60_000;

/**
 * The console server (backend-for-frontend): signs operators in with OpenID Connect, keeps their
 * sessions server-side, serves the web app and proxies its calls to the service with the console
 * credential. Returns an http.Server not yet listening (the caller picks port and host).
 */
export async function createConsoleServer(options: ConsoleServerOptions): Promise<{ server: Server; close(): Promise<void> }> {
  const consoleUrl = options.consoleUrl.replace(/\/+$/, '');
  const now = options.now ?? (() => new Date());
  const store = new ConsoleStateStore(options.db, options.keyring);
  const oidc = new OidcClient(options.oidc, `${consoleUrl}/auth/callback`);
  const ctx: ConsoleContext = {
    consoleUrl,
    consoleOrigin: new URL(consoleUrl).origin,
    docsUrl: (options.docsUrl ?? 'http://localhost:8083').replace(/\/+$/, ''),
    now,
    reauthMaxAgeS: options.reauthMaxAgeS ?? 300,
    store,
    sessions: new Sessions(store, {
      idleMs: options.idleTimeoutMs ?? DEFAULT_IDLE_MS,
      absoluteMs: options.absoluteTimeoutMs ?? DEFAULT_ABSOLUTE_MS,
      secure: new URL(consoleUrl).protocol === 'https:',
    }),
    oidc,
    service: new ServiceClient(options.apiBaseUrl.replace(/\/+$/, ''), options.consoleCredential),
  };

  const app = Fastify({
    ...(options.logger ? { loggerInstance: options.logger } : { logger: false }),
    // No request or body in the logs (they carry personal data): one line per answer, below.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => newId('req'),
    bodyLimit: BODY_LIMIT,
    trustProxy: false,
    // The router's and Node's parser's own refusals in the spec's error shape too (as the service answers them).
    frameworkErrors: (err, req, reply) => {
      reply.header('x-request-id', req.id);
      void fail(ctx, req, reply, 'parameter_invalid', err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'A path parameter is too long.' : 'A path parameter is not valid percent-encoded UTF-8.');
    },
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || socket.destroyed) return;
      if (socket.writable) socket.write(parserRefusalAnswer(parserRefusalCode(err.code), newId('req'), ctx.docsUrl));
      socket.destroy();
    },
  });
  await app.register(cookie);
  // Bodies pass through to the service as bytes; the service validates them.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (_req, body, done) => done(null, body));
  app.addHook('onSend', async (req, reply, payload) => {
    reply.header('x-request-id', req.id);
    return payload;
  });
  app.addHook('onResponse', async (req, reply) => {
    req.log.info({ method: req.method, route: req.routeOptions.url ?? '(app)', status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request');
  });
  app.setErrorHandler((err: Error & { statusCode?: number; code?: string }, req, reply) => {
    // The console's own state (sessions, sign-in state) is in the service's database: while it
    // cannot be reached, 503 with Retry-After as the service answers, not 500.
    if (isDatabaseUnavailable(err)) {
      req.log.warn({ err: { name: err.name, code: err.code } }, 'database unavailable');
      reply.header('retry-after', '2');
      return fail(ctx, req, reply, 'service_unavailable');
    }
    req.log.error({ err: { name: err.name, code: err.code } }, 'console request failed');
    if (err.statusCode === 413) return fail(ctx, req, reply, 'payload_too_large');
    if (err.statusCode && err.statusCode < 500) return fail(ctx, req, reply, 'bad_request');
    return fail(ctx, req, reply, 'internal_error');
  });
  installSecurityHeaders(app, oidc.issuerOrigin);
  // The process runs (a container's HEALTHCHECK, Kubernetes' liveness and readiness probes).
  app.get('/livez', async () => ({ status: 'ok' }));
  registerAuthRoutes(app, ctx);
  registerProxy(app, ctx);
  installAssets(app, options.assets, (req, reply) => fail(ctx, req, reply, 'route_not_found'));
  await app.ready();

  const sweeper = setInterval(() => {
    store.sweep(now()).catch((err: Error) => app.log.warn({ err: { name: err.name } }, 'console state sweep failed'));
  }, SWEEP_MS);
  sweeper.unref();

  return {
    server: app.server,
    close: async () => {
      clearInterval(sweeper);
      app.server.closeAllConnections();
      await app.close();
    },
  };
}
