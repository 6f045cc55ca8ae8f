import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { findApiKey, findWebhookEndpoint, listClientJournal, type OperatorRow } from '@idv/db';
import type { OperatorRole } from '@idv/domain';
import { emitCaseDecided } from '../helpers/webhooks.ts';
import { addOperator, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * The client's integration settings (API keys, webhook endpoints and deliveries, embedding
 * origins) through the console: the console credential naming an administrator may do what an
 * integration key does; other roles are refused, a missing operator header too; integration keys
 * keep working unchanged. Plus the console's own rules: what an administrator may grant, no
 * console credential minted or revoked there, no HMAC but an Idempotency-Key, the operator as actor.
 */

let t: ReviewTestApp;
const ops = new Map<OperatorRole, OperatorRow>();
/** One endpoint (an environment holds at most 16) and one delivery to it, for the routes that act on them. */
let shared: { endpointId: string; deliveryId: string };
before(async () => {
  t = await startReviewApp();
  for (const role of ['administrator', 'supervisor', 'reviewer', 'support'] as const) ops.set(role, await addOperator(t, { role }));
  const endpointId = await newEndpoint();
  const { deliveryIds } = await emitCaseDecided(t, t.tenant);
  shared = { endpointId, deliveryId: deliveryIds[0] };
});
after(() => t.close());

const admin = () => ops.get('administrator')!;
const idem = () => ({ 'idempotency-key': randomUUID() });

async function newEndpoint(): Promise<string> {
  const res = await t.asOperator(admin(), 'POST', '/v1/webhook-endpoints', { body: { url: 'http://127.0.0.1:9/hook', events: ['case.decided'] }, headers: idem() });
  assert.equal(res.statusCode, 201, res.body);
  return res.json().id;
}


interface Route {
  name: string;
  ok: number;
  /** An integration key's request differs only by being signed where the spec signs. */
  signed?: boolean;
  prepare(): Promise<{ method: string; url: string; body?: unknown }>;
}

