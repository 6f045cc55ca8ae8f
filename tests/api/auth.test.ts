import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { eq } from 'drizzle-orm';
import { schema } from '@idv/db';
import { signedHeaders } from '@idv/sdk';
import { errorOf, startTestApp, type Credentials, type TestApp } from '../helpers/app.ts';
import { activateStandardFlow, issueKey, otherClient } from '../helpers/tenants.ts';

/**
 * Authentication and tenancy on every route of the API core, and the signature checks of the
 * signed creations. Each test records its outcome in a matrix printed at the end.
 */

let t: TestApp;
/** Resources of the demo client (sandbox). */
let caseId: string;
let sessionId: string;
let other: { clientId: string; key: Credentials };
let prodKey: Credentials;

before(async () => {
  t = await startTestApp();
  caseId = (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR', external_ref: 'auth-demo' } })).json().id;
  sessionId = (await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: caseId } })).json().id;
  other = await otherClient(t);
  // The same client in production: its own flow and key.
  await activateStandardFlow(t, t.demo.client_id, 'prod');
  prodKey = await issueKey(t, { clientId: t.demo.client_id, environment: 'prod', permissions: ['personal_data', 'decisions'] });
});

const matrix: { route: string; condition: string; result: string }[] = [];
const record = (route: string, condition: string, res: LightMyRequestResponse) => {
  const code = res.statusCode >= 400 ? ` ${res.json().error.code}` : '';
  matrix.push({ route, condition, result: `${res.statusCode}${code}` });
};

after(async () => {
  printMatrix();
  await t.close();
});

function printMatrix() {
  const conditions = [...new Set(matrix.map((m) => m.condition))];
  const routes = [...new Set(matrix.map((m) => m.route))];
  const lines: string[] = [];
  // One table per group of conditions that apply to the same routes, to keep it readable.
  const groups = new Map<string, string[]>();
  for (const c of conditions) {
    const on = routes.filter((r) => matrix.some((m) => m.route === r && m.condition === c)).join('|');
    groups.set(on, [...(groups.get(on) ?? []), c]);
  }
  for (const [on, conds] of groups) {
    const rs = on.split('|');
    const width = Math.max(...rs.map((r) => r.length), 10);
    const colWidth = conds.map((c) => Math.max(c.length, ...matrix.filter((m) => m.condition === c).map((m) => m.result.length)));
    lines.push('', `${'route'.padEnd(width)} | ${conds.map((c, i) => c.padEnd(colWidth[i])).join(' | ')}`);
    lines.push(`${'-'.repeat(width)}-|-${colWidth.map((w) => '-'.repeat(w)).join('-|-')}`);
    for (const r of rs) {
      const cells = conds.map((c, i) => (matrix.find((m) => m.route === r && m.condition === c)?.result ?? '').padEnd(colWidth[i]));
      lines.push(`${r.padEnd(width)} | ${cells.join(' | ')}`);
    }
  }
  console.log(`\nroute x condition -> status code${lines.join('\n')}\n`);
}

/** A request with exactly the headers given (no helper defaults), for header-level failures. */
function send(method: string, url: string, headers: Record<string, string>, payload?: string) {
  const all: Record<string, string> = { ...headers };
  if (payload) all['content-type'] = 'application/json';
  return t.app.inject({ method: method as 'GET', url, headers: all, payload });
}

const nowS = () => Math.floor(t.clock.now().getTime() / 1000);

async function createKeyViaApi(body: Record<string, unknown> = {}): Promise<Credentials> {
  const res = await t.request('POST', '/v1/api-keys', { body });
  assert.equal(res.statusCode, 201, res.body);
  const k = res.json();
  return { id: k.id, secret: k.secret, signingSecret: k.signing_secret };
}

interface Route {
  name: string;
  method: string;
  url: () => string | Promise<string>;
  body?: () => unknown;
  signed?: boolean;
  /** What another tenant's key sees: the resource by id (404), a list without it, or its own creation. */
  tenancy: 'by_id' | 'list' | 'create' | 'usage';
}

