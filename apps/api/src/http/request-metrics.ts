import { runForRequest } from '@idv/db';
import { RequestDurations } from '@idv/metrics';
import type { App } from '../context.ts';

/**
 * Each request's duration in the process's metrics, by route pattern (never the URL) and status,
 * and the request id carried into its work (runForRequest): what the request queues or causes
 * records it, so the worker's log lines about them name the request.
 *
 * Both hooks are synchronous (done callback): an async hook would add a promise and its
 * microtask to every request.
 */
export function installRequestMetrics(app: App): void {
  const durations = new RequestDurations();
  // preHandler, not onRequest: after the body is read, whose stream events run outside the
  // request's async context; the handler and everything it awaits run inside this call.
  app.addHook('preHandler', (req, _reply, done) => runForRequest(req.id, done));
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions;
    durations.observe(route.config, route.url, req.method, reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
}
