import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import fc from 'fast-check';
import { insertActiveOperator } from '@idv/db';
import { newId } from '@idv/domain';
import { Agent, startConsoleStack, type ConsoleStack } from '../helpers/console.ts';
import { brokenEscape, hostileString, odd, percentEncode, rawBodyFor, rowCounts } from '../helpers/hostile.ts';

/**
 * The console server (backend-for-frontend) under hostile input, over real HTTP, signed in as an
 * administrator: its own routes (/auth/…) and the service's routes through its proxy (/api/v1/…),
 * with hostile path segments, query values, bodies, media types and methods. Every answer is
 * below 500, every error in the spec's shape; refused writes store nothing; both stay ready.
 */
const SEED = 20_261_125;

let s: ConsoleStack;
let agent: Agent;
let csrf: string;
let routes: { method: string; path: string }[];

before(async () => {
  s = await startConsoleStack();
  const login = 'hostile-admin@test';
  const password = randomBytes(9).toString('base64url');
  const subject = s.idp.addAccount(login, password);
  const now = new Date();
  await insertActiveOperator(s.api.database.db, s.tenant, { id: newId('op', now.getTime()), name: 'Admin', role: 'administrator', subject, createdBy: 'test' }, now);
  agent = new Agent();
  const toForm = await agent.follow(`${s.consoleUrl}/auth/login?return_to=%2F`);
  assert.equal(toForm.res.status, 200);
  await agent.signIn(toForm.url, login, password);
  const session = await agent.request(`${s.consoleUrl}/auth/session`);
  assert.equal(session.status, 200);
  csrf = ((await session.json()) as { csrf_token: string }).csrf_token;
  const doc = (await s.api.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  routes = [
    { method: 'GET', path: '/auth/login' },
    { method: 'POST', path: '/auth/invitation' },
    { method: 'GET', path: '/auth/callback' },
    { method: 'GET', path: '/auth/session' },
    { method: 'GET', path: '/auth/reauth' },
    { method: 'GET', path: '/auth/actions/{id}' },
  ];
  for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
    if (path.startsWith('/v1/sessions/current')) continue;
    for (const method of Object.keys(item)) routes.push({ method: method.toUpperCase(), path: `/api${path}` });
  }
  // Last: it ends the session the routes above are called in.
  routes.push({ method: 'POST', path: '/auth/logout' });
});

after(() => s.close());

/** Header values fetch agrees to send (tab, visible ASCII and Latin-1); controls are sent on a raw socket below. */
const headerValue = hostileString.map((v) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '').trim());

