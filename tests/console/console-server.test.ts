import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { insertActiveOperator, updateOperator } from '@idv/db';
import { newId, type OperatorRole } from '@idv/domain';
import { createDevIdp } from '@idv/dev-idp';
import { Agent, startConsoleStack, type ConsoleStack } from '../helpers/console.ts';

/**
 * The console server between the real development provider and the real service, over real
 * HTTP: sign-in (code + PKCE, state, nonce), the session and its timeouts, CSRF, the allow-list,
 * revocation, the re-authentication round trip, invitations and logout.
 */
let s: ConsoleStack;
/** Requests per operator and minute: low enough for a test to reach it, above what the other tests make. */
const PER_OPERATOR = 40;
before(async () => {
  s = await startConsoleStack({ RATE_LIMIT_PER_OPERATOR: String(PER_OPERATOR) });
});
after(() => s.close());

let accounts = 0;
/** A provider account, and an active operator attached to it. */
async function operator(role: OperatorRole, name = `${role} ${++accounts}`) {
  const login = `user${++accounts}@test`;
  const password = randomBytes(9).toString('base64url');
  const subject = s.idp.addAccount(login, password);
  const now = new Date();
  const row = await insertActiveOperator(s.api.database.db, s.tenant, { id: newId('op', now.getTime()), name, role, subject, createdBy: 'test' }, now);
  return { login, password, row };
}

/** Signs in through the provider's real sign-in page; returns the agent and where it ended. */
async function signIn(login: string, password: string, agent = new Agent(), returnTo = '/queue') {
  const toForm = await agent.follow(`${s.consoleUrl}/auth/login?return_to=${encodeURIComponent(returnTo)}`);
  assert.equal(toForm.res.status, 200);
  const form = await toForm.res.text();
  assert.match(form, /name="login"/);
  assert.match(form, /name="password"/);
  const done = await agent.signIn(toForm.url, login, password);
  return { agent, done, form: toForm };
}

async function session(agent: Agent) {
  const res = await agent.request(`${s.consoleUrl}/auth/session`);
  return { res, body: (await res.json()) as Record<string, any> };
}

