import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { STANDARD_FLOW } from '@idv/domain';
import { activateFlow } from '../helpers/journey.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * Knowing which case this is, and the case list beyond the queue: the queue's rows name their
 * case (the client's reference, flow, the case's own state and age); GET /v1/cases filters by
 * state and flow; GET /v1/cases/export gives the same selection as CSV with no personal data
 * (not even the external reference), within the operator's clearance.
 */
let t: ReviewTestApp;
const ids: Record<string, string> = {};
const REF = 'cust-7781-ref';

before(async () => {
  t = await startReviewApp();
  await activateFlow(t, t.demo.client_id, 'sandbox', 'lean', { ...STANDARD_FLOW, steps: ['consent', 'document'] });
  const inReview = await caseInReview(t, { country: 'FR', externalRef: REF, riskScore: 90 });
  ids.inReview = inReview.caseId;
  ids.inReviewTask = inReview.taskId;
  const decided = await caseInReview(t, { country: 'FR', flow: 'lean', externalRef: `${REF}-2` });
  ids.decided = decided.caseId;
  const res = await t.request('POST', `/v1/cases/${decided.caseId}/decision`, { signed: true, body: { outcome: 'reject', reason_code: 'document_expired' } });
  assert.equal(res.statusCode, 201, res.body);
  ids.de = (await caseInReview(t, { country: 'DE' })).caseId;
  const awaiting = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
  ids.awaiting = awaiting.json().id;
});
after(() => t.close());

const found = (res: { json(): { data: { id: string }[] } }) => new Set(res.json().data.map((c) => c.id));

/** The CSV's lines as arrays of fields (the export's fields never hold a comma, a quote or a line break). */
function rowsOf(csv: string): string[][] {
  assert.ok(csv.endsWith('\r\n'), 'CRLF line ends');
  return csv
    .slice(0, -2)
    .split('\r\n')
    .map((line) => line.split(','));
}

test('a queue row names its case: the client reference, the case id, flow, the case state and its age', async () => {
  const op = await addOperator(t, { role: 'reviewer', countries: ['FR'], sensitivity: 'standard' });
  const res = await t.asOperator(op, 'GET', '/v1/reviews?limit=100');
  assert.equal(res.statusCode, 200, res.body);
  const row = res.json().data.find((r: { id: string }) => r.id === ids.inReviewTask);
  assert.ok(row, 'the task is in the queue');
  assert.equal(row.case_id, ids.inReview);
  assert.equal(row.country, 'FR');
  assert.equal(row.risk_score, 90);
  assert.deepEqual(row.reasons, ['faces_uncertain']);
  assert.equal(row.case.external_ref, REF);
  assert.equal(row.case.flow_name, 'standard');
  assert.equal(row.case.state, 'in_review');
  const caseRead = await t.request('GET', `/v1/cases/${ids.inReview}`);
  assert.equal(row.case.created_at, caseRead.json().created_at);
  // The order and the paging are the queue's own: the riskiest task first, on a page of one.
  const everywhere = await addOperator(t, { role: 'reviewer', countries: ['*'], sensitivity: 'standard' });
  const first = await t.asOperator(everywhere, 'GET', '/v1/reviews?limit=1');
  assert.equal(first.json().data[0].case.external_ref, REF);
  assert.equal(first.json().has_more, true);
  const next = await t.asOperator(everywhere, 'GET', `/v1/reviews?limit=1&cursor=${first.json().next_cursor}`);
  assert.equal(next.json().data[0].case_id, ids.de);
  assert.equal(next.json().data[0].case.external_ref, null);
});

