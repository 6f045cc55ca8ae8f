import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { createFlowVersion, queryRows } from '@idv/db';
import { STANDARD_FLOW, type CheckReport } from '@idv/domain';
import { errorOf } from '../helpers/app.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';

/**
 * Overrides (docs/operators.md#overrides): approving against checks that failed or need attention
 * needs a written justification, sealed with the decision, named in the journal (never quoted),
 * returned wherever the decision is; a flow may ask a second operator for such an approval even
 * without double validation; a key decides alone but justifies like an operator.
 */

let t: ReviewTestApp;
/** A face match that failed, liveness that needs attention, the rest passed: as the checks runner stores them. */
const CHECKS: CheckReport[] = [
  { type: 'document_quality', status: 'ok', reasons: [], measures: {} },
  { type: 'face_match', status: 'failed', reasons: ['faces_differ'], measures: { distance: 1.31 } },
  { type: 'liveness', status: 'attention', reasons: ['challenge_not_performed'], measures: {} },
  { type: 'duplicates', status: 'ok', reasons: [], measures: {} },
];
const WHY = 'Portrait from 2012, the ears and the scar on the chin match; called the customer back on file.';

before(async () => {
  t = await startReviewApp();
  // The standard flow, plus: overrides need a second operator (double validation otherwise off).
  await t.database.db.transaction((tx) =>
    createFlowVersion(tx, t.tenant, 'guarded', { ...STANDARD_FLOW, double_validation: false, double_validation_on_override: true }, t.clock.now(), true),
  );
});
after(() => t.close());

async function journal(caseId: string) {
  return queryRows<{ actor: string; action: string; detail: Record<string, unknown> }>(t.database.db, sql`SELECT actor, action, detail FROM case_journal WHERE case_id = ${caseId} ORDER BY id`);
}

async function claimed(spec: { flow?: string; checks?: CheckReport[]; country?: string } = {}) {
  const { taskId, caseId } = await caseInReview(t, { checks: CHECKS, ...spec });
  const op = await addOperator(t, { role: 'reviewer' });
  assert.equal((await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200);
  return { taskId, caseId, op };
}

describe('an operator approving against failed checks', () => {
  test('is refused without a justification (422 justification_required naming the checks), and with one too short', async () => {
    const { taskId, op } = await claimed();
    for (const body of [{ outcome: 'approve' }, { outcome: 'approve', justification: '   ' }, { outcome: 'approve', justification: 'looks ok' }]) {
      const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body });
      assert.equal(res.statusCode, 422, res.body);
      const error = errorOf(res);
      assert.deepEqual([error.code, error.type, error.field], ['justification_required', 'validation_error', 'justification'], JSON.stringify(body));
      assert.match(error.message, /face_match, liveness/);
      assert.match(error.doc_url, /\/errors\/justification_required$/);
    }
    const tooLong = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: 'x'.repeat(2001) } });
    assert.deepEqual([tooLong.statusCode, errorOf(tooLong).code, errorOf(tooLong).field], [422, 'parameter_invalid', 'justification']);
    const [{ n }] = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM review_decisions WHERE task_id = ${taskId}`);
    assert.equal(Number(n), 0, 'nothing recorded');
  });

  test('is recorded with one: sealed with the decision, named in the journal, returned by the decision, the task, the case screen and the record', async () => {
    const { taskId, caseId, op } = await claimed();
    const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: `  ${WHY} ` } });
    assert.equal(res.statusCode, 201, res.body);
    const decision = res.json().decision;
    assert.deepEqual([decision.overridden_checks, decision.justification, res.json().concluded], [['face_match', 'liveness'], WHY, true]);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}`)).json().state, 'approved');

    const [row] = await queryRows<Record<string, unknown>>(t.database.db, sql`SELECT * FROM review_decisions WHERE id = ${decision.id}`);
    assert.equal(JSON.stringify(row).includes('scar'), false, 'sealed, not stored in clear');
    assert.equal(await t.ctx.vault.openJson(t.database.db, caseId, 'data', `review_decision:${decision.id}:justification`, row.justification_sealed as string), WHY);

    const entries = await journal(caseId);
    const override = entries.find((j) => j.action === 'review.checks_overridden');
    assert.deepEqual(override, {
      actor: `op:${op.id}`,
      action: 'review.checks_overridden',
      detail: { decision_id: decision.id, checks: ['face_match', 'liveness'], justified: true, second_validator_required: false },
    });
    assert.equal(JSON.stringify(entries).includes('scar'), false, 'the journal never quotes the justification');

    const supervisor = await addOperator(t, { role: 'supervisor' });
    const record = (await t.asOperator(supervisor, 'GET', `/v1/cases/${caseId}/record`)).json();
    assert.deepEqual(record.decisions.map((d: { overridden_checks: string[]; justification: string }) => [d.overridden_checks, d.justification]), [[['face_match', 'liveness'], WHY]]);
    assert.ok(record.journal.some((j: { action: string }) => j.action === 'review.checks_overridden'), 'the record’s journal shows the override');
    assert.equal((await t.asOperator(op, 'GET', `/v1/reviews/${taskId}`)).json().decisions[0].justification, WHY);
    assert.equal((await t.asOperator(op, 'GET', `/v1/reviews/${taskId}/case`)).json().task.decisions[0].justification, WHY);

    const replay = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: WHY } });
    assert.deepEqual([replay.statusCode, replay.headers['idempotent-replayed'], replay.json().decision.justification], [201, 'true', WHY]);
  });

  test('a rejection follows the checks: no justification needed, and one is refused (a stored justification always explains an override)', async () => {
    const { taskId, op } = await claimed();
    const refused = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'face_mismatch', justification: WHY } });
    assert.deepEqual([refused.statusCode, errorOf(refused).code, errorOf(refused).field], [422, 'parameter_invalid', 'justification']);
    const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'face_mismatch' } });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.json().decision.overridden_checks, res.json().decision.justification], [[], null]);
  });

  test('approving a case whose checks all passed overrides nothing', async () => {
    const passed = CHECKS.map((c) => ({ ...c, status: 'ok' as const, reasons: [] }));
    const { taskId, op } = await claimed({ checks: passed });
    const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(res.json().decision.overridden_checks, []);
  });
});

