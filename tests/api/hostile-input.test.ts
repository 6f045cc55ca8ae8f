import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import type { LightMyRequestResponse } from 'fastify';
import type { OperatorRow } from '@idv/db';
import { assertWellFormedAnswer, brokenEscape, hostileString, odd, percentEncode, rawBodyFor, rowCounts, valueFor, type BodyContext } from '../helpers/hostile.ts';
import { DOCS_URL, errorOf } from '../helpers/app.ts';
import { newSession } from '../helpers/journey.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { issueKey } from '../helpers/tenants.ts';
import { signing } from '../helpers/signing.ts';

/**
 * Property-based: requests drawn from the OpenAPI document for every route (fixed seed, a bounded
 * number of runs per route), carrying malformed and deeply nested JSON, wrong types, duplicate
 * keys, control characters and unpaired surrogates in strings, path parameters, query values and
 * headers, over-long values, huge bodies, wrong media types and odd methods, signed and
 * authenticated like a real client (API key, console credential acting for an operator, or the
 * journey's session token). Every answer is below 500 and every error is in the spec's shape;
 * a refused request stores nothing; the service is still ready afterwards.
 */
const SEED = 20_261_125;
const RUNS_PER_ROUTE = 24;

/**
 * Tables a refused request changes by design: the usage counters count refused calls too, and a
 * signed creation's answer, a refusal included, is kept for replay under its Idempotency-Key.
 */
const CHANGED_BY_REFUSALS = ['api_usage_daily', 'idempotency_keys'];

let t: ReviewTestApp;
let dataDir: string;
let doc: any;
let admin: OperatorRow;
let token: string;
const good: Record<string, unknown[]> = {};

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-hostile-'));
  t = await startReviewApp({ DATA_DIR: dataDir });
  doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
  admin = await addOperator(t, { role: 'administrator' });
  const support = await addOperator(t, { role: 'support' });
  const reviewer = await addOperator(t, { role: 'reviewer' });
  const review = await caseInReview(t);
  const open = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR', external_ref: 'hostile' } });
  assert.equal(open.statusCode, 201, open.body);
  const openCase = open.json().id as string;
  token = await newSession(t, openCase);
  const spare = await issueKey(t, { clientId: t.demo.client_id, name: 'spare' });
  const hook = await t.request('POST', '/v1/webhook-endpoints', { signed: true, body: { url: 'http://localhost:9/hooks', events: ['case.decided'] } });
  assert.equal(hook.statusCode, 201, hook.body);
  const session = await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: openCase } });
  Object.assign(good, {
    case_id: [review.caseId, openCase],
    task_id: [review.taskId],
    session_id: [session.json().id],
    key_id: [spare.id],
    endpoint_id: [hook.json().id],
    target_id: [reviewer.id],
    operator_id: [support.id],
    grant_id: ['grt_01m7ym09t80f4fggxqxy1yr50c'],
    delivery_id: ['dlv_01m7ym09t80f4fggxqxy1yr50c'],
    piece_id: ['pc_01m7ym09t80f4fggxqxy1yr50c'],
    kind: ['document_front', 'selfie'],
    flow_name: ['standard'],
    country: ['FR', 'DE'],
    countries: [['*'], ['FR']],
    locale: ['en', 'fr'],
    url: ['http://localhost:9/other'],
    events: [['case.decided']],
    origins: [['https://www.example.com']],
    subject: [admin.subject],
    period: ['2026-11'],
    days: ['1', '30'],
    limit: ['1', '100'],
    status: ['created', 'open'],
    since: ['2026-01-01T00:00:00Z'],
    reason: ['checking a report'],
  });
});