const routes: Route[] = [
  { name: 'POST /v1/api-keys', method: 'POST', url: () => '/v1/api-keys', body: () => ({ name: 'matrix' }), tenancy: 'create' },
  { name: 'GET /v1/api-keys', method: 'GET', url: () => '/v1/api-keys', tenancy: 'list' },
  // Each call revokes a fresh key of the demo client.
  { name: 'DELETE /v1/api-keys/{id}', method: 'DELETE', url: async () => `/v1/api-keys/${(await createKeyViaApi({ name: 'victim' })).id}`, tenancy: 'by_id' },
  { name: 'POST /v1/cases', method: 'POST', url: () => '/v1/cases', body: () => ({ flow_name: 'standard', country: 'FR', external_ref: 'auth-matrix' }), signed: true, tenancy: 'create' },
  { name: 'GET /v1/cases', method: 'GET', url: () => '/v1/cases?limit=100', tenancy: 'list' },
  { name: 'GET /v1/cases/{id}', method: 'GET', url: () => `/v1/cases/${caseId}`, tenancy: 'by_id' },
  { name: 'GET /v1/cases/{id}/results', method: 'GET', url: () => `/v1/cases/${caseId}/results`, tenancy: 'by_id' },
  { name: 'POST /v1/sessions', method: 'POST', url: () => '/v1/sessions', body: () => ({ case_id: caseId }), signed: true, tenancy: 'by_id' },
  { name: 'GET /v1/sessions/{id}', method: 'GET', url: () => `/v1/sessions/${sessionId}`, tenancy: 'by_id' },
  { name: 'GET /v1/api-usage', method: 'GET', url: () => '/v1/api-usage', tenancy: 'usage' },
];

async function call(route: Route, key: Credentials | null, headers?: Record<string, string>) {
  return t.request(route.method, await route.url(), { key, body: route.body?.(), signed: route.signed, headers });
}

const bogus = (secret: string): Credentials => ({ id: 'key_bogus', secret, signingSecret: t.demoKey.signingSecret });

describe('every route: the key', () => {
  for (const route of routes) {
    test(`${route.name}: a valid key succeeds (control)`, async () => {
      const res = await call(route, t.demoKey);
      record(route.name, 'valid key', res);
      assert.ok(res.statusCode >= 200 && res.statusCode < 300, `${res.statusCode} ${res.body}`);
    });

    test(`${route.name}: no key -> 401 api_key_missing`, async () => {
      const res = await call(route, null);
      record(route.name, 'no key', res);
      assert.equal(res.statusCode, 401);
      assert.equal(errorOf(res).code, 'api_key_missing');
      assert.equal(errorOf(res).type, 'authentication_error');
    });

    test(`${route.name}: malformed key -> 401 api_key_invalid`, async () => {
      for (const header of ['Bearer not-a-key', 'Bearer sk_sandbox_short', `Basic ${Buffer.from('a:b').toString('base64')}`, t.demoKey.secret, 'Bearer ']) {
        const res = await call(route, null, { authorization: header });
        assert.equal(res.statusCode, 401, `${header}: ${res.body}`);
        assert.equal(errorOf(res).code, 'api_key_invalid', header);
      }
      const res = await call(route, bogus('not-a-key'));
      record(route.name, 'malformed key', res);
    });

    test(`${route.name}: well-formed but unknown key -> 401 api_key_invalid`, async () => {
      for (const secret of [`sk_sandbox_${randomBytes(32).toString('base64url')}`, `sk_live_${randomBytes(32).toString('base64url')}`]) {
        const res = await call(route, bogus(secret));
        assert.equal(res.statusCode, 401);
        assert.equal(errorOf(res).code, 'api_key_invalid');
        if (secret.startsWith('sk_sandbox_')) record(route.name, 'unknown key', res);
      }
    });
  }

  test('a key revoked through DELETE fails on the very next request, on every route', async () => {
    const key = await createKeyViaApi({ name: 'soon revoked' });
    const before = await t.request('GET', '/v1/cases', { key });
    assert.equal(before.statusCode, 200);
    const del = await t.request('DELETE', `/v1/api-keys/${key.id}`);
    assert.equal(del.statusCode, 204);
    assert.equal(del.body, '');
    const next = await t.request('GET', '/v1/cases', { key });
    assert.equal(next.statusCode, 401);
    assert.equal(errorOf(next).code, 'api_key_revoked');
    for (const route of routes) {
      const res = await call(route, key);
      record(route.name, 'revoked key', res);
      assert.equal(res.statusCode, 401, `${route.name}: ${res.body}`);
      assert.equal(errorOf(res).code, 'api_key_revoked', route.name);
    }
  });

  test('a key that revokes itself is refused on its next request', async () => {
    const key = await createKeyViaApi({ name: 'self revoking' });
    assert.equal((await t.request('DELETE', `/v1/api-keys/${key.id}`, { key })).statusCode, 204);
    const res = await t.request('GET', '/v1/api-keys', { key });
    assert.equal(res.statusCode, 401);
    assert.equal(errorOf(res).code, 'api_key_revoked');
  });
});