describe('sign-in', () => {
  test('signs in through the provider, sets the session cookie, and /auth/session answers the operator', async () => {
    const op = await operator('reviewer', 'Rita Reviewer');
    const { agent, done } = await signIn(op.login, op.password);
    assert.equal(done.url.href, `${s.consoleUrl}/queue`);
    assert.equal(done.res.status, 200);
    assert.match(await done.res.text(), /console app/);
    const cookie = agent.setCookieHeaders.find((c) => c.startsWith('console_session='))!;
    assert.ok(cookie, 'session cookie set');
    assert.match(cookie, /HttpOnly/i);
    assert.match(cookie, /SameSite=Lax/i);
    assert.match(cookie, /Path=\//i);
    assert.doesNotMatch(cookie, /Secure/i, 'plain http in development: no Secure flag');
    const { res, body } = await session(agent);
    assert.equal(res.status, 200);
    assert.deepEqual(body.operator, { id: op.row.id, name: 'Rita Reviewer', role: 'reviewer', countries: ['*'], sensitivity: 'restricted' });
    assert.equal(body.environment, 'sandbox');
    assert.equal(typeof body.csrf_token, 'string');
    assert.ok(Date.parse(body.idle_expires_at) < Date.parse(body.expires_at));
    assert.equal(JSON.stringify(body).includes('eyJ'), false, 'no token in the answer');
    // The proxied queue works with the session.
    const queue = await agent.request(`${s.consoleUrl}/api/v1/reviews`);
    assert.equal(queue.status, 200);
    assert.equal(queue.headers.get('cache-control'), 'no-store');
  });

  test('the contract headers: CSP, nosniff, no-referrer, no-store; immutable assets cached', async () => {
    const res = await fetch(`${s.consoleUrl}/some/app/route`);
    assert.equal(res.status, 200);
    const csp = res.headers.get('content-security-policy')!;
    assert.equal(
      csp,
      `default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self' ${s.idp.issuer}`,
    );
    assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const asset = await fetch(`${s.consoleUrl}/assets/app-0123abcd.js`);
    assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    const noSession = await fetch(`${s.consoleUrl}/auth/session`);
    assert.equal(noSession.status, 401);
    assert.equal(((await noSession.json()) as any).error.code, 'session_required');
  });

  test('a tampered state, a code presented with another sign-in (PKCE verifier and nonce of another), or another browser are refused', async () => {
    const op = await operator('reviewer');
    // Two sign-ins started in one browser; the code of the first is sent with the state of the second.
    const a = new Agent();
    const loginA = await a.follow(`${s.consoleUrl}/auth/login`);
    const stopAtCallback = (u: URL) => u.pathname === '/auth/callback';
    const postA = await a.request(loginA.url.href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ login: op.login, password: op.password }).toString() });
    const callbackA = (await a.follow(new URL(postA.headers.get('location')!, loginA.url).href, stopAtCallback)).url;
    const loginB = await a.follow(`${s.consoleUrl}/auth/login`, (u) => u.pathname === '/auth/callback' || u.pathname.startsWith('/interaction/'));
    // B's authorization request went through the provider with the provider session of A: it may land on the callback directly.
    const stateB = loginB.hops.map((h) => h.searchParams.get('state')).find(Boolean)!;
    assert.ok(stateB);
    const mixed = new URL(callbackA);
    mixed.searchParams.set('state', stateB);
    const refused = await a.request(mixed.href);
    assert.equal(refused.status, 302);
    assert.equal(refused.headers.get('location'), '/signed-out?reason=login_failed');
    assert.equal(a.cookies.has('console_session'), false);

    // A state changed by one character.
    const c = new Agent();
    const loginC = await c.follow(`${s.consoleUrl}/auth/login`);
    const postC = await c.request(loginC.url.href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ login: op.login, password: op.password }).toString() });
    const callbackC = (await c.follow(new URL(postC.headers.get('location')!, loginC.url).href, stopAtCallback)).url;
    const tampered = new URL(callbackC);
    tampered.searchParams.set('state', tampered.searchParams.get('state')!.slice(0, -1) + 'x');
    assert.equal((await c.request(tampered.href)).headers.get('location'), '/signed-out?reason=login_failed');

    // The right callback URL, but from another browser (no login cookie).
    const d = new Agent();
    const loginD = await d.follow(`${s.consoleUrl}/auth/login`);
    const postD = await d.request(loginD.url.href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ login: op.login, password: op.password }).toString() });
    const callbackD = (await d.follow(new URL(postD.headers.get('location')!, loginD.url).href, stopAtCallback)).url;
    const other = new Agent();
    assert.equal((await other.request(callbackD.href)).headers.get('location'), '/signed-out?reason=login_failed');
    // And the genuine callback, once, still works for D (the state was consumed by the other browser: refused).
    assert.equal((await d.request(callbackD.href)).headers.get('location'), '/signed-out?reason=login_failed');
  });

  test('a wrong password stays on the sign-in page; an account without operator gets subject_unknown', async () => {
    const op = await operator('reviewer');
    const agent = new Agent();
    const form = await agent.follow(`${s.consoleUrl}/auth/login`);
    const wrong = await agent.request(form.url.href, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'login=' + encodeURIComponent(op.login) + '&password=nope-nope' });
    assert.equal(wrong.status, 401);
    assert.match(await wrong.text(), /role="alert"/);
    s.idp.addAccount('nobody@test', 'password-of-nobody');
    const { done } = await signIn('nobody@test', 'password-of-nobody');
    assert.equal(done.url.pathname + done.url.search, '/signed-out?reason=subject_unknown');
  });
});

