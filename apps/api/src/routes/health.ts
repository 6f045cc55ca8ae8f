import type { App } from '../context.ts';

/**
 * The checks' models as /readyz reports them: `warming` while the worker loads them in the
 * background, `warm` once loaded, `cold` when that failed (they load with the first case), and
 * `not_running` when no worker runs in this process. Readiness never waits for them: the API
 * serves at once, and cases finished meanwhile are decided once the models are in.
 */
export type ChecksStatus = 'warming' | 'warm' | 'cold' | 'not_running';

/** Liveness answers while the process runs; readiness also needs the database and not to be stopping. */
export function registerHealth(app: App, ready: () => Promise<boolean>, checks: () => ChecksStatus = () => 'not_running'): void {
  app.get('/livez', { config: { auth: 'none' }, schema: { hide: true } }, async () => ({ status: 'ok' }));
  app.get('/readyz', { config: { auth: 'none' }, schema: { hide: true } }, async (_req, reply) => {
    const ok = await ready().catch(() => false);
    return reply.code(ok ? 200 : 503).send({ status: ok ? 'ready' : 'unavailable', checks: checks() });
  });
}