/** Asserts that another tenant's key sees nothing of the demo client's sandbox data, route by route. */
async function assertIsolated(key: Credentials, label: string, ownEnvironment: 'sandbox' | 'prod') {
  const demoCaseIds = new Set((await t.request('GET', '/v1/cases?limit=100')).json().data.map((c: { id: string }) => c.id));
  const demoKeyIds = new Set((await t.request('GET', '/v1/api-keys?limit=100')).json().data.map((k: { id: string }) => k.id));
  assert.ok(demoCaseIds.has(caseId) && demoKeyIds.has(t.demoKey.id), 'the demo client sees its own data');

  for (const route of routes) {
    if (route.tenancy === 'by_id') {
      // DELETE targets the demo key itself: the other tenant must not be able to revoke it.
      const url = route.method === 'DELETE' ? `/v1/api-keys/${t.demoKey.id}` : await route.url();
      const res = await t.request(route.method, url, { key, body: route.body?.(), signed: route.signed });
      record(route.name, label, res);
      assert.equal(res.statusCode, 404, `${route.name}: ${res.body}`);
      assert.equal(errorOf(res).code, 'resource_not_found', route.name);
      assert.equal(res.body.includes(caseId) || res.body.includes(sessionId), false, 'nothing of the resource leaks');
    } else if (route.tenancy === 'list') {
      const res = await call(route, key);
      record(route.name, label, res);
      assert.equal(res.statusCode, 200);
      const ids: string[] = res.json().data.map((x: { id: string }) => x.id);
      assert.equal(ids.some((id) => demoCaseIds.has(id) || demoKeyIds.has(id)), false, `${route.name} lists another tenant's data`);
    } else if (route.tenancy === 'create') {
      const res = await call(route, key);
      record(route.name, label, res);
      assert.equal(res.statusCode, 201, res.body);
      const created = res.json();
      if (created.object === 'api_key') assert.equal(created.environment, ownEnvironment);
      // The creation lands in the caller's tenant: the demo sandbox key cannot see it.
      const path = created.object === 'api_key' ? '/v1/api-keys?limit=100' : `/v1/cases/${created.id}`;
      const seen = await t.request('GET', path);
      if (created.object === 'api_key') assert.equal(seen.json().data.some((k: { id: string }) => k.id === created.id), false);
      else assert.equal(seen.statusCode, 404);
    } else {
      const res = await call(route, key);
      record(route.name, label, res);
      assert.equal(res.statusCode, 200);
    }
  }
  // The demo key survived the attempt to revoke it.
  assert.equal((await t.request('GET', '/v1/api-keys')).statusCode, 200);
}

