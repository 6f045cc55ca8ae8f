import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { schema } from '@idv/db';
import { errorOf, startTestApp, type Credentials, type TestApp } from '../helpers/app.ts';

/**
 * POST /v1/cases and the key: a key this instance has used before is read again on each request,
 * so a revoked key is refused at once with its 401 and reserves nothing, whatever else is wrong
 * with the request, and a valid key creates its case.
 */

let t: TestApp;

before(async () => {
  t = await startTestApp();
});

after(async () => {
  await t.close();
});

const BODY = { flow_name: 'standard', country: 'FR' };

async function newKey(): Promise<Credentials> {
  const res = await t.request('POST', '/v1/api-keys', { body: { name: 'reservation read' } });
  assert.equal(res.statusCode, 201, res.body);
  const k = res.json();
  return { id: k.id, secret: k.secret, signingSecret: k.signing_secret };
}

async function reservationsOf(key: Credentials): Promise<number> {
  const rows = await t.database.db.select().from(schema.idempotencyKeys).where(eq(schema.idempotencyKeys.apiKeyId, key.id));
  return rows.length;
}

/** A key that created a case (so this instance knows it), then was revoked. */
async function knownRevokedKey(): Promise<Credentials> {
  const key = await newKey();
  const first = await t.request('POST', '/v1/cases', { key, signed: true, body: { ...BODY, external_ref: 'known' } });
  assert.equal(first.statusCode, 201, first.body);
  assert.equal((await t.request('DELETE', `/v1/api-keys/${key.id}`)).statusCode, 204);
  return key;
}

describe('the key of a case creation', () => {
  test('a known valid key creates its case, and a replay is answered as before', async () => {
    const key = await newKey();
    assert.equal((await t.request('GET', '/v1/cases', { key })).statusCode, 200); // now known
    const idempotencyKey = randomUUID();
    const created = await t.request('POST', '/v1/cases', { key, signed: true, idempotencyKey, body: { ...BODY, external_ref: 'a' } });
    assert.equal(created.statusCode, 201, created.body);
    const replay = await t.request('POST', '/v1/cases', { key, signed: true, idempotencyKey, body: { ...BODY, external_ref: 'a' } });
    assert.equal(replay.statusCode, 201);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, created.body);
    const reused = await t.request('POST', '/v1/cases', { key, signed: true, idempotencyKey, body: { ...BODY, external_ref: 'b' } });
    assert.equal(reused.statusCode, 422);
    assert.equal(errorOf(reused).code, 'idempotency_key_reused');
  });

  test('an unknown flow is refused', async () => {
    const res = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'nope', country: 'FR' } });
    assert.equal(res.statusCode, 422);
    assert.equal(errorOf(res).field, 'flow_name');
  });

  test('a known key, revoked: 401 api_key_revoked and nothing reserved, whatever else is wrong', async () => {
    const key = await knownRevokedKey();
    const reserved = await reservationsOf(key);
    const cases: [string, Parameters<TestApp['request']>[2]][] = [
      ['valid request', { key, signed: true, body: BODY }],
      ['unknown field', { key, signed: true, body: { ...BODY, colour: 'blue' } }],
      ['malformed JSON', { key, signed: true, raw: '{"flow_name":' }],
      ['bad signature', { key, signed: true, body: BODY, headers: { 'x-service-signature': `v2=${'0'.repeat(64)}` } }],
      ['no signature', { key, body: BODY }],
    ];
    for (const [label, opts] of cases) {
      const res = await t.request('POST', '/v1/cases', opts);
      assert.equal(res.statusCode, 401, `${label}: ${res.body}`);
      assert.equal(errorOf(res).code, 'api_key_revoked', label);
    }
    assert.equal(await reservationsOf(key), reserved, 'a revoked key reserved an Idempotency-Key');
  });

  test('a known valid key still gets the refusal its request deserves', async () => {
    const key = await newKey();
    assert.equal((await t.request('GET', '/v1/cases', { key })).statusCode, 200);
    const invalid = await t.request('POST', '/v1/cases', { key, signed: true, body: { ...BODY, colour: 'blue' } });
    assert.equal(invalid.statusCode, 422);
    assert.equal(errorOf(invalid).code, 'parameter_unknown');
    const badSignature = await t.request('POST', '/v1/cases', { key, signed: true, body: BODY, headers: { 'x-service-signature': `v2=${'0'.repeat(64)}` } });
    assert.equal(badSignature.statusCode, 401);
    assert.equal(errorOf(badSignature).code, 'signature_invalid');
  });
});
