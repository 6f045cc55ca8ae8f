import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { applyCaseTrigger, concludeCase, findCaseForUpdate } from '@idv/db';
import { errorOf } from '../helpers/app.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * GET /v1/reviews/analytics: every case decided in the period (by the checks alone, an operator or
 * a key), by outcome and reason, per UTC day, the automation rate, the median time from creation
 * to decision, and each operator's decisions, within the clearance; administrators and
 * supervisors only.
 */
let t: ReviewTestApp;
before(async () => {
  t = await startReviewApp();
});
after(() => t.close());

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** A case the checks decide alone, `after` its creation, as the worker does (actor system, no task). */
async function decidedByChecks(country: string, outcome: 'approve' | 'reject', reasonCode: string | null, after: number): Promise<string> {
  const created = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country } });
  assert.equal(created.statusCode, 201, created.body);
  const caseId = created.json().id as string;
  t.clock.advance(after);
  await t.database.db.transaction(async (tx) => {
    const row = (await findCaseForUpdate(tx, t.tenant, caseId))!;
    const processing = await applyCaseTrigger(tx, t.tenant, row, { type: 'submission_complete' }, t.clock.now());
    await concludeCase(tx, t.tenant, processing, { outcome, reasonCode, steps: null, actor: 'system' }, t.clock.now());
  });
  return caseId;
}