describe('tenancy', () => {
  test("another client's key: 404 on every resource by id, never in its lists", async () => {
    await assertIsolated(other.key, "other client's key", 'sandbox');
  });

  test("the other client's own resources are equally invisible to the demo key", async () => {
    const created = await t.request('POST', '/v1/cases', { key: other.key, signed: true, body: { flow_name: 'standard', country: 'DE', external_ref: 'other-own' } });
    assert.equal(created.statusCode, 201);
    const session = await t.request('POST', '/v1/sessions', { key: other.key, signed: true, body: { case_id: created.json().id } });
    assert.equal(session.statusCode, 201);
    for (const path of [`/v1/cases/${created.json().id}`, `/v1/cases/${created.json().id}/results`, `/v1/sessions/${session.json().id}`]) {
      const res = await t.request('GET', path);
      assert.equal(res.statusCode, 404, path);
      assert.equal(errorOf(res).code, 'resource_not_found');
    }
    const listed = (await t.request('GET', '/v1/cases?external_ref=other-own')).json();
    assert.deepEqual(listed.data, []);
    const del = await t.request('DELETE', `/v1/api-keys/${other.key.id}`);
    assert.equal(del.statusCode, 404);
    assert.equal((await t.request('GET', '/v1/cases', { key: other.key })).statusCode, 200, 'the other key is not revoked');
  });

  test('a production key of the same client never sees sandbox data, and sandbox never sees production', async () => {
    assert.match(prodKey.secret, /^sk_live_[A-Za-z0-9_-]{43}$/);
    await assertIsolated(prodKey, 'prod key, same client', 'prod');
    const prodCase = await t.request('POST', '/v1/cases', { key: prodKey, signed: true, body: { flow_name: 'standard', country: 'FR', external_ref: 'auth-demo' } });
    assert.equal(prodCase.statusCode, 201);
    const prodList = (await t.request('GET', '/v1/cases?external_ref=auth-demo', { key: prodKey })).json();
    assert.deepEqual(prodList.data.map((c: { id: string }) => c.id), [prodCase.json().id], 'same reference, only the production case');
    const sandboxList = (await t.request('GET', '/v1/cases?external_ref=auth-demo')).json();
    assert.deepEqual(sandboxList.data.map((c: { id: string }) => c.id), [caseId], 'same reference, only the sandbox case');
    const session = await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: prodCase.json().id } });
    assert.equal(session.statusCode, 404, 'a sandbox key cannot open a journey on a production case');
    // A key created by a production key is a production key.
    const created = await t.request('POST', '/v1/api-keys', { key: prodKey, body: {} });
    assert.match(created.json().secret, /^sk_live_/);
    assert.equal(created.json().environment, 'prod');
  });
});

const countCases = async () => (await t.database.db.select({ id: schema.cases.id }).from(schema.cases)).length;
const countSessions = async () => (await t.database.db.select({ id: schema.sessions.id }).from(schema.sessions)).length;

