import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import { startTestApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const openCase = async () =>
  (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } })).json().id as string;

test('personal data is sealed under the case keys, one per class, stored wrapped only', async () => {
  const caseId = await openCase();
  const { vault } = t.ctx;
  const now = t.clock.now();
  const sealed = await t.database.db.transaction((tx) => vault.sealJson(tx, caseId, 'data', 'entered', { surname: 'Łukasiewicz' }, now));
  const portrait = await t.database.db.transaction((tx) => vault.sealJson(tx, caseId, 'biometric', 'template', [0.25, -0.5], now));
  assert.equal(Buffer.from(sealed, 'base64').includes('Łukasiewicz'), false);
  assert.deepEqual(await vault.openJson(t.database.db, caseId, 'data', 'entered', sealed), { surname: 'Łukasiewicz' });
  assert.deepEqual(await vault.openJson(t.database.db, caseId, 'biometric', 'template', portrait), [0.25, -0.5]);
  await assert.rejects(vault.openJson(t.database.db, caseId, 'data', 'template', portrait), 'the data key does not open biometric values');
  const rows = await queryRows<{ key_class: string; wrapped: string }>(t.database.db, sql`SELECT key_class, wrapped FROM case_keys WHERE case_id = ${caseId} ORDER BY key_class`);
  assert.deepEqual(rows.map((r) => r.key_class), ['biometric', 'data']);
  assert.ok(rows.every((r) => r.wrapped.startsWith('v1.')), 'keys are stored wrapped by the master key');
});

test('another case key does not open a case value, and a second writer keeps the first key', async () => {
  const a = await openCase();
  const b = await openCase();
  const { vault } = t.ctx;
  const now = t.clock.now();
  const sealed = await vault.sealJson(t.database.db, a, 'data', 'declared', { x: 1 }, now);
  await vault.key(t.database.db, b, 'data', now);
  await assert.rejects(vault.openJson(t.database.db, b, 'data', 'declared', sealed));
  await vault.key(t.database.db, a, 'data', now);
  assert.deepEqual(await vault.openJson(t.database.db, a, 'data', 'declared', sealed), { x: 1 });
});

test('erasure destroys the keys: nothing opens any more and no new data is accepted', async () => {
  const caseId = await openCase();
  const { vault } = t.ctx;
  const now = t.clock.now();
  const sealed = await vault.sealJson(t.database.db, caseId, 'data', 'answers', { q: 'a' }, now);
  await vault.sealJson(t.database.db, caseId, 'biometric', 'selfie', 'x', now);
  assert.equal(await vault.destroy(t.database.db, caseId, now), 2);
  assert.equal(await vault.destroy(t.database.db, caseId, now), 0, 'a replay destroys nothing more');
  assert.equal(await vault.openJson(t.database.db, caseId, 'data', 'answers', sealed), null);
  await assert.rejects(vault.sealJson(t.database.db, caseId, 'data', 'answers', { q: 'b' }, now), /erased/);
});
