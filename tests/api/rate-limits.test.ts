import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { LightMyRequestResponse } from 'fastify';
import { Redis } from 'ioredis';
import { build } from '@idv/api';
import { ConfigError, loadConfig } from '@idv/config';
import type { App } from '../../apps/api/src/context.ts';
import { ApiRequestError, IdvClient } from '@idv/sdk';
import { DOCS_URL, JOURNEY_URL, errorOf, startTestApp, type Credentials, type TestApp } from '../helpers/app.ts';
import { newSession, openCase } from '../helpers/journey.ts';
import { addOperator, type ReviewTestApp } from '../helpers/operators.ts';
import { freePort } from '../helpers/processes.ts';
import { issueKey } from '../helpers/tenants.ts';
import { signing } from '../helpers/signing.ts';

/**
 * Rate limits (docs/rate-limits.md): tiny limits configured per test, on the real app and real
 * database; Redis is the one on this machine (127.0.0.1:6379) under a prefix of each test's own,
 * or a redis-server started and stopped by the test itself.
 */

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** One database and demo client; each case builds instances of the service on it with its own limits. */
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());
const BAD_KEY = `Bearer sk_sandbox_${'x'.repeat(43)}`;

function limitHeaders(res: LightMyRequestResponse) {
  return {
    policy: res.headers['ratelimit-policy'],
    limit: res.headers['ratelimit-limit'],
    remaining: res.headers['ratelimit-remaining'],
    reset: res.headers['ratelimit-reset'],
    retryAfter: res.headers['retry-after'],
  };
}

/** A 429 in the spec's error shape, with Retry-After and the RateLimit headers of the limit that refused. */
function assertRateLimited(res: LightMyRequestResponse, limit: number) {
  assert.equal(res.statusCode, 429, res.body);
  const error = errorOf(res);
  assert.equal(error.code, 'rate_limited');
  assert.equal(error.type, 'rate_limit_error');
  assert.match(error.request_id, /^req_/);
  const h = limitHeaders(res);
  const retryAfter = Number(h.retryAfter);
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, `Retry-After ${h.retryAfter}`);
  assert.equal(h.limit, String(limit));
  assert.equal(h.remaining, '0');
  assert.equal(h.reset, h.retryAfter);
  assert.equal(h.policy, `${limit};w=60`);
}

/** Another instance of the service on the same database (as a second process would be). */
async function instance(t: TestApp, env: Record<string, string>, logStream?: NodeJS.WritableStream): Promise<App> {
  const config = loadConfig({ DOCS_URL, JOURNEY_URL, LOG_LEVEL: logStream ? 'warn' : 'silent', ...env });
  const { app } = await build({ config, db: t.database.db, keyring: t.ctx.keyring, now: t.clock.now, logger: Boolean(logStream), logStream });
  return app;
}

function get(app: App, url: string, authorization: string | null, headers: Record<string, string> = {}) {
  return app.inject({ method: 'GET', url, headers: { ...(authorization ? { authorization } : {}), ...headers } });
}

/** A signed creation with a key of the demo client. */
function signedPost(app: App, url: string, key: Credentials, body: unknown) {
  const payload = JSON.stringify(body);
  const headers = signing.headers(key.signingSecret, 'POST', url, payload, randomUUID(), Math.floor(t.clock.now().getTime() / 1000));
  return app.inject({ method: 'POST', url, payload, headers: { ...headers, authorization: `Bearer ${key.secret}`, 'content-type': 'application/json' } });
}

/** An instance with these limits for the tests of one describe block, closed after them. */
function instanceFor(env: Record<string, string>): () => App {
  let app: App;
  before(async () => {
    app = await instance(t, env);
  });
  after(() => app.close());
  return () => app;
}

/** Log lines written by an instance, parsed. */
function logCapture() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { stream, warnings: () => lines.filter((l) => l.level === 40 && /rate-limit store unavailable/.test(l.msg)) };
}

