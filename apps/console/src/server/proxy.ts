import type { FastifyInstance } from 'fastify';
import { isDatabaseUnavailable } from '@idv/db';
import { fail, safeReturnTo, sameOrigin, type ConsoleContext } from './context.ts';
import { isProxied, WRITE_METHODS } from './allow-list.ts';
import { forwardForSession, operatorGone } from './forward.ts';
import { keepPendingAction } from './pending-actions.ts';
import { Sessions } from './sessions.ts';

/**
 * /api/v1/… → the service's /v1/… for the session's operator (allow-listed routes only). Status,
 * JSON body, Content-Type and the pacing headers (Retry-After, RateLimit-*) pass through; a revoked or unknown operator ends the session; a write
 * refused for want of a recent re-authentication is kept and its replay offered (reauth.url).
 */
export function registerProxy(app: FastifyInstance, ctx: ConsoleContext): void {
  app.all('/api/v1/*', async (req, reply) => {
    const url = new URL(req.url, 'http://console');
    const path = url.pathname.slice('/api/v1'.length);
    if (!isProxied(req.method, path)) return fail(ctx, req, reply, 'route_not_found', 'The console does not offer this route.');
    const session = await ctx.sessions.current(req, ctx.now());
    if (!session) {
      reply.clearCookie(ctx.sessions.cookieName, ctx.sessions.cookieOptions());
      return fail(ctx, req, reply, 'session_required');
    }
    const write = WRITE_METHODS.has(req.method);
    if (write && (!Sessions.csrfMatches(session, req.headers['x-csrf-token']) || !sameOrigin(ctx, req))) return fail(ctx, req, reply, 'csrf_invalid');

    const body = req.body instanceof Buffer && req.body.length ? req.body : undefined;
    const contentType = typeof req.headers['content-type'] === 'string' ? req.headers['content-type'] : undefined;
    const headers: Record<string, string> = {};
    for (const name of ['accept-language', 'idempotency-key']) {
      const v = req.headers[name];
      if (typeof v === 'string' && v.length <= 255) headers[name] = v;
    }
    // Images are streamed from the service to the browser (with the no-store of every answer); JSON is read, for its error code.
    const request = { method: req.method, path: `/v1${path}${url.search}`, body, contentType, headers, stream: req.method === 'GET' };
    let answer;
    try {
      answer = await forwardForSession(ctx, session, request);
    } catch (err) {
      // The console's own database (its session state) down is a 503, answered by the error handler.
      if (isDatabaseUnavailable(err)) throw err;
      req.log.warn({ err: { name: (err as Error).name } }, 'service unreachable');
      return fail(ctx, req, reply, 'service_unreachable');
    }
    if (operatorGone(answer)) {
      await ctx.sessions.destroy(reply, session);
      return fail(ctx, req, reply, 'session_ended');
    }
    if (write && answer.status === 403 && answer.errorCode === 'reauth_required') {
      const id = await keepPendingAction(ctx, session, {
        method: req.method,
        path: request.path,
        body: body ? body.toString('base64') : null,
        contentType: contentType ?? null,
        returnTo: safeReturnTo(req.headers['x-console-return-to']),
      });
      return reply.code(403).type('application/json; charset=utf-8').send({ ...(answer.json as object), reauth: { url: `/auth/reauth?action=${id}` } });
    }
    return reply.code(answer.status).headers(answer.pacing ?? {}).type(answer.contentType).send(answer.stream ?? answer.body);
  });
}
