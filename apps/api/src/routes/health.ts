import type { App } from '../context.ts';

/** Liveness answers while the process runs; readiness also needs the database and not to be stopping. */
export function registerHealth(app: App, ready: () => Promise<boolean>): void {
  app.get('/livez', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: 'none' }, schema: { hide: true } }, async (_req, reply) => {
    const ok = await ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable' });
  });
}
