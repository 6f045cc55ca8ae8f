import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { fail, safeReturnTo, sameOrigin, type ConsoleContext } from './context.ts';
import { errorBody } from './errors.ts';
import type { ServiceAnswer } from './service-client.ts';
import { operatorGone } from './forward.ts';
import { actionIdOf, keepResult, peekPendingAction, replayRequest, takePendingAction, takeResult } from './pending-actions.ts';
import { Sessions } from './sessions.ts';
import { newOpaqueId } from './state-store.ts';

/** A sign-in in progress, keyed by its OAuth state; bound to the browser that started it. */
interface LoginState {
  nonce: string;
  codeVerifier: string;
  returnTo: string;
  invitationToken: string | null;
  /** Set on a re-authentication: the pending action to replay. */
  actionId: string | null;
  /** SHA-256 of the login cookie's value. */
  browserHash: string;
}

const LOGIN_TTL_MS = 10 * 60_000;
const INVITATION_TTL_MS = 15 * 60_000;
const INVITATION_TOKEN = /^inv_[A-Za-z0-9_-]{10,200}$/;
const SIGN_IN_FAILURES = new Set(['subject_unknown', 'invitation_invalid', 'subject_already_attached', 'operator_revoked']);

const sha256 = (s: string) => createHash('sha256').update(s).digest();