after(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

interface Route {
  method: string;
  path: string;
  session: boolean;
  signed: boolean;
  pathParams: string[];
  query: string[];
  body: Record<string, any> | null;
  image: boolean;
  /** Called by a wallet (OpenID4VP): its refusals are in OAuth's error shape. */
  wallet: boolean;
}

function routesOf(document: any): Route[] {
  const out: Route[] = [];
  for (const [path, item] of Object.entries<Record<string, any>>(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const params: { in: string; name: string }[] = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      out.push({
        method: method.toUpperCase(),
        path,
        session: (op.security ?? []).some((s: object) => 'sessionToken' in s),
        wallet: (op.tags ?? []).includes('wallet-protocol'),
        signed: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'x-service-signature'),
        pathParams: params.filter((p) => p.in === 'path').map((p) => p.name),
        query: params.filter((p) => p.in === 'query').map((p) => p.name),
        body: content['application/json']?.schema ?? null,
        image: Boolean(content['image/jpeg']),
      });
    }
  }
  return out;
}

const ctxOf = (): BodyContext => ({
  resolve: (s) => (s.$ref ? doc.components.schemas[s.$ref.split('/').pop()] : s),
  good,
});

const goodText = (name: string) => (good[name] ?? []).filter((v): v is string => typeof v === 'string');

/** A path segment: an existing resource's id, hostile text (percent-encoded), or broken escapes. */
const segment = (name: string) =>
  fc.oneof(
    { weight: 3, arbitrary: goodText(name).length ? fc.constantFrom(...goodText(name)).map(encodeURIComponent) : fc.constant('x') },
    { weight: 3, arbitrary: hostileString.filter((s) => s.length > 0).map(percentEncode) },
    { weight: 1, arbitrary: brokenEscape },
  );

/** A query value: a sensible one, hostile text, broken escapes, or a number out of range. */
const queryValue = (name: string) =>
  fc.oneof(
    { weight: 2, arbitrary: goodText(name).length ? fc.constantFrom(...goodText(name)).map(encodeURIComponent) : fc.constant('1') },
    { weight: 3, arbitrary: hostileString.map(percentEncode) },
    { weight: 1, arbitrary: brokenEscape },
    { weight: 1, arbitrary: fc.constantFrom('-1', '0', '1e9', '99999999999999999999', 'NaN', '1.5', 'true', '[]') },
  );

/** Header values a client can put on the wire (Latin-1 only: HTTP carries bytes). */
const headerValue = hostileString.map((s) => [...s].filter((c) => c.charCodeAt(0) <= 0xff).join(''));
const extraHeaders = fc.oneof(
  { weight: 4, arbitrary: fc.constant({}) },
  { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('x-service-operator', 'idempotency-key', 'x-service-reauthenticated-at', 'x-service-timestamp', 'x-anything', 'accept', 'origin', 'user-agent'), headerValue, { maxKeys: 2 }) },
);

interface Drawn {
  method: string;
  params: Record<string, string>;
  query: [string, string][];
  body: string | Buffer | undefined;
  mediaType: string | undefined;
  headers: Record<string, string>;
  identity: 'integration' | 'operator' | 'operator-reauth' | 'none';
  sign: boolean;
  idempotencyKey: string;
}

function requestsFor(route: Route): fc.Arbitrary<Drawn> {
  const ctx = ctxOf();
  const validBody = route.body ? valueFor(route.body, ctx) : fc.constant({});
  const body: fc.Arbitrary<string | Buffer | undefined> = route.image
    ? fc.oneof(fc.uint8Array({ maxLength: 64 }).map((b) => Buffer.from(b)), fc.constant(undefined), rawBodyFor(validBody))
    : route.body
      ? fc.oneof({ weight: 5, arbitrary: validBody.map((v) => JSON.stringify(v)) }, { weight: 2, arbitrary: rawBodyFor(validBody) }, { weight: 1, arbitrary: fc.constant(undefined) })
      : fc.oneof({ weight: 4, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: rawBodyFor(validBody) });
  const declaredQuery = route.query.length
    ? fc.subarray(route.query).chain((names) => fc.tuple(...names.map((n) => queryValue(n).map((v) => [n, v] as [string, string]))))
    : fc.constant([] as [string, string][]);
  const unknownQuery = fc.array(fc.tuple(hostileString.filter((s) => s.length > 0).map(percentEncode), queryValue('')), { maxLength: 1 });
  return fc.record({
    method: fc.oneof({ weight: 8, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: odd.method }),
    params: fc.record(Object.fromEntries(route.pathParams.map((p) => [p, segment(p)]))),
    query: fc.tuple(declaredQuery, fc.oneof({ weight: 4, arbitrary: fc.constant([]) }, { weight: 1, arbitrary: unknownQuery })).map(([a, b]) => [...a, ...b]),
    body,
    mediaType: route.image
      ? fc.constantFrom('image/jpeg', 'application/octet-stream', 'text/plain', undefined)
      : fc.oneof({ weight: 6, arbitrary: fc.constant('application/json') }, { weight: 1, arbitrary: odd.mediaType }),
    headers: extraHeaders,
    identity: fc.oneof(
      { weight: 3, arbitrary: fc.constant('integration' as const) },
      { weight: 2, arbitrary: fc.constant('operator' as const) },
      { weight: 2, arbitrary: fc.constant('operator-reauth' as const) },
      { weight: 1, arbitrary: fc.constant('none' as const) },
    ),
    sign: fc.oneof({ weight: 5, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }),
    idempotencyKey: fc.uuid(),
  });
}