test('the case list filters by the case state (finer than its status) and by flow', async () => {
  const op = await addOperator(t, { role: 'supervisor', countries: ['*'], sensitivity: 'restricted' });
  const inReview = await t.asOperator(op, 'GET', '/v1/cases?state=in_review&limit=100');
  assert.equal(inReview.statusCode, 200, inReview.body);
  assert.deepEqual(found(inReview), new Set([ids.inReview, ids.de]));
  const rejected = await t.asOperator(op, 'GET', '/v1/cases?state=rejected');
  assert.deepEqual(found(rejected), new Set([ids.decided]));
  const c = rejected.json().data[0];
  assert.equal(c.decision.outcome, 'rejected');
  assert.equal(c.decision.reason_code, 'document_expired');
  const lean = await t.asOperator(op, 'GET', '/v1/cases?flow_name=lean');
  assert.deepEqual(found(lean), new Set([ids.decided]));
  const prefix = await t.asOperator(op, 'GET', `/v1/cases?q=${REF}`);
  assert.deepEqual(found(prefix), new Set([ids.inReview, ids.decided]), 'one box: the reference as a prefix');
  const exact = await t.asOperator(op, 'GET', `/v1/cases?q=${REF}-2`);
  assert.deepEqual(found(exact), new Set([ids.decided]), 'a whole reference is its own prefix');
  for (const [query, field] of [
    ['state=collecting', 'state'],
    ['flow_name=Lean', 'flow_name'],
    ['country=fr', 'country'],
  ]) {
    const bad = await t.asOperator(op, 'GET', `/v1/cases?${query}`);
    assert.equal(bad.statusCode, 422, query);
    assert.equal(bad.json().error.code, 'parameter_invalid', query);
    assert.equal(bad.json().error.field, field, query);
  }
});

test('the CSV export: the list’s selection, outcome and reason, no external reference', async () => {
  const op = await addOperator(t, { role: 'supervisor', countries: ['*'], sensitivity: 'restricted' });
  const res = await t.asOperator(op, 'GET', '/v1/cases/export?country=FR');
  assert.equal(res.statusCode, 200, res.body);
  assert.match(res.headers['content-type'] as string, /^text\/csv; charset=utf-8/);
  assert.equal(res.headers['content-disposition'], 'attachment; filename="cases-sandbox.csv"');
  assert.equal(res.headers['cache-control'], 'no-store');
  const [header, ...rows] = rowsOf(res.body);
  assert.deepEqual(header, ['case_id', 'created_at', 'flow_name', 'flow_version', 'country', 'status', 'state', 'outcome', 'reason_code', 'decided_at', 'updated_at']);
  const listed = await t.asOperator(op, 'GET', '/v1/cases?country=FR&limit=100');
  assert.deepEqual(
    rows.map((r) => r[0]),
    listed.json().data.map((c: { id: string }) => c.id),
    'the same cases, in the same order (newest first)',
  );
  const decided = rows.find((r) => r[0] === ids.decided)!;
  assert.deepEqual(decided.slice(2, 9), ['lean', '1', 'FR', 'decided', 'rejected', 'rejected', 'document_expired']);
  assert.ok(!Number.isNaN(Date.parse(decided[9])), 'decided_at');
  const open = rows.find((r) => r[0] === ids.inReview)!;
  assert.deepEqual(open.slice(6, 10), ['in_review', '', '', ''], 'no decision yet: empty fields');
  assert.equal(res.body.includes(REF), false, 'the external reference is not exported');

  const filtered = await t.asOperator(op, 'GET', '/v1/cases/export?state=rejected&flow_name=lean');
  assert.deepEqual(
    rowsOf(filtered.body)
      .slice(1)
      .map((r) => r[0]),
    [ids.decided],
  );
  const none = await t.asOperator(op, 'GET', '/v1/cases/export?country=IT');
  assert.equal(none.body, `${header.join(',')}\r\n`, 'nothing selected: the header alone');
  const bad = await t.asOperator(op, 'GET', '/v1/cases/export?created_after=yesterday');
  assert.equal(bad.statusCode, 422);
  assert.equal(bad.json().error.field, 'created_after');
  const unknown = await t.asOperator(op, 'GET', '/v1/cases/export?limit=5');
  assert.equal(unknown.statusCode, 422, 'no paging: the export is every selected case');
});

test('the export is limited to the clearance as the list is; an integration key exports every case', async () => {
  const fr = await addOperator(t, { role: 'reviewer', countries: ['FR'], sensitivity: 'standard' });
  const rows = rowsOf((await t.asOperator(fr, 'GET', '/v1/cases/export')).body).slice(1);
  assert.deepEqual(new Set(rows.map((r) => r[0])), new Set([ids.inReview, ids.decided, ids.awaiting]));
  const support = await addOperator(t, { role: 'support', countries: ['*'] });
  const refused = await t.asOperator(support, 'GET', '/v1/cases/export');
  assert.equal(refused.statusCode, 403);
  assert.equal(refused.json().error.code, 'operator_role_insufficient');
  const integration = await t.request('GET', '/v1/cases/export');
  assert.equal(integration.statusCode, 200);
  assert.deepEqual(new Set(rowsOf(integration.body).slice(1).map((r) => r[0])), new Set(Object.values(ids).filter((id) => id.startsWith('case_'))));
});