describe('signed creations', () => {
  const signedRoutes = routes.filter((r) => r.signed);

  for (const route of signedRoutes) {
    const target = route.url() as string;
    const payload = () => JSON.stringify(route.body!());
    const auth = () => ({ authorization: `Bearer ${t.demoKey.secret}` });
    const sig = (opts: { secret?: string; method?: string; target?: string; body?: string; ts?: number; idem?: string } = {}) =>
      signedHeaders(opts.secret ?? t.demoKey.signingSecret, opts.method ?? route.method, opts.target ?? target, opts.body ?? payload(), opts.idem ?? randomUUID(), opts.ts ?? nowS());
    const expectError = (res: LightMyRequestResponse, condition: string, status: number, code: string) => {
      record(route.name, condition, res);
      assert.equal(res.statusCode, status, `${condition}: ${res.body}`);
      assert.equal(errorOf(res).code, code, condition);
    };
    const without = (h: Record<string, string>, name: string) => Object.fromEntries(Object.entries(h).filter(([k]) => k !== name));

    test(`${route.name}: no signature headers -> 401 signature_missing`, async () => {
      const res = await send('POST', target, { ...auth(), 'idempotency-key': randomUUID() }, payload());
      expectError(res, 'no signature', 401, 'signature_missing');
      for (const missing of ['x-service-signature', 'x-service-timestamp']) {
        const partial = await send('POST', target, { ...auth(), ...without(sig(), missing) }, payload());
        assert.equal(partial.statusCode, 401);
        assert.equal(errorOf(partial).code, 'signature_missing', `without ${missing}`);
      }
    });

    test(`${route.name}: a bad signature -> 401 signature_invalid`, async () => {
      const good = sig();
      const flipped = good['x-service-signature'].slice(0, -1) + (good['x-service-signature'].endsWith('0') ? '1' : '0');
      const res = await send('POST', target, { ...auth(), ...good, 'x-service-signature': flipped }, payload());
      expectError(res, 'bad signature', 401, 'signature_invalid');
      for (const value of ['v2=' + '0'.repeat(64), 'v1=' + good['x-service-signature'].slice(3), good['x-service-signature'].slice(3), 'v2=zz', good['x-service-signature'].toUpperCase()]) {
        const r = await send('POST', target, { ...auth(), ...good, 'x-service-signature': value }, payload());
        assert.equal(r.statusCode, 401, value);
        assert.equal(errorOf(r).code, 'signature_invalid', value);
      }
      const badTs = await send('POST', target, { ...auth(), ...good, 'x-service-timestamp': 'yesterday' }, payload());
      assert.equal(errorOf(badTs).code, 'signature_invalid');
    });

    test(`${route.name}: a timestamp over 300 s in the past or the future -> 401 signature_expired`, async () => {
      const past = await t.request('POST', target, { signed: true, body: route.body!(), timestamp: nowS() - 301 });
      expectError(past, 'timestamp -301 s', 401, 'signature_expired');
      const future = await t.request('POST', target, { signed: true, body: route.body!(), timestamp: nowS() + 301 });
      expectError(future, 'timestamp +301 s', 401, 'signature_expired');
      // Within the tolerance both ways: accepted.
      for (const skew of [-299, 299]) {
        const ok = await t.request('POST', target, { signed: true, body: route.body!(), timestamp: nowS() + skew });
        assert.equal(ok.statusCode, 201, `skew ${skew}: ${ok.body}`);
      }
      // Signed now, delivered after the service clock moved on by 301 s.
      const signedAt = nowS();
      t.clock.advance(301_000);
      const late = await t.request('POST', target, { signed: true, body: route.body!(), timestamp: signedAt });
      assert.equal(late.statusCode, 401);
      assert.equal(errorOf(late).code, 'signature_expired');
    });

    test(`${route.name}: the same signed request under a new Idempotency-Key -> 401 signature_replayed, nothing done; under its own key, the stored response`, async () => {
      const body = payload();
      const headers = { ...auth(), ...sig({ body }) };
      const first = await send('POST', target, headers, body);
      assert.equal(first.statusCode, 201, first.body);
      const entries = async () => (await t.database.db.select().from(schema.idempotencyKeys)).length;
      const [cases, sessions, stored] = [await countCases(), await countSessions(), await entries()];
      const replayed = await send('POST', target, { ...headers, 'idempotency-key': randomUUID() }, body);
      expectError(replayed, 'replayed signature', 401, 'signature_replayed');
      // Concurrent replays: the database refuses every one (the signature is unique per key).
      const burst = await Promise.all(Array.from({ length: 4 }, () => send('POST', target, { ...headers, 'idempotency-key': randomUUID() }, body)));
      assert.deepEqual(burst.map((r) => `${r.statusCode} ${errorOf(r).code}`), Array(4).fill('401 signature_replayed'));
      // The request sent again as it was (a retry) gets the stored response.
      const retried = await send('POST', target, headers, body);
      assert.equal(retried.statusCode, 201);
      assert.equal(retried.headers['idempotent-replayed'], 'true');
      assert.equal(retried.json().id, first.json().id);
      assert.deepEqual([await countCases(), await countSessions(), await entries()], [cases, sessions, stored], 'nothing created, nothing stored');
      // The same body signed at another second is another request.
      const again = await send('POST', target, { ...auth(), ...sig({ body, ts: nowS() + 1 }) }, body);
      assert.equal(again.statusCode, 201, again.body);
      assert.notEqual(again.json().id, first.json().id);
    });

    test(`${route.name}: a tampered body (signed one, sent another) -> 401 signature_invalid, nothing created`, async () => {
      const signedBody = route.name === 'POST /v1/cases' ? { flow_name: 'standard', country: 'FR', external_ref: 'tamper-signed' } : { case_id: caseId, locale: 'en' };
      const sentBody = route.name === 'POST /v1/cases' ? { flow_name: 'standard', country: 'FR', external_ref: 'tamper-sent' } : { case_id: caseId, locale: 'fr' };
      const sessionsBefore = (await t.database.db.select().from(schema.sessions)).length;
      const res = await send('POST', target, { ...auth(), ...sig({ body: JSON.stringify(signedBody) }) }, JSON.stringify(sentBody));
      expectError(res, 'tampered body', 401, 'signature_invalid');
      // Even a whitespace change is a different body.
      const spaced = await send('POST', target, { ...auth(), ...sig({ body: JSON.stringify(signedBody) }) }, JSON.stringify(signedBody, null, 1));
      assert.equal(errorOf(spaced).code, 'signature_invalid');
      const refs = (await t.request('GET', '/v1/cases?q=tamper-')).json().data;
      assert.deepEqual(refs, []);
      assert.equal((await t.database.db.select().from(schema.sessions)).length, sessionsBefore);
    });

    test(`${route.name}: a signature made with another key's signing secret -> 401 signature_invalid`, async () => {
      const res = await send('POST', target, { ...auth(), ...sig({ secret: other.key.signingSecret }) }, payload());
      expectError(res, "other key's secret", 401, 'signature_invalid');
      const ownOtherKey = await createKeyViaApi({ name: 'same client, other key' });
      const sameClient = await send('POST', target, { ...auth(), ...sig({ secret: ownOtherKey.signingSecret }) }, payload());
      assert.equal(errorOf(sameClient).code, 'signature_invalid', 'a sibling key of the same client signs nothing for this key');
      const bearerAsSecret = await send('POST', target, { ...auth(), ...sig({ secret: t.demoKey.secret }) }, payload());
      assert.equal(errorOf(bearerAsSecret).code, 'signature_invalid', 'the bearer secret is not the signing secret');
    });

    test(`${route.name}: a signature over another target or method -> 401 signature_invalid`, async () => {
      const res = await send('POST', `${target}?a=1`, { ...auth(), ...sig({ target }) }, payload());
      expectError(res, 'other target', 401, 'signature_invalid');
      const otherQuery = await send('POST', `${target}?a=2`, { ...auth(), ...sig({ target: `${target}?a=1` }) }, payload());
      assert.equal(errorOf(otherQuery).code, 'signature_invalid');
      const otherMethod = await send('POST', target, { ...auth(), ...sig({ method: 'PUT' }) }, payload());
      assert.equal(errorOf(otherMethod).code, 'signature_invalid');
      // Control: the target is the path with its raw query string, so signing it exactly passes.
      const exact = await send('POST', `${target}?a=1`, { ...auth(), ...sig({ target: `${target}?a=1` }) }, payload());
      assert.equal(exact.statusCode, 201, exact.body);
    });

    test(`${route.name}: no Idempotency-Key -> 422 idempotency_key_missing; a malformed one -> 422 idempotency_key_invalid`, async () => {
      const res = await send('POST', target, { ...auth(), ...without(sig(), 'idempotency-key') }, payload());
      expectError(res, 'no Idempotency-Key', 422, 'idempotency_key_missing');
      assert.equal(errorOf(res).field, 'Idempotency-Key');
      for (const idem of ['short', 'x'.repeat(256), 'has space in it']) {
        const bad = await send('POST', target, { ...auth(), ...sig({ idem }) }, payload());
        assert.equal(bad.statusCode, 422, idem);
        assert.equal(errorOf(bad).code, 'idempotency_key_invalid', idem);
      }
    });

    test(`${route.name}: the signature is checked before the body is validated`, async () => {
      const invalidBody = JSON.stringify({ ...(route.body!() as object), nonsense: true });
      const unsigned = await send('POST', target, { ...auth(), ...sig({ body: '{}' }) }, invalidBody);
      assert.equal(errorOf(unsigned).code, 'signature_invalid');
      const signed = await send('POST', target, { ...auth(), ...sig({ body: invalidBody }) }, invalidBody);
      assert.equal(signed.statusCode, 422);
      assert.equal(errorOf(signed).code, 'parameter_unknown');
    });
  }

  test('no failed signature check created a case', async () => {
    const rows = await t.database.db.select().from(schema.cases).where(eq(schema.cases.externalRef, 'tamper-sent'));
    assert.deepEqual(rows, []);
  });
});