describe('GET /v1/reviews/analytics', () => {
  test('decisions by decider, outcome and reason per day; automation rate; median time to decision; reviewer throughput; within the clearance', async () => {
    // Day 0's events span a few hours: they start just after a UTC midnight, or run late in the
    // day the test would see them cross into the next date (it failed so at 21:00 UTC).
    t.clock.set(new Date(Math.ceil(t.clock.now().getTime() / DAY) * DAY + HOUR));
    const since = t.clock.now();
    const day = (offset: number) => new Date(since.getTime() + offset * DAY).toISOString().slice(0, 10);
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const admin = await addOperator(t, { role: 'administrator' });
    const frSupervisor = await addOperator(t, { role: 'supervisor', countries: ['FR'], sensitivity: 'standard' });
    const decide = async (op: typeof reviewer, taskId: string, body: Record<string, unknown>) => {
      assert.equal((await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200);
      const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body });
      assert.equal(res.statusCode, 201, res.body);
    };

    // Day 0: two cases the checks decide within an hour; one German, outside the FR clearance.
    await decidedByChecks('FR', 'approve', null, HOUR);
    await decidedByChecks('FR', 'reject', 'document_expired', HOUR);
    await decidedByChecks('DE', 'approve', null, HOUR);
    // Reviewed cases: opened day 0, decided day 1 by the reviewer (approve, and a resubmission that
    // decides nothing), one by a key; a restricted one decided by the administrator.
    const approved = await caseInReview(t, { country: 'FR' });
    const resubmitted = await caseInReview(t, { country: 'FR' });
    const byKey = await caseInReview(t, { country: 'FR' });
    const restricted = await caseInReview(t, { country: 'FR', sensitivity: 'restricted' });
    t.clock.advance(DAY);
    await decide(reviewer, approved.taskId, { outcome: 'approve' });
    await decide(reviewer, resubmitted.taskId, { outcome: 'resubmit', steps: ['document'] });
    await decide(admin, restricted.taskId, { outcome: 'reject', reason_code: 'underage' });
    const key = await t.request('POST', `/v1/cases/${byKey.caseId}/decision`, { signed: true, body: { outcome: 'reject', reason_code: 'underage' } });
    assert.equal(key.statusCode, 201, key.body);
    t.clock.advance(DAY);

    const url = `/v1/reviews/analytics?since=${encodeURIComponent(since.toISOString())}`;
    const fr = await t.asOperator(frSupervisor, 'GET', url);
    assert.equal(fr.statusCode, 200, fr.body);
    const a = fr.json();
    assert.equal(a.object, 'decision_analytics');
    // The German case and the restricted one are outside this supervisor's clearance.
    assert.deepEqual(a.decided, { total: 4, approved: 2, rejected: 2, automatic: 2, by_operators: 1, by_keys: 1 });
    assert.equal(a.automation_rate, 0.5);
    assert.deepEqual(a.reasons, [
      { outcome: 'approved', reason_code: null, count: 2, automatic: 1 },
      { outcome: 'rejected', reason_code: 'document_expired', count: 1, automatic: 1 },
      { outcome: 'rejected', reason_code: 'underage', count: 1, automatic: 0 },
    ]);
    assert.deepEqual(
      a.daily.map((d: { date: string }) => d.date),
      [day(0), day(1), day(2)],
    );
    assert.deepEqual({ ...a.daily[0], decision_seconds_p50: undefined }, { date: day(0), approved: 1, rejected: 1, automatic: 2, decision_seconds_p50: undefined });
    assert.deepEqual({ ...a.daily[1], decision_seconds_p50: undefined }, { date: day(1), approved: 1, rejected: 1, automatic: 0, decision_seconds_p50: undefined });
    assert.deepEqual(a.daily[2], { date: day(2), approved: 0, rejected: 0, automatic: 0, decision_seconds_p50: null });
    // Times: the checks' decisions an hour after creation; the reviewed ones about a day after.
    const near = (actual: number | null, expected: number, what: string) => assert.ok(actual !== null && Math.abs(actual - expected) < 60, `${what}: ${actual}`);
    near(a.time_to_decision_seconds.automatic_p50, 3600, 'automatic');
    near(a.daily[0].decision_seconds_p50, 3600, 'day 0');
    assert.ok(a.time_to_decision_seconds.operators_p50 > 86_400 && a.time_to_decision_seconds.operators_p50 < 86_400 + 60, 'operators');
    assert.ok(a.time_to_decision_seconds.keys_p50 > 86_400 && a.time_to_decision_seconds.keys_p50 < 86_400 + 60, 'keys');
    assert.ok(a.time_to_decision_seconds.p50 > 3600 && a.time_to_decision_seconds.p50 < 86_400 + 60, 'overall median between the two');
    // Reviewer throughput: the resubmission counts as work; the restricted task's decision is outside.
    assert.deepEqual(a.reviewers, [{ operator_id: reviewer.id, decisions: 2, approved: 1, rejected: 0, resubmission_requested: 1, active_days: 1 }]);
    // The days add up to the period's figures.
    const sum = (k: string) => a.daily.reduce((n: number, d: Record<string, number>) => n + d[k], 0);
    assert.deepEqual([sum('approved'), sum('rejected'), sum('automatic')], [a.decided.approved, a.decided.rejected, a.decided.automatic]);

    // The administrator's clearance covers everything.
    const all = (await t.asOperator(admin, 'GET', url)).json();
    assert.deepEqual(all.decided, { total: 6, approved: 3, rejected: 3, automatic: 3, by_operators: 2, by_keys: 1 });
    assert.equal(all.automation_rate, 0.5);
    assert.deepEqual(
      all.reviewers.map((r: { operator_id: string; decisions: number }) => [r.operator_id, r.decisions]),
      [
        [reviewer.id, 2],
        [admin.id, 1],
      ],
    );
    // Nothing that names a person: ids, codes, counts and times only.
    assert.doesNotMatch(JSON.stringify(all), /given_names|surname|birth|email/);
  });

  test('an empty period: zeros, no rate, no medians, every day', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    t.clock.advance(10 * DAY);
    const since = new Date(t.clock.now().getTime() - 2 * DAY);
    const res = await t.asOperator(admin, 'GET', `/v1/reviews/analytics?since=${encodeURIComponent(since.toISOString())}`);
    assert.equal(res.statusCode, 200, res.body);
    const a = res.json();
    assert.deepEqual(a.decided, { total: 0, approved: 0, rejected: 0, automatic: 0, by_operators: 0, by_keys: 0 });
    assert.equal(a.automation_rate, null);
    assert.deepEqual(a.time_to_decision_seconds, { p50: null, automatic_p50: null, operators_p50: null, keys_p50: null });
    assert.deepEqual([a.reasons, a.reviewers], [[], []]);
    assert.equal(a.daily.length, 3);
    // The default period: thirty days ago to now, 31 UTC days.
    assert.equal((await t.asOperator(admin, 'GET', '/v1/reviews/analytics')).json().daily.length, 31);
  });

  test('administrators and supervisors only; the period is checked', async () => {
    for (const role of ['administrator', 'supervisor'] as const) {
      const res = await t.asOperator(await addOperator(t, { role }), 'GET', '/v1/reviews/analytics');
      assert.equal(res.statusCode, 200, `${role}: ${res.body}`);
    }
    for (const role of ['reviewer', 'support'] as const) {
      const res = await t.asOperator(await addOperator(t, { role }), 'GET', '/v1/reviews/analytics');
      assert.equal(res.statusCode, 403, role);
      assert.equal(errorOf(res).code, 'operator_role_insufficient');
    }
    const revoked = await addOperator(t, { role: 'administrator', status: 'revoked' });
    assert.equal(errorOf(await t.asOperator(revoked, 'GET', '/v1/reviews/analytics')).code, 'operator_revoked');
    const noOperator = await t.request('GET', '/v1/reviews/analytics', { key: t.consoleKey });
    assert.equal(noOperator.statusCode, 401);
    assert.equal(errorOf(noOperator).code, 'operator_required');

    const sup = await addOperator(t, { role: 'supervisor' });
    const future = new Date(t.clock.now().getTime() + DAY).toISOString();
    for (const since of [future, '2001-01-01T00:00:00Z', 'yesterday']) {
      const res = await t.asOperator(sup, 'GET', `/v1/reviews/analytics?since=${encodeURIComponent(since)}`);
      assert.equal(res.statusCode, 422, `${since}: ${res.body}`);
      assert.deepEqual([errorOf(res).code, errorOf(res).field], ['parameter_invalid', 'since']);
    }
    assert.equal(errorOf(await t.asOperator(sup, 'GET', '/v1/reviews/analytics?until=x')).code, 'parameter_unknown');
  });
});