async function send(route: Route, d: Drawn): Promise<LightMyRequestResponse> {
  const path = route.path.replace(/\{(\w+)\}/g, (_, name: string) => d.params[name]);
  const query = d.query.map(([k, v]) => `${k}=${v}`).join('&');
  const url = query ? `${path}?${query}` : path;
  const headers: Record<string, string> = {};
  if (d.body !== undefined && d.mediaType !== undefined) headers['content-type'] = d.mediaType;
  if (route.session) {
    if (d.identity !== 'none') headers.authorization = `Session ${token}`;
  } else if (d.identity === 'integration') {
    headers.authorization = `Bearer ${t.demoKey.secret}`;
  } else if (d.identity !== 'none') {
    headers.authorization = `Bearer ${t.consoleKey.secret}`;
    headers['x-service-operator'] = admin.id;
    if (d.identity === 'operator-reauth') headers['x-service-reauthenticated-at'] = await t.reauth(admin);
  }
  if (route.signed && d.sign && typeof d.body !== 'object' && d.identity === 'integration') {
    Object.assign(headers, signing.headers(t.demoKey.signingSecret, d.method, url, d.body ?? '', d.idempotencyKey, t.nowS()));
  }
  Object.assign(headers, d.headers);
  return t.app.inject({ method: d.method as 'GET', url, headers, payload: d.body });
}

const isWrite = (method: string) => !['GET', 'HEAD', 'OPTIONS'].includes(method);

describe('hostile input on every route (API key, console operator, journey session)', () => {
  test('every answer is below 500 in the error shape; refused writes store nothing; still ready', async () => {
    const routes = routesOf(doc);
    assert.ok(routes.length >= 60, `the document lists the routes (${routes.length})`);
    const statuses = new Map<number, number>();
    let baseline = await rowCounts(t.database.db, CHANGED_BY_REFUSALS);
    for (const route of routes) {
      await fc.assert(
        fc.asyncProperty(requestsFor(route), async (drawn) => {
          const label = `${drawn.method} ${route.path}`;
          const res = await send(route, drawn);
          statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
          assertWellFormedAnswer(res, drawn.method, label, route.wallet ? 'oauth' : 'spec');
          // The counts after the last accepted request (a read may journal a consultation) are
          // what every refused write must leave as they were.
          if (res.statusCode < 400) baseline = await rowCounts(t.database.db, CHANGED_BY_REFUSALS);
          else if (isWrite(drawn.method)) {
            assert.deepEqual(await rowCounts(t.database.db, CHANGED_BY_REFUSALS), baseline, `${label}: the refused request (${res.statusCode} ${res.body.slice(0, 120)}) stored something`);
          }
        }),
        { seed: SEED, numRuns: RUNS_PER_ROUTE, endOnFailure: true },
      );
    }
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200, 'still ready');
    // The requests reached past the first checks too, not only the refusals.
    assert.ok([...statuses.keys()].some((s) => s < 300), `some answers are successes: ${JSON.stringify([...statuses])}`);
    assert.ok((statuses.get(422) ?? 0) > 0 && (statuses.get(401) ?? 0) > 0, JSON.stringify([...statuses]));
    // And the service still works for a well-behaved client.
    const created = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(created.statusCode, 201, created.body);
  });
});