export function registerAuthRoutes(app: FastifyInstance, ctx: ConsoleContext): void {
  // The replay could not reach the service: the app reads that as the action's result.
  const unreachable = (req: FastifyRequest): ServiceAnswer => {
    const json = errorBody(req, ctx.docsUrl, 'service_unreachable');
    return { status: 502, contentType: 'application/json', body: Buffer.from(JSON.stringify(json)), errorCode: 'service_unreachable', json };
  };
  const signedOut = (reply: FastifyReply, reason: string) => reply.redirect(`/signed-out?reason=${reason}`, 302);

  async function startLogin(req: FastifyRequest, reply: FastifyReply, spec: { returnTo: string; invitationToken: string | null; actionId: string | null }) {
    let start;
    try {
      start = await ctx.oidc.start({ reauth: spec.actionId !== null });
    } catch (err) {
      req.log.warn({ err: { name: (err as Error).name } }, 'identity provider unavailable');
      return signedOut(reply, 'login_failed');
    }
    const browser = newOpaqueId();
    const now = ctx.now();
    await ctx.store.put<LoginState>(
      'login',
      start.state,
      { nonce: start.nonce, codeVerifier: start.codeVerifier, returnTo: spec.returnTo, invitationToken: spec.invitationToken, actionId: spec.actionId, browserHash: sha256(browser).toString('hex') },
      now,
      new Date(now.getTime() + LOGIN_TTL_MS),
    );
    reply.setCookie(ctx.sessions.loginCookieName, browser, ctx.sessions.cookieOptions(LOGIN_TTL_MS / 1000));
    return reply.redirect(start.url, 302);
  }

  app.get('/auth/login', async (req, reply) => {
    const { return_to } = req.query as { return_to?: unknown };
    // An invitation presented just before (POST /auth/invitation) goes with this sign-in, server-side.
    const invitationId = req.cookies[ctx.sessions.invitationCookieName];
    const invitation = invitationId && invitationId.length <= 100 ? await ctx.store.take<{ token: string }>('invitation', invitationId, ctx.now()) : null;
    if (invitationId) reply.clearCookie(ctx.sessions.invitationCookieName, ctx.sessions.cookieOptions());
    return startLogin(req, reply, { returnTo: safeReturnTo(return_to), invitationToken: invitation?.token ?? null, actionId: null });
  });

  app.post('/auth/invitation', async (req, reply) => {
    if (!sameOrigin(ctx, req)) return fail(ctx, req, reply, 'csrf_invalid');
    if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return fail(ctx, req, reply, 'unsupported_media_type');
    let token: unknown;
    try {
      token = (JSON.parse((req.body as Buffer | undefined)?.toString('utf8') ?? '') as { token?: unknown }).token;
    } catch {
      return fail(ctx, req, reply, 'parameter_invalid', 'The body must be {"token": "inv_…"}.', 'token');
    }
    if (typeof token !== 'string' || !INVITATION_TOKEN.test(token)) return fail(ctx, req, reply, 'parameter_invalid', 'The invitation token is malformed.', 'token');
    const id = newOpaqueId();
    const now = ctx.now();
    await ctx.store.put('invitation', id, { token }, now, new Date(now.getTime() + INVITATION_TTL_MS));
    reply.setCookie(ctx.sessions.invitationCookieName, id, ctx.sessions.cookieOptions(INVITATION_TTL_MS / 1000));
    return { redirect: '/auth/login?return_to=%2F' };
  });

  app.get('/auth/callback', async (req, reply) => {
    const now = ctx.now();
    const search = new URL(req.url, ctx.consoleUrl).search;
    const params = new URLSearchParams(search);
    const state = params.get('state');
    const login = state && state.length <= 200 ? await ctx.store.take<LoginState>('login', state, now) : null;
    const browser = req.cookies[ctx.sessions.loginCookieName];
    reply.clearCookie(ctx.sessions.loginCookieName, ctx.sessions.cookieOptions());
    if (!login || !browser || !timingSafeEqual(sha256(browser), Buffer.from(login.browserHash, 'hex'))) return signedOut(reply, 'login_failed');
    let tokens;
    try {
      tokens = await ctx.oidc.finish(new URL(`${ctx.consoleUrl}/auth/callback${search}`), { state: state!, nonce: login.nonce, codeVerifier: login.codeVerifier, reauth: login.actionId !== null });
    } catch (err) {
      req.log.warn({ err: { name: (err as Error).name, code: (err as { code?: string }).code } }, 'sign-in refused');
      return signedOut(reply, 'login_failed');
    }

    if (login.actionId !== null) {
      // Back from a re-authentication: same person, fresher token, then the action they asked for.
      const session = await ctx.sessions.current(req, now);
      if (!session) return signedOut(reply, 'login_failed');
      if (tokens.subject !== session.data.subject) {
        await ctx.sessions.destroy(reply, session);
        return signedOut(reply, 'login_failed');
      }
      await ctx.sessions.update(session, { ...session.data, idToken: tokens.idToken, authTime: tokens.authTime });
      const action = await takePendingAction(ctx, session, login.actionId);
      if (!action) return reply.redirect(login.returnTo, 302);
      // The token just issued is the proof, whatever the console's view of its age.
      const answer = await ctx.service.call({ ...replayRequest(action), operatorId: session.data.operatorId, reauthToken: tokens.idToken }).catch(() => unreachable(req));
      if (operatorGone(answer)) {
        await ctx.sessions.destroy(reply, session);
        return signedOut(reply, 'operator_revoked');
      }
      await keepResult(ctx, session, login.actionId, answer);
      const target = new URL(action.returnTo, ctx.consoleUrl);
      target.searchParams.set('action', login.actionId);
      return reply.redirect(`${target.pathname}${target.search}${target.hash}`, 302);
    }

    const answer = await ctx.service.resolve(tokens.subject, login.invitationToken ?? undefined).catch(() => null);
    if (!answer) return signedOut(reply, 'login_failed');
    if (answer.status !== 200) {
      if (!answer.errorCode || !SIGN_IN_FAILURES.has(answer.errorCode)) req.log.warn({ status: answer.status, code: answer.errorCode }, 'operator resolution failed');
      return signedOut(reply, answer.errorCode && SIGN_IN_FAILURES.has(answer.errorCode) ? answer.errorCode : 'login_failed');
    }
    const operator = (answer.json as { operator: { id: string } }).operator;
    // A new id at every sign-in: a session id known before (fixation) is worth nothing after.
    await ctx.sessions.destroy(reply, await ctx.sessions.current(req, now));
    await ctx.sessions.create(reply, { operatorId: operator.id, subject: tokens.subject, idToken: tokens.idToken, authTime: tokens.authTime }, now);
    return reply.redirect(login.returnTo, 302);
  });

  app.get('/auth/session', async (req, reply) => {
    const session = await ctx.sessions.current(req, ctx.now());
    if (!session) {
      reply.clearCookie(ctx.sessions.cookieName, ctx.sessions.cookieOptions());
      return fail(ctx, req, reply, 'session_required');
    }
    // Read now, not from the sign-in: a clearance change or a revocation shows at the next load.
    const answer = await ctx.service.resolve(session.data.subject).catch(() => null);
    if (!answer) return fail(ctx, req, reply, 'service_unreachable');
    if (operatorGone(answer)) {
      await ctx.sessions.destroy(reply, session);
      return fail(ctx, req, reply, 'session_ended');
    }
    if (answer.status !== 200) return fail(ctx, req, reply, 'service_unreachable');
    const { operator } = answer.json as { operator: { id: string; name: string; role: string; countries: string[]; sensitivity: string } };
    return {
      operator: { id: operator.id, name: operator.name, role: operator.role, countries: operator.countries, sensitivity: operator.sensitivity },
      environment: ctx.service.environment,
      csrf_token: session.data.csrfToken,
      idle_expires_at: session.idleExpiresAt.toISOString(),
      expires_at: new Date(session.data.absoluteExpiresAt).toISOString(),
    };
  });

  app.post('/auth/logout', async (req, reply) => {
    const session = await ctx.sessions.current(req, ctx.now());
    if (!session) {
      reply.clearCookie(ctx.sessions.cookieName, ctx.sessions.cookieOptions());
      return fail(ctx, req, reply, 'session_required');
    }
    if (!Sessions.csrfMatches(session, req.headers['x-csrf-token']) || !sameOrigin(ctx, req)) return fail(ctx, req, reply, 'csrf_invalid');
    await ctx.sessions.destroy(reply, session);
    let redirect = '/signed-out';
    try {
      redirect = (await ctx.oidc.endSessionUrl(session.data.idToken, `${ctx.consoleUrl}/signed-out`)) ?? redirect;
    } catch {
      // The provider is unreachable: the console session is ended anyway.
    }
    return { redirect };
  });

  app.get('/auth/reauth', async (req, reply) => {
    const session = await ctx.sessions.current(req, ctx.now());
    if (!session) return reply.redirect('/auth/login', 302);
    const id = actionIdOf((req.query as { action?: unknown }).action);
    const action = id ? await peekPendingAction(ctx, session, id) : null;
    if (!action) return fail(ctx, req, reply, 'resource_not_found', 'No such pending action (it is done, expired, or of another session).', 'action');
    return startLogin(req, reply, { returnTo: action.returnTo, invitationToken: null, actionId: id });
  });

  app.get('/auth/actions/:id', async (req, reply) => {
    const session = await ctx.sessions.current(req, ctx.now());
    if (!session) return fail(ctx, req, reply, 'session_required');
    const id = actionIdOf((req.params as { id: string }).id);
    const result = id ? await takeResult(ctx, session, id) : null;
    if (!result) return fail(ctx, req, reply, 'resource_not_found', 'No such action result (already read, expired, or of another session).');
    return { status: result.status, body: result.body };
  });
}
