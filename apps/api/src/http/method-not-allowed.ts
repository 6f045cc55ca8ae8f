import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.ts';

/**
 * Fastify answers 404 for a known path with an unknown method. This keeps every route's pattern
 * and, for an unmatched request, tells 405 (with Allow) from 404.
 */
export function installNotFound(app: FastifyInstance): void {
  const routes: { pattern: RegExp; methods: string[] }[] = [];
  app.addHook('onRoute', (route) => {
    const source = route.url
      .split('/')
      .map((seg) => (seg.startsWith(':') ? '[^/]+' : seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
      .join('/');
    const methods = ([] as string[]).concat(route.method);
    routes.push({ pattern: new RegExp(`^${source}/?$`), methods });
  });
  app.setNotFoundHandler((req) => {
    const path = req.url.split('?')[0];
    const allowed = [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => r.methods))];
    if (allowed.length) {
      throw new ApiError('method_not_allowed', `${req.method} is not allowed on ${path}.`, undefined, {
        allow: allowed.sort().join(', '),
      });
    }
    throw new ApiError('route_not_found', `No route ${req.method} ${path}.`);
  });
}