describe('the session', () => {
  test('CSRF: a write without the token, with a wrong one or from another origin is refused', async () => {
    const op = await operator('reviewer');
    const { agent } = await signIn(op.login, op.password);
    const { body } = await session(agent);
    const url = `${s.consoleUrl}/api/v1/reviews/tsk_01m7ym09t80f4fggxqxy1yr50c/claim`;
    for (const headers of [{}, { 'x-csrf-token': 'x'.repeat(43) }, { 'x-csrf-token': body.csrf_token, origin: 'http://evil.test' }] as Record<string, string>[]) {
      const res = await agent.request(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: '{}' });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as any).error.code, 'csrf_invalid');
    }
    const ok = await agent.request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': body.csrf_token, origin: s.consoleUrl }, body: '{}' });
    assert.equal(ok.status, 404, 'passed to the service, which does not know the task');
    assert.equal(((await ok.json()) as any).error.code, 'resource_not_found');
  });

  test('the allow-list: integration routes and resolve are not offered', async () => {
    const op = await operator('administrator');
    const { agent } = await signIn(op.login, op.password);
    const { body } = await session(agent);
    // (API keys, endpoints and origins are offered since the console manages them: tests/api/console-integration-settings.test.ts.)
    const notOffered = [
      ['POST', '/api/v1/operators/resolve'],
      ['POST', '/api/v1/cases'],
      ['GET', '/api/v1/cases/case_x/data'],
      ['GET', '/api/v1/webhook-endpoints/whe_x/deliveries'],
      ['POST', '/api/v1/webhook-endpoints/whe_x/replay'],
    ];
    for (const [method, path] of notOffered) {
      const res = await agent.request(`${s.consoleUrl}${path}`, { method, headers: { 'x-csrf-token': body.csrf_token, 'content-type': 'application/json' }, body: method === 'POST' ? '{}' : undefined });
      assert.equal(res.status, 404, `${method} ${path}`);
      assert.equal(((await res.json()) as any).error.code, 'route_not_found');
    }
  });

  test("the service's pacing reaches the browser: RateLimit-* on every answer, then 429 with Retry-After", async () => {
    const op = await operator('reviewer');
    const { agent } = await signIn(op.login, op.password);
    const remaining: number[] = [];
    let refused: Response | null = null;
    for (let i = 0; i < PER_OPERATOR + 5; i++) {
      const res = await agent.request(`${s.consoleUrl}/api/v1/reviews/summary`);
      if (res.status === 429) {
        refused = res;
        break;
      }
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('ratelimit-limit'), String(PER_OPERATOR));
      remaining.push(Number(res.headers.get('ratelimit-remaining')));
      await res.arrayBuffer();
    }
    assert.ok(refused, 'the operator limit was never reached through the console');
    assert.ok(remaining.length >= PER_OPERATOR - 2 && remaining.every((n, i) => i === 0 || n < remaining[i - 1]), `remaining: ${remaining.join(',')}`);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.headers.get('ratelimit-remaining'), '0');
    assert.equal(((await refused.json()) as any).error.code, 'rate_limited');
  });

  test('idle timeout (30 minutes) and absolute timeout (12 hours), on the console clock', async () => {
    const op = await operator('reviewer');
    const idle = (await signIn(op.login, op.password)).agent;
    const busy = (await signIn(op.login, op.password)).agent;
    // Busy keeps working every 25 minutes; idle does nothing.
    s.advance(25 * 60_000);
    assert.equal((await session(busy)).res.status, 200);
    s.advance(6 * 60_000);
    assert.equal((await session(idle)).res.status, 401, 'idle for 31 minutes');
    assert.equal((await session(idle)).body.error.code, 'session_required');
    assert.equal((await session(busy)).res.status, 200, 'extended by each request');
    for (let elapsed = 31; elapsed < 12 * 60 - 25; elapsed += 25) {
      s.advance(25 * 60_000);
      assert.equal((await session(busy)).res.status, 200, `still in at ${elapsed} min`);
    }
    s.advance(30 * 60_000);
    const ended = await session(busy);
    assert.equal(ended.res.status, 401, 'past 12 hours whatever the activity');
    assert.equal(ended.body.error.code, 'session_required');
  });

  test('a revoked operator is signed out at the next request (401 session_ended), and the session is gone', async () => {
    const op = await operator('reviewer');
    const { agent } = await signIn(op.login, op.password);
    assert.equal((await agent.request(`${s.consoleUrl}/api/v1/reviews`)).status, 200);
    await updateOperator(s.api.database.db, s.tenant, op.row.id, { status: 'revoked', revokedAt: new Date() });
    const res = await agent.request(`${s.consoleUrl}/api/v1/reviews`);
    assert.equal(res.status, 401);
    assert.equal(((await res.json()) as any).error.code, 'session_ended');
    const after = await session(agent);
    assert.equal(after.res.status, 401);
    assert.equal(after.body.error.code, 'session_required');
  });
});