function request(route: { method: string; path: string }) {
  return fc.record({
    method: fc.oneof({ weight: 6, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: odd.method.filter((m) => !['CONNECT', 'TRACE', 'TRACK'].includes(m)) }),
    segment: fc.oneof(hostileString.filter((v) => v.length > 0).map(percentEncode), brokenEscape, fc.constant('case_01m7ym09t80f4fggxqxy1yr50c')),
    query: fc.array(fc.tuple(fc.constantFrom('return_to', 'state', 'code', 'action', 'limit', 'q', 'status', 'external_ref', 'cursor'), fc.oneof(hostileString.map(percentEncode), brokenEscape)), { maxLength: 2 }),
    body: fc.oneof(fc.constant(undefined), hostileString.map((v) => JSON.stringify({ token: v, name: v, reason: v })), rawBodyFor(fc.constant({ token: 'x' }))),
    mediaType: fc.oneof({ weight: 4, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: odd.mediaType.filter((m) => m === undefined || !m.includes('\0')) }),
    header: fc.option(fc.tuple(fc.constantFrom('x-csrf-token', 'idempotency-key', 'accept-language', 'x-console-return-to', 'origin'), headerValue), { nil: undefined }),
    withCsrf: fc.oneof({ weight: 4, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
  });
}

describe('hostile input through the console server', () => {
  test("every answer is below 500 in the error shape; refused writes store nothing; the console and the service stay ready", async () => {
    const proxied = new Map<number, number>();
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(request(route), async (d) => {
          const path = route.path.replace(/\{\w+\}/g, d.segment);
          const query = d.query.map(([k, v]) => `${k}=${v}`).join('&');
          const url = `${s.consoleUrl}${path}${query ? `?${query}` : ''}`;
          const headers: Record<string, string> = {};
          if (d.withCsrf) headers['x-csrf-token'] = csrf;
          if (d.body !== undefined && d.mediaType !== undefined) headers['content-type'] = d.mediaType;
          if (d.header) headers[d.header[0]] = d.header[1];
          const hasBody = d.body !== undefined && !['GET', 'HEAD'].includes(d.method);
          const write = !['GET', 'HEAD', 'OPTIONS'].includes(d.method);
          const before = write ? await rowCounts(s.api.database.db, ['api_usage_daily', 'idempotency_keys', 'console_state']) : null;
          const res = await agent.request(url, { method: d.method, headers, body: hasBody ? (typeof d.body === "string" ? d.body : new Blob([new Uint8Array(d.body as Buffer)])) : undefined });
          const text = await res.text();
          const label = `${d.method} ${path}${query ? `?${query}` : ''} -> ${res.status} ${text.slice(0, 200)}`;
          assert.ok(res.status < 500, label);
          if (route.path.startsWith('/api/')) proxied.set(res.status, (proxied.get(res.status) ?? 0) + 1);
          if (res.status >= 400 && d.method !== 'HEAD') {
            assert.match(res.headers.get('content-type') ?? '', /^application\/json/, label);
            const body = JSON.parse(text);
            assert.deepEqual(Object.keys(body).filter((k) => k !== 'reauth'), ['error'], label);
            assert.match(body.error.request_id, /^req_/, label);
            assert.match(body.error.doc_url, /\/errors\/[a-z_]+$/, label);
          }
          if (before && res.status >= 400) assert.deepEqual(await rowCounts(s.api.database.db, ['api_usage_daily', 'idempotency_keys', 'console_state']), before, `${label}: stored something`);
          // A logout (or a revocation) ends the session: sign in again is not the point here, so keep the cookie jar.
        }),
        { seed: SEED, numRuns: 6, endOnFailure: true },
      );
    }
    // Signed in all along: the service answered some of them with success, not only the console refusals.
    assert.ok([...proxied.keys()].some((st) => st < 300), JSON.stringify([...proxied]));
    assert.ok((proxied.get(401) ?? 0) < [...proxied.values()].reduce((a, b) => a + b, 0) / 2, `mostly signed in: ${JSON.stringify([...proxied])}`);
    assert.equal((await fetch(`${s.apiUrl}/readyz`)).status, 200);
    assert.equal((await fetch(`${s.consoleUrl}/auth/session`)).status < 500, true);
  });

  test("what Node's parser refuses at the console is answered in the error shape", async () => {
    const port = Number(new URL(s.consoleUrl).port);
    for (const extra of ['x-a: \u0001', 'x-a: a\rb', `x-big: ${'b'.repeat(17_000)}`]) {
      for (const line of ['GET /auth/session HTTP/1.1', 'FOO /auth/session HTTP/1.1', 'GET /api/v1/cases/%00 HTTP/1.1']) {
        const answer = await new Promise<string>((resolve, reject) => {
          const socket = connect(port, '127.0.0.1');
          const chunks: Buffer[] = [];
          socket.on('data', (c) => chunks.push(c));
          socket.on('error', reject);
          socket.on('close', () => resolve(Buffer.concat(chunks).toString('latin1')));
          socket.write(Buffer.from(`${line}\r\nhost: 127.0.0.1\r\nconnection: close\r\n${extra}\r\n\r\n`, 'latin1'));
        });
        const [head, body] = answer.split('\r\n\r\n');
        const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1]);
        assert.ok(status >= 400 && status < 500, `${line} + ${JSON.stringify(extra.slice(0, 20))}: ${head}`);
        const parsed = JSON.parse(body);
        assert.match(parsed.error.request_id, /^req_/, body);
        assert.match(head, new RegExp(`x-request-id: ${parsed.error.request_id}`, 'i'), head);
      }
    }
  });
});