describe('the refusals, one by one', () => {
  const refused = (res: LightMyRequestResponse, status: number, code: string, field?: string) => {
    assert.equal(res.statusCode, status, res.body);
    const err = errorOf(res);
    assert.equal(err.code, code);
    assert.equal(err.field, field);
    assert.doesNotMatch(res.body, /\\u0000|\u0000/, 'the forbidden text is not echoed');
  };

  test('control characters and unpaired surrogates in path parameters and query values: 422 parameter_invalid naming the parameter', async () => {
    refused(await t.request('GET', '/v1/cases/%00'), 422, 'parameter_invalid', 'case_id');
    refused(await t.request('GET', '/v1/cases/case_%01x/results'), 422, 'parameter_invalid', 'case_id');
    refused(await t.request('GET', '/v1/cases?external_ref=%00'), 422, 'parameter_invalid', 'external_ref');
    refused(await t.request('GET', '/v1/cases?q=a%0Ab'), 422, 'parameter_invalid', 'q');
    refused(await t.request('GET', '/v1/api-keys?starting_after=%00'), 422, 'parameter_invalid', 'starting_after');
    refused(await t.request('GET', '/v1/webhook-deliveries?starting_after=%7F'), 422, 'parameter_invalid', 'starting_after');
    // A parameter name is caller text too: refused, and not echoed.
    refused(await t.request('GET', '/v1/cases?a%00b=1'), 422, 'parameter_invalid', undefined);
    // Not UTF-8 (a lone surrogate written as UTF-8), or longer than any identifier: the router's refusals, in the same shape.
    refused(await t.request('GET', '/v1/cases/%ED%A0%80'), 422, 'parameter_invalid', undefined);
    refused(await t.request('GET', `/v1/cases/${'a'.repeat(101)}`), 422, 'parameter_invalid', undefined);
    // The journey's routes and unknown paths alike.
    refused(await t.app.inject({ method: 'PUT', url: '/v1/sessions/current/pieces/%00', headers: { authorization: `Session ${token}` } }), 422, 'parameter_invalid', 'kind');
    refused(await t.request('GET', '/v1/nothing?x=%00'), 422, 'parameter_invalid', 'x');
  });

  test('an unknown key still gets its 401 first', async () => {
    const res = await t.request('GET', '/v1/cases/%00', { key: null, headers: { authorization: `Bearer sk_sandbox_${'A'.repeat(43)}` } });
    refused(res, 401, 'api_key_invalid');
  });

  test('in a header value: 400 bad_request', async () => {
    refused(await t.request('GET', '/v1/cases', { headers: { 'x-service-operator': 'op_\u0001' } }), 400, 'bad_request');
    refused(await t.request('GET', '/v1/cases', { headers: { 'user-agent': 'a\u007fb' } }), 400, 'bad_request');
  });

  test('in a JSON body: 422 naming the field, and nothing is stored', async () => {
    const before = await rowCounts(t.database.db, CHANGED_BY_REFUSALS);
    const create = (raw: string) => t.request('POST', '/v1/cases', { signed: true, raw });
    refused(await create('{"flow_name":"standard","country":"FR","external_ref":"a\\u0000b"}'), 422, 'parameter_invalid', 'external_ref');
    refused(await create('{"flow_name":"standard","country":"FR","external_ref":"a\\ud800b"}'), 422, 'parameter_invalid', 'external_ref');
    refused(await create('{"flow_name":"standard","country":"FR","declared":{"surname":"\\u001b[31m"}}'), 422, 'parameter_invalid', 'declared.surname');
    refused(await create('{"flow_name":"standard","country":"FR","declared":{"a\\u0000":"x"}}'), 422, 'parameter_invalid', 'declared');
    refused(await create('{"flow_name":"standard","country":"FR","__proto__":{"x":1}}'), 422, 'parameter_unknown', '__proto__');
    refused(await create(`{"flow_name":"standard","country":"FR","declared":${'['.repeat(40)}${']'.repeat(40)}}`), 422, 'parameter_invalid', `declared${'.0'.repeat(31)}`);
    // Bytes that are not UTF-8 are not replaced by U+FFFD: the body is refused.
    const bytes = Buffer.concat([Buffer.from('{"flow_name":"standard","country":"FR","external_ref":"'), Buffer.from([0xff]), Buffer.from('"}')]);
    refused(await t.app.inject({ method: 'POST', url: '/v1/cases', headers: { authorization: `Bearer ${t.demoKey.secret}`, 'content-type': 'application/json' }, payload: bytes }), 422, 'invalid_json');
    assert.deepEqual(await rowCounts(t.database.db, CHANGED_BY_REFUSALS), before, 'nothing stored');
    // Lines and tabs in free text are not controls to refuse.
    const named = await t.request('POST', '/v1/api-keys', { body: { name: 'line one\nline two\tend' } });
    assert.equal(named.statusCode, 201, named.body);
  });
});