const ROUTES: Route[] = [
  { name: 'GET /v1/api-keys', ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/api-keys' }) },
  { name: 'POST /v1/api-keys', ok: 201, prepare: async () => ({ method: 'POST', url: '/v1/api-keys', body: { name: 'ci' } }) },
  {
    name: 'DELETE /v1/api-keys/{id}',
    ok: 204,
    prepare: async () => {
      const made = await t.request('POST', '/v1/api-keys', { body: { name: 'to revoke' } });
      return { method: 'DELETE', url: `/v1/api-keys/${made.json().id}` };
    },
  },
  { name: 'GET /v1/webhook-events', ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/webhook-events' }) },
  { name: 'GET /v1/webhook-endpoints', ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/webhook-endpoints' }) },
  {
    name: 'POST /v1/webhook-endpoints',
    ok: 201,
    signed: true,
    prepare: async () => ({ method: 'POST', url: '/v1/webhook-endpoints', body: { url: 'https://hooks.example.com/x', events: ['case.decided'] } }),
  },
  { name: 'POST /v1/webhook-endpoints/{id}/test', ok: 202, prepare: async () => ({ method: 'POST', url: `/v1/webhook-endpoints/${shared.endpointId}/test` }) },
  { name: 'POST /v1/webhook-endpoints/{id}/resume', ok: 202, prepare: async () => ({ method: 'POST', url: `/v1/webhook-endpoints/${shared.endpointId}/resume` }) },
  {
    name: 'PATCH /v1/webhook-endpoints/{id}',
    ok: 200,
    signed: true,
    prepare: async () => ({ method: 'PATCH', url: `/v1/webhook-endpoints/${shared.endpointId}`, body: { description: `changed ${randomUUID()}` } }),
  },
  // Disable then enable the shared endpoint: it is active again for the routes below.
  { name: 'POST /v1/webhook-endpoints/{id}/disable', ok: 200, signed: true, prepare: async () => ({ method: 'POST', url: `/v1/webhook-endpoints/${shared.endpointId}/disable` }) },
  { name: 'POST /v1/webhook-endpoints/{id}/enable', ok: 200, signed: true, prepare: async () => ({ method: 'POST', url: `/v1/webhook-endpoints/${shared.endpointId}/enable` }) },
  {
    name: 'POST /v1/webhook-endpoints/{id}/rotate-secret',
    ok: 200,
    signed: true,
    prepare: async () => ({ method: 'POST', url: `/v1/webhook-endpoints/${shared.endpointId}/rotate-secret`, body: { overlap_seconds: 0 } }),
  },
  { name: 'DELETE /v1/webhook-endpoints/{id}', ok: 200, signed: true, prepare: async () => ({ method: 'DELETE', url: `/v1/webhook-endpoints/${await newEndpoint()}` }) },
  { name: 'GET /v1/webhook-endpoints/{id}/deliveries', ok: 200, prepare: async () => ({ method: 'GET', url: `/v1/webhook-endpoints/${shared.endpointId}/deliveries` }) },
  { name: 'GET /v1/webhook-deliveries', ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/webhook-deliveries?days=1&status=pending' }) },
  { name: 'GET /v1/webhook-deliveries/{id}', ok: 200, prepare: async () => ({ method: 'GET', url: `/v1/webhook-deliveries/${shared.deliveryId}` }) },
  { name: 'GET /v1/journey-embedding', ok: 200, prepare: async () => ({ method: 'GET', url: '/v1/journey-embedding' }) },
  { name: 'POST /v1/journey-embedding', ok: 200, signed: true, prepare: async () => ({ method: 'POST', url: '/v1/journey-embedding', body: { origins: ['https://shop.example.com'] } }) },
];

describe('who may call the settings routes', () => {
  for (const route of ROUTES) {
    test(`${route.name}: administrator yes; supervisor, reviewer, support 403; no operator 401; integration key yes`, async () => {
      for (const role of ['administrator', 'supervisor', 'reviewer', 'support'] as const) {
        const target = await route.prepare();
        const res = await t.asOperator(ops.get(role)!, target.method, target.url, { body: target.body, headers: idem() });
        if (role === 'administrator') {
          assert.equal(res.statusCode, route.ok, `${route.name} as administrator: ${res.body}`);
        } else {
          assert.equal(res.statusCode, 403, `${route.name} as ${role}: ${res.body}`);
          assert.equal(res.json().error.code, 'operator_role_insufficient');
        }
      }
      const target = await route.prepare();
      const bare = await t.request(target.method, target.url, { key: t.consoleKey, body: target.body, headers: idem() });
      assert.equal(bare.statusCode, 401, bare.body);
      assert.equal(bare.json().error.code, 'operator_required');
      const keyed = await t.request(target.method, target.url, { body: target.body, signed: route.signed });
      assert.equal(keyed.statusCode, route.ok, `${route.name} with an integration key: ${keyed.body}`);
    });
  }
});

describe('the console rules', () => {
  test('an administrator grants either permission; the key made is an integration key, created by the operator, and works', async () => {
    const res = await t.asOperator(admin(), 'POST', '/v1/api-keys', { body: { name: 'back office', permissions: ['personal_data', 'decisions'] } });
    assert.equal(res.statusCode, 201, res.body);
    const made = res.json();
    assert.equal(made.kind, 'integration');
    assert.deepEqual(made.permissions, ['decisions', 'personal_data']);
    assert.equal((await findApiKey(t.database.db, t.tenant, made.id))!.createdBy, `op:${admin().id}`);
    const used = await t.request('GET', '/v1/api-keys', { key: { id: made.id, secret: made.secret, signingSecret: made.signing_secret } });
    assert.equal(used.statusCode, 200);
    // A kind in the body is refused like any unknown field: the console never mints a console credential.
    const kind = await t.asOperator(admin(), 'POST', '/v1/api-keys', { body: { kind: 'console' } });
    assert.equal(kind.statusCode, 422, kind.body);
    assert.equal(kind.json().error.code, 'parameter_unknown');
  });

  test('a key still grants only what it holds', async () => {
    const weak = (await t.request('POST', '/v1/api-keys', { body: {} })).json();
    const res = await t.request('POST', '/v1/api-keys', { key: { id: weak.id, secret: weak.secret, signingSecret: weak.signing_secret }, body: { permissions: ['decisions'] } });
    assert.equal(res.statusCode, 403);
    assert.equal(res.json().error.code, 'permission_not_held');
  });

  test('the console credential is not revoked through the console; an integration key is', async () => {
    const refused = await t.asOperator(admin(), 'DELETE', `/v1/api-keys/${t.consoleKey.id}`);
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(refused.json().error.code, 'console_key_protected');
    assert.equal((await findApiKey(t.database.db, t.tenant, t.consoleKey.id))!.revokedAt, null);
    const made = (await t.request('POST', '/v1/api-keys', { body: {} })).json();
    assert.equal((await t.asOperator(admin(), 'DELETE', `/v1/api-keys/${made.id}`)).statusCode, 204);
    const after = await t.request('GET', '/v1/api-keys', { key: { id: made.id, secret: made.secret, signingSecret: made.signing_secret } });
    assert.equal(after.json().error.code, 'api_key_revoked');
  });

  test('signed creations through the console: no HMAC, an Idempotency-Key required, replayed for the same operator only', async () => {
    const body = { url: 'https://hooks.example.com/console', events: ['case.decided', 'webhook.test'] };
    const missing = await t.asOperator(admin(), 'POST', '/v1/webhook-endpoints', { body });
    assert.equal(missing.statusCode, 422, missing.body);
    assert.equal(missing.json().error.code, 'idempotency_key_missing');
    const key = randomUUID();
    const first = await t.asOperator(admin(), 'POST', '/v1/webhook-endpoints', { body, headers: { 'idempotency-key': key } });
    assert.equal(first.statusCode, 201, first.body);
    const again = await t.asOperator(admin(), 'POST', '/v1/webhook-endpoints', { body, headers: { 'idempotency-key': key } });
    assert.equal(again.json().id, first.json().id, 'a retried click is one endpoint');
    const endpoint = await findWebhookEndpoint(t.database.db, t.tenant, first.json().id);
    assert.equal(endpoint!.createdBy, `op:${admin().id}`);
    const other = await addOperator(t, { role: 'administrator' });
    const stolen = await t.asOperator(other, 'POST', '/v1/webhook-endpoints', { body, headers: { 'idempotency-key': key } });
    assert.equal(stolen.statusCode, 422, stolen.body);
    assert.equal(stolen.json().error.code, 'idempotency_key_reused');
  });

  test('embedding origins: the operator is journaled; an invalid origin gets the field error the API gives', async () => {
    t.clock.advance(1000); // journal ids are ordered by time: this entry is the latest
    const saved = await t.asOperator(admin(), 'POST', '/v1/journey-embedding', { body: { origins: ['https://a.example.com', 'http://localhost:3000'] }, headers: idem() });
    assert.equal(saved.statusCode, 200, saved.body);
    const journal = await listClientJournal(t.database.db, t.tenant);
    assert.equal(journal.at(-1)!.actor, `op:${admin().id}`);
    const bad = await t.asOperator(admin(), 'POST', '/v1/journey-embedding', { body: { origins: ['https://a.example.com/path'] }, headers: idem() });
    assert.equal(bad.statusCode, 422, bad.body);
    assert.equal(bad.json().error.code, 'embedding_origin_invalid');
    assert.equal(bad.json().error.field, 'origins.0');
  });

  test('the endpoint list gives each endpoint its deliveries of the last 24 hours by status', async () => {
    const id = await newEndpoint();
    await emitCaseDecided(t, t.tenant);
    await emitCaseDecided(t, t.tenant);
    const res = await t.asOperator(admin(), 'GET', '/v1/webhook-endpoints?limit=100');
    assert.equal(res.statusCode, 200, res.body);
    const listed = res.json().data.find((e: { id: string }) => e.id === id);
    assert.deepEqual(listed.recent_deliveries, { window_hours: 24, pending: 2, retrying: 0, succeeded: 0, failed: 0 });
    t.clock.advance(25 * 3_600_000);
    const later = (await t.asOperator(admin(), 'GET', '/v1/webhook-endpoints?limit=100')).json().data.find((e: { id: string }) => e.id === id);
    assert.deepEqual(later.recent_deliveries, { window_hours: 24, pending: 0, retrying: 0, succeeded: 0, failed: 0 });
  });
});
