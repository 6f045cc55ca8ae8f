import type { FastifyInstance } from 'fastify';

/** The contract's CSP: no inline script or style, no framing, forms only to the console and the provider. */
function contentSecurityPolicy(idpOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' blob: data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    `form-action 'self' ${idpOrigin}`,
  ].join('; ');
}

/** On every answer; `Cache-Control: no-store` unless a route set its own (immutable assets). */
export function installSecurityHeaders(app: FastifyInstance, idpOrigin: string): void {
  const csp = contentSecurityPolicy(idpOrigin);
  app.addHook('onSend', async (_req, reply, payload) => {
    reply.header('content-security-policy', csp);
    reply.header('x-content-type-options', 'nosniff');
    reply.header('referrer-policy', 'no-referrer');
    reply.header('x-frame-options', 'DENY');
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}