describe('per API key', () => {
  const app = instanceFor({ RATE_LIMIT_PER_KEY: '3' });

  test('three requests pass with the RateLimit headers; the fourth gets 429 rate_limited; another key is not affected', async () => {
    const demo = `Bearer ${t.demoKey.secret}`;
    for (const remaining of ['2', '1', '0']) {
      const res = await get(app(), '/v1/webhook-events', demo);
      assert.equal(res.statusCode, 200, res.body);
      const h = limitHeaders(res);
      assert.deepEqual([h.policy, h.limit, h.remaining, h.retryAfter], ['3;w=60', '3', remaining, undefined]);
      assert.ok(Number(h.reset) >= 1 && Number(h.reset) <= 60);
    }
    assertRateLimited(await get(app(), '/v1/webhook-events', demo), 3);
    // Every route of the key shares its count, creations included.
    assertRateLimited(await signedPost(app(), '/v1/cases', t.demoKey, { flow_name: 'standard', country: 'FR' }), 3);

    const otherKey = await issueKey(t, { clientId: t.demo.client_id });
    const res = await get(app(), '/v1/webhook-events', `Bearer ${otherKey.secret}`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['ratelimit-remaining'], '2');
  });
});

describe('per journey session', () => {
  const app = instanceFor({ RATE_LIMIT_PER_SESSION: '2' });

  test('a session past its limit gets 429; another session and the API key are not affected', async () => {
    const caseId = await openCase(t);
    const first = await newSession(t, caseId);
    const second = await newSession(t, await openCase(t));
    const state = (token: string) => get(app(), '/v1/sessions/current', `Session ${token}`);
    for (const remaining of ['1', '0']) {
      const res = await state(first);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-remaining'], remaining);
    }
    const refused = await get(app(), '/v1/sessions/current', `Session ${first}`, { origin: JOURNEY_URL });
    assertRateLimited(refused, 2);
    // The journey app, on its own origin, may read them.
    const exposed = String(refused.headers['access-control-expose-headers']).split(', ');
    for (const h of ['retry-after', 'ratelimit-remaining', 'ratelimit-reset']) assert.ok(exposed.includes(h), h);
    assert.equal((await state(second)).statusCode, 200);
    assert.equal((await get(app(), `/v1/cases/${caseId}`, `Bearer ${t.demoKey.secret}`)).statusCode, 200);
  });
});

describe('console credential', () => {
  const app = instanceFor({ RATE_LIMIT_PER_OPERATOR: '2', RATE_LIMIT_PER_CONSOLE_CREDENTIAL: '6' });

  test('each operator has a limit of their own; the credential has a higher ceiling for all of them together', async () => {
    const consoleKey = await issueKey(t, { clientId: t.demo.client_id, kind: 'console', name: 'console' });
    const tenant = { clientId: t.demo.client_id, environment: 'sandbox' as const };
    const operator = () => addOperator(t as ReviewTestApp, { role: 'administrator', tenant });
    const [a, b, c] = [await operator(), await operator(), await operator()];
    const list = (op: typeof a) => get(app(), '/v1/operators', `Bearer ${consoleKey.secret}`, { 'x-service-operator': op.id });
    for (const op of [a, a]) assert.equal((await list(op)).statusCode, 200);
    const refused = await list(a);
    assertRateLimited(refused, 2);
    assert.match(errorOf(refused).message, /operator/);
    // Another operator of the same console: their own count (the credential's is at 3 of 5).
    const ok = await list(b);
    assert.equal(ok.statusCode, 200);
    assert.deepEqual([ok.headers['ratelimit-limit'], ok.headers['ratelimit-remaining']], ['2', '1'], 'the tightest limit is reported');
    assert.equal((await list(b)).statusCode, 200);
    // The credential has counted 5 of 6: a third operator, with none of their own spent, passes once, then meets the ceiling.
    const last = await list(c);
    assert.equal(last.statusCode, 200);
    assert.deepEqual([last.headers['ratelimit-limit'], last.headers['ratelimit-remaining']], ['6', '0']);
    const ceiling = await list(c);
    assertRateLimited(ceiling, 6);
    assert.match(errorOf(ceiling).message, /console credential/);
  });
});