/** A raw HTTP/1.1 exchange on a socket: what Node's parser refuses never reaches a route. */
function rawExchange(port: number, bytes: Buffer): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.setTimeout(15_000, () => socket.destroy(new Error('no answer')));
    socket.on('data', (c) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1]);
      if (!status) return reject(new Error(`no HTTP answer: ${JSON.stringify(text.slice(0, 200))}`));
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status, headers, body: rest.join('\r\n\r\n') });
    });
    // Not end(): a half-closed socket is closed by the server before a slower answer is written.
    socket.write(bytes);
  });
}

describe('hostile bytes on the wire (real HTTP)', () => {
  test("what Node's parser refuses is answered in the error shape too, and the service stays ready", async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const port = (t.app.server.address() as AddressInfo).port;
    const line = fc.constantFrom('GET /v1/cases HTTP/1.1', 'GET /v1/cases/%00 HTTP/1.1', 'FOO /v1/cases HTTP/1.1', 'GET /v1/ca ses HTTP/1.1', 'GET /v1/cases HTTP/9.9', 'GET\u0000/ HTTP/1.1', `GET /v1/cases?q=${'a'.repeat(20_000)} HTTP/1.1`, 'POST /v1/cases HTTP/1.1');
    const headerBytes = fc.array(
      fc.oneof(
        fc.constantFrom('x-a: \u0000', 'x-a: a\rb', 'x-a b: 1', 'x-a:\u0001', `x-big: ${'b'.repeat(17_000)}`, 'content-length: -1', 'content-length: 1\r\ncontent-length: 2', 'transfer-encoding: chunked', 'x-a: \u00ff\u0085'),
        fc.constant(`authorization: Bearer ${t.demoKey.secret}`),
      ),
      { maxLength: 3 },
    );
    await fc.assert(
      fc.asyncProperty(line, headerBytes, async (requestLine, extra) => {
        const text = [requestLine, 'host: 127.0.0.1', 'connection: close', ...extra].join('\r\n') + '\r\n\r\n';
        const res = await rawExchange(port, Buffer.from(text, 'latin1'));
        const label = `${JSON.stringify(text.slice(0, 120))} -> ${res.status}`;
        assert.ok(res.status < 500, label);
        if (res.status >= 400) {
          assert.match(res.headers['content-type'] ?? '', /^application\/json/, label);
          const body = JSON.parse(res.body);
          assert.deepEqual(Object.keys(body), ['error'], label);
          assert.match(body.error.request_id, /^req_/, label);
          assert.equal(body.error.request_id, res.headers['x-request-id'], label);
          assert.equal(body.error.doc_url, `${DOCS_URL}/errors/${body.error.code}`, label);
        }
      }),
      { seed: SEED, numRuns: 40, endOnFailure: true },
    );
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`);
    assert.equal(ready.status, 200);
  });
});
