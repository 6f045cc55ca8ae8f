import type { App } from '../context.ts';

export function registerOpenApi(app: App): void {
  app.get(
    '/v1/openapi.json',
    { config: { auth: 'none' }, schema: { hide: true } },
    async (_req, reply) => reply.header('cache-control', 'public, max-age=300').send(app.swagger()),
  );
}