describe('the SDK', () => {
  test('waits out Retry-After on a 429 and then retries; a longer Retry-After than it may wait is thrown', async () => {
    const client = (base: string, maxRetryAfterS?: number) =>
      new IdvClient({ baseUrl: base, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret, maxRetryAfterS });
    const minute = await instance(t, { RATE_LIMIT_PER_KEY: '1' });
    const second = await instance(t, { RATE_LIMIT_PER_KEY: '1', RATE_LIMIT_WINDOW_S: '1' });
    try {
      const minuteBase = await minute.listen({ port: 0, host: '127.0.0.1' });
      const opened = await client(minuteBase).createCase({ flow_name: 'standard', country: 'FR', external_ref: 'sdk-429' });
      await assert.rejects(client(minuteBase, 0).getCase(opened.id), (err: ApiRequestError) => err.status === 429 && err.code === 'rate_limited');

      // One request per second: the second read is refused with Retry-After: 1, waited out, then served.
      const secondBase = await second.listen({ port: 0, host: '127.0.0.1' });
      for (let i = 0; i < 2; i++) assert.equal((await client(secondBase).getCase(opened.id)).id, opened.id);
    } finally {
      await minute.close();
      await second.close();
    }
  });
});

describe('refused credentials, per client address', () => {
  const app = instanceFor({ RATE_LIMIT_UNAUTHENTICATED_PER_IP: '3', TRUST_PROXY: 'true' });

  const from = (ip: string, authorization: string | null, url = '/v1/webhook-events') => get(app(), url, authorization, { 'x-forwarded-for': ip });

  test('after three refused credentials from an address, every request from it gets 429 before its key is read; other addresses pass', async () => {
    const ip = '203.0.113.7';
    const refusals = [await from(ip, BAD_KEY), await from(ip, null), await from(ip, 'Session short', '/v1/sessions/current')];
    assert.deepEqual(refusals.map((r) => r.statusCode), [401, 401, 401]);
    assert.deepEqual(refusals.map((r) => r.headers['ratelimit-remaining']), ['2', '1', '0']);
    assert.equal(refusals[0].headers['ratelimit-limit'], '3');

    // A flood of wrong keys is throttled, and so is a right key from that address until the window ends.
    assertRateLimited(await from(ip, BAD_KEY), 3);
    assertRateLimited(await from(ip, `Bearer ${t.demoKey.secret}`), 3);

    const elsewhere = await from('198.51.100.20', `Bearer ${t.demoKey.secret}`);
    assert.equal(elsewhere.statusCode, 200, elsewhere.body);
  });

  test('wrong handoff codes count as refused credentials: guessing codes from one address is throttled, even a right code then waits', async () => {
    const ip = '203.0.113.9';
    const token = await newSession(t, await openCase(t));
    const created = await app().inject({ method: 'POST', url: '/v1/sessions/current/handoffs', headers: { authorization: `Session ${token}` } });
    assert.equal(created.statusCode, 201, created.body);
    const open = (code: string) =>
      app().inject({ method: 'POST', url: '/v1/sessions/handoff', payload: { code }, headers: { 'x-forwarded-for': ip, 'content-type': 'application/json' } });
    const guesses = [await open('AAAAA-AAAAA'), await open('BBBBB-BBBBB'), await open('not a code')];
    assert.deepEqual(guesses.map((r) => [r.statusCode, errorOf(r).code]), [[401, 'handoff_code_invalid'], [401, 'handoff_code_invalid'], [401, 'handoff_code_invalid']]);
    assert.deepEqual(guesses.map((r) => r.headers['ratelimit-remaining']), ['2', '1', '0']);
    assertRateLimited(await open(created.json().code), 3);
  });

  test('health routes and /v1/openapi.json are never limited', async () => {
    const ip = '203.0.113.8';
    for (let i = 0; i < 4; i++) await from(ip, BAD_KEY);
    assertRateLimited(await from(ip, BAD_KEY), 3);
    for (const url of ['/livez', '/readyz', '/v1/openapi.json']) {
      const res = await from(ip, null, url);
      assert.equal(res.statusCode, 200, url);
      assert.equal(res.headers['ratelimit-limit'], undefined, url);
    }
  });
});