describe('re-authentication, invitation, logout', () => {
  let invitation = '';

  test('a write needing re-authentication: reauth url, provider round trip with prompt=login, the action applied once, its result read once', async () => {
    const admin = await operator('administrator');
    const { agent } = await signIn(admin.login, admin.password);
    const { body } = await session(agent);
    // Past REAUTH_MAX_AGE since the sign-in: the console no longer sends its ID token.
    s.advance(6 * 60_000);
    const invite = await agent.request(`${s.consoleUrl}/api/v1/operators`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-csrf-token': body.csrf_token, 'x-console-return-to': '/operators?tab=invite' },
      body: JSON.stringify({ name: 'New Person', role: 'reviewer', countries: ['FR'], sensitivity: 'standard' }),
    });
    assert.equal(invite.status, 403);
    const refused = (await invite.json()) as any;
    assert.equal(refused.error.code, 'reauth_required');
    assert.match(refused.reauth.url, /^\/auth\/reauth\?action=[A-Za-z0-9_-]{43}$/);
    const before = (await s.api.request('GET', '/v1/operators', { key: s.consoleKey, headers: { 'x-service-operator': admin.row.id } })).json().data.length;

    // The provider asks for the password again although its own session is alive.
    const toForm = await agent.follow(`${s.consoleUrl}${refused.reauth.url}`);
    const authorize = toForm.hops.find((h) => h.pathname === '/auth' && h.origin === s.idp.issuer)!;
    assert.equal(authorize.searchParams.get('prompt'), 'login');
    assert.equal(authorize.searchParams.get('max_age'), '0');
    const page = await toForm.res.text();
    assert.match(page, /name="password"/);
    assert.match(page, /Confirm it is you/);
    const done = await agent.signIn(toForm.url, admin.login, admin.password);
    const actionId = refused.reauth.url.split('=')[1];
    assert.equal(done.url.pathname, '/operators');
    assert.equal(done.url.searchParams.get('tab'), 'invite');
    assert.equal(done.url.searchParams.get('action'), actionId);

    const result = await agent.request(`${s.consoleUrl}/auth/actions/${actionId}`);
    assert.equal(result.status, 200);
    const { status, body: created } = (await result.json()) as any;
    assert.equal(status, 201);
    assert.equal(created.operator.name, 'New Person');
    assert.match(created.invitation_token, /^inv_/);
    invitation = created.invitation_token;
    const again = await agent.request(`${s.consoleUrl}/auth/actions/${actionId}`);
    assert.equal(again.status, 404, 'read once');
    const after = (await s.api.request('GET', '/v1/operators', { key: s.consoleKey, headers: { 'x-service-operator': admin.row.id } })).json().data.length;
    assert.equal(after, before + 1, 'applied once');
    // The reauth link is spent too.
    assert.equal((await agent.request(`${s.consoleUrl}${refused.reauth.url}`)).status, 404);
  });

  test('an invitation token is accepted by a new account; a wrong one says invitation_invalid', async () => {
    assert.ok(invitation, 'the previous test made an invitation');
    s.idp.addAccount('new.person@test', 'new-person-password');
    const agent = new Agent();
    const posted = await agent.request(`${s.consoleUrl}/auth/invitation`, { method: 'POST', headers: { 'content-type': 'application/json', origin: s.consoleUrl }, body: JSON.stringify({ token: invitation }) });
    assert.equal(posted.status, 200);
    const { redirect } = (await posted.json()) as { redirect: string };
    assert.equal(redirect.includes(invitation), false, 'the token stays server-side');
    const toForm = await agent.follow(`${s.consoleUrl}${redirect}`);
    assert.ok(toForm.hops.every((h) => !h.href.includes(invitation)), 'never in a URL');
    const done = await agent.signIn(toForm.url, 'new.person@test', 'new-person-password');
    assert.equal(done.url.pathname, '/');
    const { body } = await session(agent);
    assert.equal(body.operator.name, 'New Person');
    assert.equal(body.operator.role, 'reviewer');

    s.idp.addAccount('stranger@test', 'stranger-password');
    const other = new Agent();
    const wrong = await other.request(`${s.consoleUrl}/auth/invitation`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: `inv_${randomBytes(32).toString('base64url')}` }) });
    const form = await other.follow(`${s.consoleUrl}${((await wrong.json()) as any).redirect}`);
    const refused = await other.signIn(form.url, 'stranger@test', 'stranger-password');
    assert.equal(refused.url.pathname + refused.url.search, '/signed-out?reason=invitation_invalid');
    // The used invitation, presented again by yet another account.
    s.idp.addAccount('late@test', 'late-person-password');
    const late = new Agent();
    const reused = await late.request(`${s.consoleUrl}/auth/invitation`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token: invitation }) });
    const lateForm = await late.follow(`${s.consoleUrl}${((await reused.json()) as any).redirect}`);
    assert.equal((await late.signIn(lateForm.url, 'late@test', 'late-person-password')).url.search, '?reason=invitation_invalid');
  });

  test('logout destroys the session and sends the browser to the provider with id_token_hint', async () => {
    const op = await operator('reviewer');
    const { agent } = await signIn(op.login, op.password);
    const { body } = await session(agent);
    const noCsrf = await agent.request(`${s.consoleUrl}/auth/logout`, { method: 'POST' });
    assert.equal(noCsrf.status, 403);
    const res = await agent.request(`${s.consoleUrl}/auth/logout`, { method: 'POST', headers: { 'x-csrf-token': body.csrf_token } });
    assert.equal(res.status, 200);
    const redirect = new URL(((await res.json()) as any).redirect);
    assert.equal(redirect.origin + redirect.pathname, `${s.idp.issuer}/session/end`);
    assert.ok(redirect.searchParams.get('id_token_hint'));
    assert.equal(redirect.searchParams.get('post_logout_redirect_uri'), `${s.consoleUrl}/signed-out`);
    assert.equal((await session(agent)).res.status, 401);
    // The provider's confirmation page, under its own CSP.
    const confirm = await agent.request(redirect.href);
    assert.equal(confirm.status, 200);
    assert.match(await confirm.text(), /op\.logoutForm/);
  });
});

test('the console server logs method, route pattern, status and duration only: no URL, body, token or name', () => {
  assert.ok(s.logs.length > 50, 'requests were logged');
  const allowed = new Set(['level', 'time', 'pid', 'hostname', 'reqId', 'msg', 'method', 'route', 'status', 'ms', 'err', 'code']);
  for (const line of s.logs) {
    const entry = JSON.parse(line) as Record<string, unknown>;
    for (const key of Object.keys(entry)) assert.ok(allowed.has(key), `log key ${key} in ${line}`);
    assert.doesNotMatch(line, /eyJ|inv_|state=|code=|@test|Rita|New Person|sk_sandbox_/, line);
  }
  assert.ok(s.logs.some((l) => JSON.parse(l).route === '/api/v1/*'));
});

test('the development provider refuses to start with NODE_ENV=production', async () => {
  await assert.rejects(
    createDevIdp({ issuer: 'http://127.0.0.1:1', dataDir: '/nonexistent', consoleUrl: 'http://127.0.0.1:2', nodeEnv: 'production' }),
    /does not run with NODE_ENV=production/,
  );
});