describe('a flow asking a second validator for overrides', () => {
  test('the override waits for a second operator, who decides blind and must justify too; agreeing concludes', async () => {
    const { taskId, caseId, op } = await claimed({ flow: 'guarded' });
    const first = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: WHY } });
    assert.equal(first.statusCode, 201, first.body);
    assert.deepEqual([first.json().concluded, first.json().task.status, first.json().decision.effect], [false, 'second_validation', 'await_second_validation']);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}`)).json().state, 'in_review');
    assert.equal((await journal(caseId)).find((j) => j.action === 'review.checks_overridden')?.detail.second_validator_required, true);

    const again = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
    assert.equal(errorOf(again).code, 'double_validation_same_operator');
    const second = await addOperator(t, { role: 'reviewer' });
    const seen = (await t.asOperator(second, 'GET', `/v1/reviews/${taskId}`)).json();
    assert.deepEqual([seen.double_validation, seen.decisions, seen.decisions_hidden], [true, [], true], 'the first outcome stays hidden');
    assert.equal((await t.asOperator(second, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200);
    const unjustified = await t.asOperator(second, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    assert.equal(errorOf(unjustified).code, 'justification_required');
    const agreed = await t.asOperator(second, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: 'Same person: compared the ears and the chin scar.' } });
    assert.equal(agreed.statusCode, 201, agreed.body);
    assert.equal(agreed.json().concluded, true);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}`)).json().state, 'approved');
    const admin = await addOperator(t, { role: 'administrator' });
    const record = (await t.asOperator(admin, 'GET', `/v1/cases/${caseId}/record`)).json();
    assert.deepEqual(record.decisions.map((d: { decided_by: string }) => d.decided_by).sort(), [`op:${op.id}`, `op:${second.id}`].sort());
    assert.ok(record.decisions.every((d: { justification: string | null }) => d.justification));
  });

  test('a second operator rejecting escalates to a supervisor', async () => {
    const { taskId, caseId, op } = await claimed({ flow: 'guarded' });
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: WHY } });
    const second = await addOperator(t, { role: 'reviewer' });
    await t.asOperator(second, 'POST', `/v1/reviews/${taskId}/claim`);
    const res = await t.asOperator(second, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'face_mismatch' } });
    assert.deepEqual([res.statusCode, res.json().task.status, res.json().concluded], [201, 'escalated', false]);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}`)).json().state, 'in_review');
  });

  test('a decision that overrides nothing concludes at once under the same flow', async () => {
    const { taskId, caseId, op } = await claimed({ flow: 'guarded' });
    const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'face_mismatch' } });
    assert.deepEqual([res.statusCode, res.json().concluded, res.json().task.status], [201, true, 'closed']);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}`)).json().state, 'rejected');
  });

  test('the flow setting is validated like every other', async () => {
    const res = await t.request('POST', '/v1/flows/guarded/versions', { signed: true, body: { definition: { ...STANDARD_FLOW, double_validation_on_override: 'yes' } } });
    assert.deepEqual([res.statusCode, errorOf(res).code, errorOf(res).field], [422, 'parameter_invalid', 'definition.double_validation_on_override']);
  });
});