describe('turned off (benchmarks)', () => {
  const app = instanceFor({ RATE_LIMIT_ENABLED: 'false', RATE_LIMIT_PER_KEY: '1', RATE_LIMIT_UNAUTHENTICATED_PER_IP: '1' });

  test('RATE_LIMIT_ENABLED=false: no limit and no RateLimit headers', async () => {
    for (let i = 0; i < 3; i++) assert.equal((await get(app(), '/v1/webhook-events', BAD_KEY)).statusCode, 401);
    for (let i = 0; i < 5; i++) {
      const res = await get(app(), '/v1/webhook-events', `Bearer ${t.demoKey.secret}`);
      assert.equal(res.statusCode, 200, res.body);
      assert.equal(res.headers['ratelimit-limit'], undefined);
    }
  });
});

describe('shared through Redis', () => {
  const prefix = `idv-test:${randomUUID()}:`;
  const env = { REDIS_URL, RATE_LIMIT_REDIS_PREFIX: prefix, RATE_LIMIT_PER_KEY: '4', RATE_LIMIT_UNAUTHENTICATED_PER_IP: '2' };
  const first = instanceFor(env);
  after(async () => {
    const redis = new Redis(REDIS_URL);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
  });

  test('two instances on one Redis count together, per key and per address', async () => {
    const second = await instance(t, env);
    try {
      const auth = `Bearer ${t.demoKey.secret}`;
      const answers = [await get(first(), '/v1/webhook-events', auth), await get(second, '/v1/webhook-events', auth), await get(first(), '/v1/webhook-events', auth), await get(second, '/v1/webhook-events', auth)];
      assert.deepEqual(answers.map((r) => r.statusCode), [200, 200, 200, 200]);
      assert.deepEqual(answers.map((r) => r.headers['ratelimit-remaining']), ['3', '2', '1', '0']);
      assertRateLimited(await get(first(), '/v1/webhook-events', auth), 4);
      assertRateLimited(await get(second, '/v1/webhook-events', auth), 4);

      // Refused credentials on one instance close the address on the other.
      const ip = { remoteAddress: '192.0.2.44' };
      for (const app of [first(), second]) assert.equal((await app.inject({ method: 'GET', url: '/v1/webhook-events', headers: { authorization: BAD_KEY }, ...ip })).statusCode, 401);
      assertRateLimited(await first().inject({ method: 'GET', url: '/v1/webhook-events', headers: { authorization: BAD_KEY }, ...ip }), 2);

      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}*`);
      await redis.quit();
      assert.ok(keys.length >= 2, 'the counters are in Redis under the configured prefix');
    } finally {
      await second.close();
    }
  });
});

describe('when Redis is unreachable', () => {
  test('at start: requests pass unlimited and a warning is logged', async () => {
    const log = logCapture();
    const app = await instance(t, { REDIS_URL: `redis://127.0.0.1:${await freePort()}`, RATE_LIMIT_PER_KEY: '1' }, log.stream);
    try {
      for (let i = 0; i < 3; i++) {
        const res = await get(app, '/v1/webhook-events', `Bearer ${t.demoKey.secret}`);
        assert.equal(res.statusCode, 200, res.body);
        assert.equal(res.headers['ratelimit-limit'], undefined);
      }
      assert.ok(log.warnings().length >= 1, 'a warning says the limits are off');
      assert.ok(log.warnings().length <= 2, 'not one warning per request');
    } finally {
      await app.close();
    }
  });

  test('when it goes down: requests pass (fail open); when it is back: the limits apply again', async () => {
    const port = await freePort();
    let server = await startRedis(port);
    const log = logCapture();
    const app = await instance(t, { REDIS_URL: `redis://127.0.0.1:${port}`, RATE_LIMIT_PER_KEY: '2' }, log.stream);
    const call = () => get(app, '/v1/webhook-events', `Bearer ${t.demoKey.secret}`);
    try {
      assert.deepEqual([(await call()).statusCode, (await call()).statusCode], [200, 200]);
      assertRateLimited(await call(), 2);

      await stopRedis(server);
      for (let i = 0; i < 3; i++) assert.equal((await call()).statusCode, 200);
      assert.ok(log.warnings().length >= 1);

      // A fresh Redis on the same port: the client reconnects by itself, and counting resumes.
      server = await startRedis(port);
      const until = Date.now() + 30_000;
      let res = await call();
      while (res.statusCode !== 429 && Date.now() < until) {
        await new Promise((r) => setTimeout(r, 100));
        res = await call();
      }
      assertRateLimited(res, 2);
    } finally {
      await app.close();
      await stopRedis(server);
    }
  });
});

