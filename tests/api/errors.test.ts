import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'drizzle-orm';
import { build } from '@idv/api';
import { openDatabase, type Database } from '@idv/db';
import { ERROR_CATALOGUE, type ErrorCode } from '@idv/domain';
import { bootstrapDemoClient } from '../../apps/api/src/bootstrap.ts';
import { compileEveryValidator } from '../../apps/api/src/http/lazy-validators.ts';
import { compileEverySerializer } from '../../apps/api/src/http/shared-serializers.ts';
import { DOCS_URL, errorOf, startTestApp, type TestApp } from '../helpers/app.ts';
import { TEST_DB, createPostgresDatabase } from '../helpers/database.ts';
import { issueKey } from '../helpers/tenants.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

/** Asserts the spec's error shape, and that status and type are those of the catalogue for the code. */
function assertError(res: LightMyRequestResponse, status: number, code: ErrorCode) {
  assert.equal(res.statusCode, status, res.body);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  const err = errorOf(res);
  assert.equal(err.code, code);
  assert.equal(err.type, ERROR_CATALOGUE[code].type);
  assert.equal(ERROR_CATALOGUE[code].status, status);
  assert.equal(typeof err.message, 'string');
  assert.ok(err.message.length > 0);
  assert.equal(err.doc_url, `${DOCS_URL}/errors/${code}`);
  assert.match(err.request_id, /^req_[0-9a-z]{26}$/);
  return err;
}

const noStackNoSql = (body: string) => {
  for (const leak of [/\n\s+at /, /\.ts:\d+/, /select /i, /insert /i, /relation/i, /api_keys/, /pglite|pg_|postgres/i, /stack/i]) {
    assert.doesNotMatch(body, leak, `the body leaks ${leak}: ${body}`);
  }
};

describe('routing errors', () => {
  test('an unknown path -> 404 route_not_found, whatever the method and even without a key', async () => {
    for (const [method, path] of [['GET', '/nope'], ['GET', '/v1'], ['GET', '/v1/nope'], ['POST', '/v1/unknown'], ['GET', '/v1/cases/x/y/z'], ['DELETE', '/v2/cases']]) {
      const res = await t.request(method, path, { key: null });
      const err = assertError(res, 404, 'route_not_found');
      assert.ok(err.message.includes(path.split('?')[0]), err.message);
    }
  });

  test('a known path with another method -> 405 method_not_allowed with an Allow header', async () => {
    const cases: [string, string, string[]][] = [
      ['PUT', '/v1/cases', ['GET', 'POST']],
      ['DELETE', '/v1/cases', ['GET', 'POST']],
      ['PATCH', '/v1/cases/case_01m7ym09t80f4fggxqxy1yr50c', ['GET']],
      ['POST', '/v1/cases/case_x/results', ['GET']],
      ['GET', '/v1/sessions', ['POST']],
      ['DELETE', '/v1/sessions/ses_x', ['GET']],
      ['POST', '/v1/api-keys/key_x', ['DELETE']],
      ['PUT', '/v1/api-keys', ['GET', 'POST']],
      ['POST', '/v1/api-usage', ['GET']],
    ];
    for (const [method, path, allowed] of cases) {
      const res = await t.request(method, path, { key: null });
      assertError(res, 405, 'method_not_allowed');
      const allow = String(res.headers.allow).split(',').map((m) => m.trim());
      for (const m of allowed) assert.ok(allow.includes(m), `${method} ${path}: Allow ${res.headers.allow} lacks ${m}`);
      assert.equal(allow.includes(method), false, `${method} ${path}: Allow lists the refused method`);
    }
  });
});

