import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * GET /v1/cases with the console credential: an operator's case search, limited to their
 * clearance (country of the case, sensitivity of every review it had), with the operator checks
 * of every operator-bound route; with an integration key, unchanged.
 */
let t: ReviewTestApp;
const ids: Record<string, string> = {};

before(async () => {
  t = await startReviewApp();
  ids.frStandard = (await caseInReview(t, { country: 'FR', sensitivity: 'standard' })).caseId;
  ids.frRestricted = (await caseInReview(t, { country: 'FR', sensitivity: 'restricted' })).caseId;
  ids.deStandard = (await caseInReview(t, { country: 'DE', sensitivity: 'standard' })).caseId;
  const created = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
  ids.frNoReview = created.json().id;
});
after(() => t.close());

const found = (res: { json(): { data: { id: string }[] } }) => new Set(res.json().data.map((c) => c.id));

test('a reviewer cleared for FR, standard, finds FR cases without a review above standard, nothing of DE', async () => {
  const op = await addOperator(t, { role: 'reviewer', countries: ['FR'], sensitivity: 'standard' });
  const res = await t.asOperator(op, 'GET', '/v1/cases?limit=100');
  assert.equal(res.statusCode, 200, res.body);
  assert.deepEqual(found(res), new Set([ids.frStandard, ids.frNoReview]));
  const de = await t.asOperator(op, 'GET', '/v1/cases?country=DE');
  assert.deepEqual(de.json().data, []);
});

test('a supervisor cleared for every country and restricted finds every case; filters still apply', async () => {
  const op = await addOperator(t, { role: 'supervisor', countries: ['*'], sensitivity: 'restricted' });
  const res = await t.asOperator(op, 'GET', '/v1/cases?limit=100');
  assert.deepEqual(found(res), new Set(Object.values(ids)));
  const status = await t.asOperator(op, 'GET', '/v1/cases?status=review&country=FR');
  assert.deepEqual(found(status), new Set([ids.frStandard, ids.frRestricted]));
  const prefix = await t.asOperator(op, 'GET', `/v1/cases?q=${ids.deStandard}`);
  assert.deepEqual(found(prefix), new Set([ids.deStandard]));
});

test('the clearance is read at each request: a narrowed clearance applies to the next search', async () => {
  const op = await addOperator(t, { role: 'reviewer', countries: ['*'], sensitivity: 'sensitive' });
  assert.equal(found(await t.asOperator(op, 'GET', '/v1/cases?limit=100')).has(ids.deStandard), true);
  const admin = await addOperator(t, { role: 'administrator', countries: ['*'], sensitivity: 'restricted' });
  const changed = await t.asOperator(admin, 'PATCH', `/v1/operators/${op.id}`, { body: { countries: ['FR'] }, reauth: true });
  assert.equal(changed.statusCode, 200, changed.body);
  assert.equal(found(await t.asOperator(op, 'GET', '/v1/cases?limit=100')).has(ids.deStandard), false);
});

test('operator checks: no header, unknown, revoked, support role; an integration key sees every case', async () => {
  const noHeader = await t.request('GET', '/v1/cases', { key: t.consoleKey });
  assert.equal(noHeader.statusCode, 401);
  assert.equal(noHeader.json().error.code, 'operator_required');
  const unknown = await t.request('GET', '/v1/cases', { key: t.consoleKey, headers: { 'x-service-operator': 'op_01m7ym09t80f4fggxqxy1yr50c' } });
  assert.equal(unknown.json().error.code, 'operator_unknown');
  const revoked = await addOperator(t, { role: 'reviewer', countries: ['*'], status: 'revoked' });
  const r = await t.asOperator(revoked, 'GET', '/v1/cases');
  assert.equal(r.statusCode, 403);
  assert.equal(r.json().error.code, 'operator_revoked');
  const support = await addOperator(t, { role: 'support', countries: ['*'] });
  const s = await t.asOperator(support, 'GET', '/v1/cases');
  assert.equal(s.statusCode, 403);
  assert.equal(s.json().error.code, 'operator_role_insufficient');
  const integration = await t.request('GET', '/v1/cases?limit=100');
  assert.equal(integration.statusCode, 200);
  assert.deepEqual(found(integration), new Set(Object.values(ids)));
});