describe('configuration', () => {
  test('the defaults are generous and on; bad values are refused at start', () => {
    const config = loadConfig({});
    assert.equal(config.rateLimits.enabled, true);
    assert.equal(config.redisUrl, null);
    assert.ok(config.rateLimits.perKey >= 1000 && config.rateLimits.perSession >= 100);
    assert.ok(config.rateLimits.perConsoleCredential > config.rateLimits.perOperator);
    for (const env of [{ REDIS_URL: 'http://127.0.0.1:6379' }, { RATE_LIMIT_PER_KEY: '0' }, { RATE_LIMIT_ENABLED: 'maybe' }, { TRUST_PROXY: 'everyone' }]) {
      assert.throws(() => loadConfig(env), ConfigError, JSON.stringify(env));
    }
  });
});

/** A redis-server of this test's own, without persistence. */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  const until = Date.now() + 10_000;
  for (;;) {
    const probe = new Redis(port, '127.0.0.1', { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on('error', () => {});
    try {
      await probe.connect();
      await probe.ping();
      break;
    } catch (err) {
      if (Date.now() > until) throw err;
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      probe.disconnect();
    }
  }
  return child;
}

async function stopRedis(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

describe('the SDK during an outage', () => {
  test('a 503 with Retry-After is waited out, then the same signed creation is retried with the same Idempotency-Key', async () => {
    // The service's answer during a database outage (docs/faults.md), in front of the real service:
    // the first attempt is answered 503 with Retry-After: 1, the next ones are passed through.
    const service = instance(t, {});
    const base = await (await service).listen({ port: 0, host: '127.0.0.1' });
    const seen: { at: number; key: string | undefined }[] = [];
    const front = createServer((req, res) => {
      seen.push({ at: Date.now(), key: req.headers['idempotency-key'] as string | undefined });
      if (seen.length === 1) {
        res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' });
        res.end(JSON.stringify({ error: { type: 'api_error', code: 'service_unavailable', message: 'database away', request_id: 'req_front' } }));
        return;
      }
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', async () => {
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !['host', 'connection', 'content-length', 'transfer-encoding'].includes(name))) as Record<string, string>;
        const answer = await fetch(base + req.url, { method: req.method, headers, body: chunks.length ? Buffer.concat(chunks) : undefined });
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(Buffer.from(await answer.arrayBuffer()));
      });
    });
    await new Promise<void>((r) => front.listen(0, '127.0.0.1', r));
    try {
      const frontBase = `http://127.0.0.1:${(front.address() as AddressInfo).port}`;
      const sdk = new IdvClient({ baseUrl: frontBase, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret });
      const opened = await sdk.createCase({ flow_name: 'standard', country: 'FR', external_ref: 'sdk-503' });
      assert.match(opened.id, /^case_/);
      assert.equal(seen.length, 2);
      assert.ok(seen[1].at - seen[0].at >= 1000, `retried after ${seen[1].at - seen[0].at} ms`);
      assert.equal(seen[1].key, seen[0].key);
      // Beyond maxRetryAfterS the refusal is thrown at once.
      seen.length = 0;
      const impatient = new IdvClient({ baseUrl: frontBase, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret, maxRetryAfterS: 0 });
      await assert.rejects(impatient.getCase(opened.id), (err: ApiRequestError) => err.status === 503 && err.code === 'service_unavailable');
    } finally {
      await new Promise((r) => front.close(r));
      await (await service).close();
    }
  });
});