describe('the error shape everywhere', () => {
  test('every kind of error has exactly the shape, doc_url DOCS_URL/errors/<code>, and request_id = X-Request-Id', async () => {
    const bare = await issueKey(t, { clientId: t.demo.client_id });
    const caseId = (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } })).json().id;
    const start = t.clock.now();
    const battery: [string, () => Promise<LightMyRequestResponse>, number, ErrorCode][] = [
      ['no key', () => t.request('GET', '/v1/cases', { key: null }), 401, 'api_key_missing'],
      ['bad key', () => t.request('GET', '/v1/cases', { key: null, headers: { authorization: 'Bearer x' } }), 401, 'api_key_invalid'],
      ['bad signature', () => t.request('POST', '/v1/cases', { body: { flow_name: 'standard', country: 'FR' }, signed: true, headers: { 'x-service-signature': `v2=${'a'.repeat(64)}` } }), 401, 'signature_invalid'],
      ['permission not held', () => t.request('POST', '/v1/api-keys', { key: bare, body: { permissions: ['decisions'] } }), 403, 'permission_not_held'],
      ['unknown route', () => t.request('GET', '/v1/nothing-here'), 404, 'route_not_found'],
      ['unknown case', () => t.request('GET', '/v1/cases/case_01m7ym09t80f4fggxqxy1yr50c'), 404, 'resource_not_found'],
      ['wrong method', () => t.request('PUT', '/v1/api-usage'), 405, 'method_not_allowed'],
      ['payload too large', () => t.request('POST', '/v1/api-keys', { body: { name: 'x'.repeat(70_000) } }), 413, 'payload_too_large'],
      ['unsupported media type', () => t.request('POST', '/v1/api-keys', { raw: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } }), 415, 'unsupported_media_type'],
      ['malformed JSON', () => t.request('POST', '/v1/api-keys', { raw: '{"name": "x",}' }), 422, 'invalid_json'],
      ['invalid parameter', () => t.request('GET', '/v1/api-usage?days=0'), 422, 'parameter_invalid'],
      ['unknown parameter', () => t.request('GET', '/v1/api-keys?offset=3'), 422, 'parameter_unknown'],
      ['missing parameter', () => t.request('POST', '/v1/sessions', { signed: true, body: {} }), 422, 'parameter_missing'],
      ['malformed Idempotency-Key', () => t.request('POST', '/v1/cases', { body: { flow_name: 'standard', country: 'FR' }, signed: true, idempotencyKey: 'short' }), 422, 'idempotency_key_invalid'],
      ['unassigned country', () => t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'ZZ' } }), 422, 'invalid_country'],
      ['expired case', async () => {
        t.clock.advance(8 * 24 * 3_600_000);
        try {
          return await t.request('POST', '/v1/sessions', { signed: true, body: { case_id: caseId } });
        } finally {
          t.clock.set(start);
        }
      }, 409, 'case_not_awaiting_applicant'],
    ];
    const ids = new Set<string>();
    for (const [label, run, status, code] of battery) {
      const res = await run();
      try {
        const err = assertError(res, status, code);
        ids.add(err.request_id);
      } catch (e) {
        throw new Error(`${label}: ${(e as Error).message}`);
      }
    }
    assert.equal(ids.size, battery.length, 'one request id per request');
  });

  test('successful responses carry X-Request-Id too', async () => {
    const a = await t.request('GET', '/v1/cases');
    const b = await t.request('GET', '/v1/cases');
    assert.match(String(a.headers['x-request-id']), /^req_[0-9a-z]{26}$/);
    assert.notEqual(a.headers['x-request-id'], b.headers['x-request-id']);
    // The caller cannot choose the request id.
    const chosen = await t.request('GET', '/v1/nope', { headers: { 'x-request-id': 'req_mine' } });
    assert.notEqual(errorOf(chosen).request_id, 'req_mine');
  });
});