describe('a supervisor revising to approved against failed checks', () => {
  test('needs a justification too (re-authenticated, no second validator); the record returns it', async () => {
    const { taskId, caseId, op } = await claimed({ flow: 'guarded' });
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'face_mismatch' } });
    const sup = await addOperator(t, { role: 'supervisor' });
    const bare = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve' }, reauth: true });
    assert.deepEqual([bare.statusCode, errorOf(bare).code, errorOf(bare).field], [422, 'justification_required', 'justification']);
    const revised = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve', justification: WHY }, reauth: true });
    assert.equal(revised.statusCode, 201, revised.body);
    assert.deepEqual([revised.json().outcome, revised.json().overridden_checks, revised.json().justification], ['approved', ['face_match', 'liveness'], WHY]);
    const record = (await t.asOperator(sup, 'GET', `/v1/cases/${caseId}/record`)).json();
    assert.deepEqual([record.case.state, record.revisions[0].justification], ['approved', WHY]);
    const override = (await journal(caseId)).find((j) => j.action === 'review.checks_overridden');
    assert.deepEqual([override?.actor, override?.detail.revision_id], [`op:${sup.id}`, revised.json().id]);
    // Back to rejected follows the checks: no justification taken.
    t.clock.advance(1000);
    const back = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'reject', reason_code: 'face_mismatch', justification: WHY }, reauth: true });
    assert.deepEqual([back.statusCode, errorOf(back).code], [422, 'parameter_invalid']);
  });
});

describe('a key deciding against failed checks', () => {
  test('decides alone (no second validator, as for double validation) but needs a justification, returned and journaled', async () => {
    const { caseId } = await caseInReview(t, { checks: CHECKS, flow: 'guarded' });
    const missing = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, body: { outcome: 'approve' } });
    assert.deepEqual([missing.statusCode, errorOf(missing).code, errorOf(missing).field], [422, 'justification_required', 'justification']);
    const res = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, body: { outcome: 'approve', justification: WHY } });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual([res.json().concluded, res.json().decision.overridden_checks, res.json().decision.justification], [true, ['face_match', 'liveness'], WHY]);
    const override = (await journal(caseId)).find((j) => j.action === 'review.checks_overridden');
    assert.equal(override?.actor, `key:${t.demoKey.id}`);
  });
});

describe('who reads a justification', () => {
  test('only operators who may read the case: out of clearance, another client, a support account without grant: 404', async () => {
    const { taskId, caseId, op } = await claimed();
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: WHY } });
    const german = await addOperator(t, { role: 'supervisor', countries: ['DE'] });
    const support = await addOperator(t, { role: 'support' });
    for (const who of [german, support]) {
      const res = await t.asOperator(who, 'GET', `/v1/cases/${caseId}/record`);
      assert.deepEqual([res.statusCode, errorOf(res).code], [404, 'resource_not_found'], who.role);
      assert.equal(res.body.includes('scar'), false);
    }
    const other = await otherClient(t);
    const stranger = await addOperator(t, { role: 'administrator', tenant: { clientId: other.clientId, environment: 'sandbox' } });
    const otherConsole = await issueKey(t, { clientId: other.clientId, kind: 'console' });
    const foreign = await t.request('GET', `/v1/cases/${caseId}/record`, { key: otherConsole, headers: { 'x-service-operator': stranger.id } });
    assert.equal(foreign.statusCode, 404);
    const { caseId: open } = await caseInReview(t, { checks: CHECKS });
    const foreignKey = await t.request('POST', `/v1/cases/${open}/decision`, { key: other.key, signed: true, body: { outcome: 'approve', justification: WHY } });
    assert.equal(foreignKey.statusCode, 404);
    const noPermission = await issueKey(t, { clientId: t.tenant.clientId });
    const denied = await t.request('POST', `/v1/cases/${open}/decision`, { key: noPermission, signed: true, body: { outcome: 'approve', justification: WHY } });
    assert.deepEqual([denied.statusCode, errorOf(denied).code], [403, 'permission_denied']);
  });

  test('erasure removes the justification; the overridden checks stay', async () => {
    const { taskId, caseId, op } = await claimed();
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve', justification: WHY } });
    const dpo = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data'] });
    const erased = await t.request('POST', `/v1/cases/${caseId}/erasure`, { signed: true, key: dpo });
    assert.equal(erased.statusCode, 200, erased.body);
    assert.ok(erased.json().erased.review_comments >= 1, erased.body);
    const admin = await addOperator(t, { role: 'administrator' });
    const [d] = (await t.asOperator(admin, 'GET', `/v1/cases/${caseId}/record`)).json().decisions;
    assert.deepEqual([d.overridden_checks, d.justification], [['face_match', 'liveness'], null]);
  });
});