describe('request validation', () => {
  test("every route's schemas compile (validators are compiled at a route's first request, so a bad schema is caught here)", () => {
    // At least a body, a query or a parameters validator for most of the ~90 operations.
    assert.ok(compileEveryValidator(t.app) > 80);
    assert.equal(compileEveryValidator(t.app), 0, 'each validator is compiled once');
  });

  test("every response schema compiles (serializers are compiled at their first response, so a bad schema is caught here)", () => {
    // One per distinct schema (equal schemas share one): 265 when written, the error shape and the
    // operations' own.
    assert.ok(compileEverySerializer(t.app) > 200);
    assert.equal(compileEverySerializer(t.app), 0, 'each serializer is compiled once');
  });
});

describe('server failures', () => {
  test('a database failure gives 500 internal_error in the same shape, without stack or SQL', async () => {
    const broken = await startTestApp();
    try {
      await broken.database.db.execute(sql`ALTER TABLE cases RENAME TO cases_elsewhere`);
      // A read: 500 in the shape.
      const read = await broken.request('GET', '/v1/cases');
      const err = assertError(read, 500, 'internal_error');
      assert.equal(err.message, ERROR_CATALOGUE.internal_error.title);
      assert.equal(err.field, undefined);
      noStackNoSql(read.body);

      // A signed creation: 500, and its Idempotency-Key is released so a retry can succeed.
      const idem = randomUUID();
      const body = { flow_name: 'standard', country: 'FR', external_ref: 'after-500' };
      const failed = await broken.request('POST', '/v1/cases', { signed: true, body, idempotencyKey: idem });
      assertError(failed, 500, 'internal_error');
      noStackNoSql(failed.body);
      await broken.database.db.execute(sql`ALTER TABLE cases_elsewhere RENAME TO cases`);
      const retry = await broken.request('POST', '/v1/cases', { signed: true, body, idempotencyKey: idem });
      assert.equal(retry.statusCode, 201, retry.body);
      assert.equal(retry.headers['idempotent-replayed'], undefined, 'the 500 was not stored for replay');
      const listed = (await broken.request('GET', '/v1/cases?external_ref=after-500')).json();
      assert.deepEqual(listed.data.map((c: { id: string }) => c.id), [retry.json().id]);
    } finally {
      await broken.close();
    }
  });

  test('a closed database gives 500 internal_error on every route, in the same shape', async () => {
    let database: Database;
    let dropDb = async () => {};
    if (TEST_DB === 'postgres') {
      const created = await createPostgresDatabase();
      dropDb = created.dropDb;
      database = await openDatabase({ kind: 'postgres', url: created.url, poolSize: 2 });
    } else {
      database = await openDatabase({ kind: 'pglite', memory: true });
    }
    let app: Awaited<ReturnType<typeof build>>['app'] | undefined;
    try {
      const demo = (await bootstrapDemoClient(database.db, t.ctx.keyring, t.clock.now()))!;
      app = (await build({ config: t.config, db: database.db, keyring: t.ctx.keyring, now: t.clock.now, logger: false })).app;
      await database.close();
      for (const [method, url] of [['GET', '/v1/cases'], ['GET', '/v1/api-keys'], ['POST', '/v1/api-keys'], ['GET', '/v1/api-usage']]) {
        const res = await app.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${demo.api_key.secret}` } });
        assertError(res, 500, 'internal_error');
        noStackNoSql(res.body);
      }
      // Liveness does not depend on the database.
      assert.equal((await app.inject({ method: 'GET', url: '/livez' })).statusCode, 200);
    } finally {
      if (app) await app.close();
      else await database.close();
      await dropDb();
    }
  });
});

describe('health', () => {
  test('/livez 200; /readyz 200 when ready, 503 when the ready function says not (or fails)', async () => {
    const live = await t.request('GET', '/livez', { key: null });
    assert.equal(live.statusCode, 200);
    assert.equal(live.json().status, 'ok');
    const ready = await t.request('GET', '/readyz', { key: null });
    assert.equal(ready.statusCode, 200);

    let readyNow = false;
    const { app } = await build({ config: t.config, db: t.database.db, keyring: t.ctx.keyring, logger: false, ready: async () => readyNow });
    try {
      const notReady = await app.inject({ method: 'GET', url: '/readyz' });
      assert.equal(notReady.statusCode, 503);
      assert.equal(notReady.json().status, 'unavailable');
      assert.equal((await app.inject({ method: 'GET', url: '/livez' })).statusCode, 200, 'alive while not ready');
      readyNow = true;
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    } finally {
      await app.close();
    }
    const { app: failing } = await build({
      config: t.config,
      db: t.database.db,
      keyring: t.ctx.keyring,
      logger: false,
      ready: async () => {
        throw new Error('database down');
      },
    });
    try {
      const res = await failing.inject({ method: 'GET', url: '/readyz' });
      assert.equal(res.statusCode, 503);
      assert.equal(res.body.includes('database down'), false);
    } finally {
      await failing.close();
    }
  });
});

/** The routes the app serves, from its router: "METHOD /path/{param}" (HEAD and hidden routes left out). */
function servedRoutes(): string[] {
  const tree = t.app.printRoutes({ commonPrefix: false });
  const stack: string[] = [];
  const out: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(\S+)(?: \(([^)]*)\))?/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    const path = (stack[depth - 1] ?? '') + m[2];
    stack.push(path);
    for (const method of (m[3] ?? '').split(',').map((s) => s.trim()).filter(Boolean)) {
      if (method !== 'HEAD') out.push(`${method} ${path.replace(/:(\w+)/g, '{$1}')}`);
    }
  }
  return out.filter((r) => r.split(' ')[1].startsWith('/v1/') && r !== 'GET /v1/openapi.json');
}

describe('GET /v1/openapi.json', () => {
  test('OpenAPI 3.1.0, info.version 0.1.0, every /v1 route with request and response schemas and error responses', async () => {
    const res = await t.request('GET', '/v1/openapi.json', { key: null });
    assert.equal(res.statusCode, 200);
    const doc = res.json();
    assert.equal(doc.openapi, '3.1.0');
    assert.equal(doc.info.version, '0.1.0');
    assert.ok(doc.components.schemas.Error, 'the shared Error schema');

    const documented: string[] = [];
    for (const [path, item] of Object.entries<Record<string, unknown>>(doc.paths)) {
      assert.ok(path.startsWith('/v1/'), `${path} is under /v1`);
      for (const method of Object.keys(item)) if (['get', 'post', 'put', 'patch', 'delete'].includes(method)) documented.push(`${method.toUpperCase()} ${path}`);
    }
    const served = servedRoutes();
    const core = [
      'POST /v1/api-keys',
      'GET /v1/api-keys',
      'DELETE /v1/api-keys/{key_id}',
      'POST /v1/cases',
      'GET /v1/cases',
      'GET /v1/cases/{case_id}',
      'GET /v1/cases/{case_id}/results',
      'POST /v1/sessions',
      'GET /v1/sessions/{session_id}',
      'GET /v1/api-usage',
    ];
    for (const r of core) assert.ok(served.includes(r), `the app serves ${r} (router parsed)`);
    assert.deepEqual([...documented].sort(), [...served].sort(), 'the document lists exactly the routes served');

    const resolve = (schema: { $ref?: string }) => {
      if (!schema.$ref) return schema;
      const name = schema.$ref.replace('#/components/schemas/', '');
      assert.ok(doc.components.schemas[name], `$ref ${schema.$ref} resolves`);
      return doc.components.schemas[name];
    };
    for (const route of documented) {
      const [method, path] = route.split(' ');
      const op = doc.paths[path][method.toLowerCase()];
      assert.ok(op.operationId, `${route} has an operationId`);
      const codes = Object.keys(op.responses);
      const success = codes.filter((c) => c.startsWith('2'));
      assert.equal(success.length, 1, `${route} has one success response`);
      if (success[0] !== '204') {
        const content = op.responses[success[0]].content ?? {};
        // JSON, or for image downloads the binary image types they may answer with, or CSV text (usage
        // export), or the signed request object a wallet fetches (OpenID4VP's own media type).
        const schema = content['application/json']?.schema ?? content['image/jpeg']?.schema ?? content['text/csv']?.schema ?? content['application/oauth-authz-req+jwt']?.schema;
        assert.ok(schema, `${route} ${success[0]} has a response schema`);
        if (content['image/jpeg']) assert.deepEqual(schema, { type: 'string', format: 'binary' }, `${route} answers image bytes`);
        if (content['text/csv']) assert.deepEqual(schema, { type: 'string' }, `${route} answers CSV text`);
        resolve(schema);
      }
      const errors = codes.filter((c) => /^[45]/.test(c));
      const wallet = op.tags?.includes('wallet-protocol');
      // Called by a wallet, with no credential: its refusals are OpenID4VP's (RFC 6749 §5.2), what a wallet reads.
      if (wallet) for (const c of errors) assert.deepEqual(Object.keys(resolve(op.responses[c].content?.['application/json']?.schema ?? {}).properties ?? {}).sort(), ['error', 'error_description'], `${route} ${c} is an OpenID4VP error`);
      else assert.ok(errors.includes('401') && errors.includes('500'), `${route} documents 401 and 500`);
      for (const c of wallet ? [] : errors) {
        const schema = op.responses[c].content?.['application/json']?.schema;
        assert.equal(schema?.$ref, '#/components/schemas/Error', `${route} ${c} uses the Error schema`);
        for (const code of /Error codes: (.*)$/.exec(op.responses[c].description ?? '')?.[1].split(', ') ?? []) {
          assert.ok(Object.hasOwn(ERROR_CATALOGUE, code), `${route} ${c} names ${code}, which is in the catalogue`);
          assert.equal(String(ERROR_CATALOGUE[code as ErrorCode].status), c, `${code} is documented under its status`);
        }
      }
      for (const p of /\{(\w+)\}/g[Symbol.matchAll](path)) {
        assert.ok(op.parameters?.some((x: { in: string; name: string }) => x.in === 'path' && x.name === p[1]), `${route} declares path parameter ${p[1]}`);
      }
    }
    // Request schemas of the core routes.
    const body = (route: string) => {
      const [method, path] = route.split(' ');
      return resolve(doc.paths[path][method.toLowerCase()].requestBody?.content?.['application/json']?.schema ?? {});
    };
    const query = (route: string) => {
      const [method, path] = route.split(' ');
      return (doc.paths[path][method.toLowerCase()].parameters ?? []).filter((p: { in: string }) => p.in === 'query').map((p: { name: string }) => p.name);
    };
    assert.deepEqual(body('POST /v1/cases').required?.sort(), ['country', 'flow_name']);
    assert.equal(body('POST /v1/cases').additionalProperties, false);
    assert.equal(body('POST /v1/cases').properties.external_ref.maxLength, 128);
    assert.deepEqual(body('POST /v1/sessions').required, ['case_id']);
    assert.ok(body('POST /v1/api-keys').properties.permissions);
    for (const signed of ['POST /v1/cases', 'POST /v1/sessions']) {
      const [, path] = signed.split(' ');
      const headers = doc.paths[path].post.parameters.filter((p: { in: string }) => p.in === 'header').map((p: { name: string }) => p.name.toLowerCase());
      assert.deepEqual(headers.sort(), ['idempotency-key', 'x-service-signature', 'x-service-timestamp']);
    }
    assert.deepEqual(query('GET /v1/api-keys').sort(), ['limit', 'starting_after']);
    assert.deepEqual(query('GET /v1/api-usage'), ['days']);
    for (const q of ['external_ref', 'q', 'status', 'country', 'created_after', 'created_before', 'limit', 'cursor']) {
      assert.ok(query('GET /v1/cases').includes(q), `GET /v1/cases documents ${q}`);
    }
  });
});
