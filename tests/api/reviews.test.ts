import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import { errorOf } from '../helpers/app.ts';
import { activateDoubleValidationFlow, addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';

let t: ReviewTestApp;
before(async () => {
  t = await startReviewApp();
  await activateDoubleValidationFlow(t);
});
after(() => t.close());

const MIN = 60_000;

async function events(caseId: string): Promise<{ type: string; data: Record<string, unknown> }[]> {
  const rows = await queryRows<{ type: string; body: string }>(t.database.db, sql`SELECT type, body FROM webhook_events WHERE object_id = ${caseId} ORDER BY occurred_at, id`);
  return rows.map((r) => ({ type: r.type, data: JSON.parse(r.body).data }));
}

async function journal(caseId: string): Promise<{ actor: string; action: string; detail: Record<string, unknown> }[]> {
  return queryRows(t.database.db, sql`SELECT actor, action, detail FROM case_journal WHERE case_id = ${caseId} ORDER BY id`);
}

async function caseState(caseId: string): Promise<string> {
  return (await t.request('GET', `/v1/cases/${caseId}`)).json().state;
}

describe('opening a review task', () => {
  test('openReviewTask moves the case to review with risk and due date, and writes case.decided manual_review in the same transaction', async () => {
    const { caseId, taskId } = await caseInReview(t, { riskScore: 77 });
    assert.equal(await caseState(caseId), 'in_review');
    const admin = await addOperator(t, { role: 'administrator' });
    const task = (await t.asOperator(admin, 'GET', `/v1/reviews/${taskId}`)).json();
    assert.equal(task.risk_score, 77);
    assert.equal(task.status, 'open');
    assert.equal(Date.parse(task.due_at) - Date.parse(task.created_at), 24 * 3600 * 1000, 'due after the flow’s review_due_hours');
    assert.deepEqual(await events(caseId), [{ type: 'case.decided', data: { outcome: 'manual_review', reason_code: null } }]);
    assert.ok((await journal(caseId)).some((j) => j.action === 'review.opened' && j.actor === 'system'));
  });
});

describe('queue, summary and clearance', () => {
  test('sorted by risk then due date, paged by an opaque cursor, filtered by status and clearance', async () => {
    const fresh = await startReviewApp();
    try {
      const base = fresh.clock.now().getTime();
      const specs = [
        { riskScore: 40, dueAt: new Date(base + 5 * MIN), country: 'FR' },
        { riskScore: 90, dueAt: new Date(base + 60 * MIN), country: 'FR' },
        { riskScore: 90, dueAt: new Date(base + 10 * MIN), country: 'DE' },
        { riskScore: 10, dueAt: new Date(base - 10 * MIN), country: 'FR' },
        { riskScore: 90, dueAt: new Date(base + 10 * MIN), country: 'FR', sensitivity: 'sensitive' as const },
      ];
      const ids: string[] = [];
      for (const s of specs) ids.push((await caseInReview(fresh, s)).taskId);
      const admin = await addOperator(fresh, { role: 'administrator' });
      const all = (await fresh.asOperator(admin, 'GET', '/v1/reviews?limit=100')).json();
      // 90/+10 (two, by id), 90/+60, 40, 10
      assert.deepEqual(all.data.map((d: { id: string }) => d.id), [...[ids[2], ids[4]].sort(), ids[1], ids[0], ids[3]]);
      assert.equal(all.data[4].overdue, true);

      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const url: string = `/v1/reviews?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const page = (await fresh.asOperator(admin, 'GET', url)).json();
        assert.ok(page.data.length <= 2);
        if (page.next_cursor) assert.ok(page.next_cursor.length <= 64);
        seen.push(...page.data.map((d: { id: string }) => d.id));
        cursor = page.next_cursor;
      } while (cursor);
      assert.deepEqual(seen, all.data.map((d: { id: string }) => d.id));

      const reviewer = await addOperator(fresh, { role: 'reviewer', countries: ['FR'], sensitivity: 'standard' });
      const mine = (await fresh.asOperator(reviewer, 'GET', '/v1/reviews?limit=100')).json();
      assert.deepEqual(mine.data.map((d: { id: string }) => d.id), [ids[1], ids[0], ids[3]], 'no DE task, no sensitive task');
      const hidden = await fresh.asOperator(reviewer, 'GET', `/v1/reviews/${ids[4]}`);
      assert.equal(hidden.statusCode, 404, 'above the sensitivity: not found');
      assert.equal((await fresh.asOperator(reviewer, 'POST', `/v1/reviews/${ids[2]}/claim`)).statusCode, 404, 'outside the countries');

      const summary = (await fresh.asOperator(reviewer, 'GET', '/v1/reviews/summary')).json();
      assert.equal(summary.active, 3);
      assert.equal(summary.overdue, 1);
      assert.equal(summary.high_risk, 1);
      assert.equal(summary.unclaimed, 3);
      await fresh.asOperator(reviewer, 'POST', `/v1/reviews/${ids[1]}/claim`);
      const after = (await fresh.asOperator(reviewer, 'GET', '/v1/reviews/summary')).json();
      assert.deepEqual([after.locked, after.locked_by_me, after.unclaimed], [1, 1, 2]);

      assert.equal((await fresh.asOperator(admin, 'GET', '/v1/reviews?status=closed')).json().data.length, 0);
      assert.equal((await fresh.asOperator(admin, 'GET', '/v1/reviews?status=open')).json().data.length, 5);
    } finally {
      await fresh.close();
    }
  });

  const invalid: [string, string, string][] = [
    ['limit=0', 'parameter_invalid', 'limit'],
    ['limit=101', 'parameter_invalid', 'limit'],
    [`cursor=${'x'.repeat(65)}`, 'parameter_invalid', 'cursor'],
    ['cursor=not-a-cursor', 'parameter_invalid', 'cursor'],
    ['status=pending', 'parameter_invalid', 'status'],
    ['sort=due_at', 'parameter_unknown', 'sort'],
  ];
  for (const [query, code, field] of invalid) {
    test(`GET /v1/reviews?${query.slice(0, 20)} → 422 ${code}`, async () => {
      const admin = await addOperator(t, { role: 'administrator' });
      const res = await t.asOperator(admin, 'GET', `/v1/reviews?${query}`);
      assert.equal(res.statusCode, 422);
      assert.equal(errorOf(res).code, code);
      assert.equal(errorOf(res).field, field);
    });
  }

  test('tenancy: another client’s operators and keys never see these tasks', async () => {
    const { taskId, caseId } = await caseInReview(t);
    const other = await otherClient(t);
    const otherTenant = { clientId: other.clientId, environment: 'sandbox' as const };
    const foreignAdmin = await addOperator(t, { role: 'administrator', tenant: otherTenant });
    const otherConsole = await issueKey(t, { clientId: other.clientId, kind: 'console' });
    const headers = { 'x-service-operator': foreignAdmin.id };
    const get = await t.request('GET', `/v1/reviews/${taskId}`, { key: otherConsole, headers });
    assert.equal(get.statusCode, 404);
    const list = (await t.request('GET', '/v1/reviews?limit=100', { key: otherConsole, headers })).json();
    assert.equal(list.data.length, 0);
    const record = await t.request('GET', `/v1/cases/${caseId}/record`, { key: otherConsole, headers });
    assert.equal(record.statusCode, 404);
    const decide = await t.request('POST', `/v1/cases/${caseId}/decision`, { key: other.key, signed: true, body: { outcome: 'approve' } });
    assert.equal(decide.statusCode, 404);
    assert.equal(await caseState(caseId), 'in_review');
  });
});

describe('claim and lock', () => {
  test('two operators racing to claim one task: exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const { taskId } = await caseInReview(t);
      const a = await addOperator(t, { role: 'reviewer' });
      const b = await addOperator(t, { role: 'reviewer' });
      const [ra, rb] = await Promise.all([t.asOperator(a, 'POST', `/v1/reviews/${taskId}/claim`), t.asOperator(b, 'POST', `/v1/reviews/${taskId}/claim`)]);
      const codes = [ra.statusCode, rb.statusCode].sort();
      assert.deepEqual(codes, [200, 409]);
      const loser = ra.statusCode === 409 ? ra : rb;
      const winner = ra.statusCode === 200 ? a : b;
      assert.equal(errorOf(loser).code, 'task_locked');
      const task = (await t.asOperator(winner, 'GET', `/v1/reviews/${taskId}`)).json();
      assert.equal(task.lock.operator_id, winner.id);
    }
  });

  test('the lock lasts thirty minutes of inactivity, is extended by lock calls, and is lost after: 409 lock_expired', async () => {
    const { taskId } = await caseInReview(t);
    const a = await addOperator(t, { role: 'reviewer' });
    const b = await addOperator(t, { role: 'reviewer' });
    const claimed = (await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/claim`)).json();
    assert.equal(Date.parse(claimed.lock.expires_at) - t.clock.now().getTime(), 30 * MIN);
    t.clock.advance(29 * MIN);
    const extended = await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/lock`);
    assert.equal(extended.statusCode, 200);
    assert.equal(Date.parse(extended.json().expires_at) - t.clock.now().getTime(), 30 * MIN);
    t.clock.advance(29 * MIN);
    assert.equal(errorOf(await t.asOperator(b, 'POST', `/v1/reviews/${taskId}/claim`)).code, 'task_locked', 'still held after 58 minutes thanks to the extension');
    t.clock.advance(2 * MIN);
    const lost = await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/lock`);
    assert.equal(lost.statusCode, 409);
    assert.equal(errorOf(lost).code, 'lock_expired');
    const decide = await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    assert.equal(errorOf(decide).code, 'lock_expired', 'no decision on a lost lock');
    const correction = await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/corrections`, { body: { field: 'subject.surname', value: 'X' } });
    assert.equal(errorOf(correction).code, 'lock_expired');
    assert.equal((await t.asOperator(b, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200, 'another operator can claim it now');
    assert.equal(errorOf(await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/lock`)).code, 'task_locked');
    const c = await addOperator(t, { role: 'reviewer' });
    assert.equal(errorOf(await t.asOperator(c, 'POST', `/v1/reviews/${taskId}/lock`)).code, 'task_locked');
    const { taskId: free } = await caseInReview(t);
    assert.equal(errorOf(await t.asOperator(c, 'POST', `/v1/reviews/${free}/lock`)).code, 'lock_not_held');
  });
});

describe('decisions', () => {
  test('a decision retried 20 times concurrently records one decision, one conclusion and one event', async () => {
    const { taskId, caseId } = await caseInReview(t);
    const op = await addOperator(t, { role: 'reviewer' });
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
    const body = { outcome: 'reject', reason_code: 'document_expired', comment: 'Expired in 2019' };
    const results = await Promise.all(Array.from({ length: 20 }, () => t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body })));
    assert.deepEqual([...new Set(results.map((r) => r.statusCode))], [201], results.map((r) => r.body).join('\n'));
    assert.equal(new Set(results.map((r) => r.json().decision.id)).size, 1);
    assert.equal(results.filter((r) => r.headers['idempotent-replayed'] === 'true').length, 19);
    const [{ n }] = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM review_decisions WHERE task_id = ${taskId}`);
    assert.equal(Number(n), 1);
    assert.equal(await caseState(caseId), 'rejected');
    const decided = (await events(caseId)).filter((e) => e.type === 'case.decided');
    assert.deepEqual(decided.map((e) => e.data), [{ outcome: 'manual_review', reason_code: null }, { outcome: 'rejected', reason_code: 'document_expired' }]);
    const comments = await queryRows<Record<string, unknown>>(t.database.db, sql`SELECT * FROM review_decisions WHERE task_id = ${taskId}`);
    assert.equal(JSON.stringify(comments).includes('Expired in 2019'), false, 'the comment is sealed');
    assert.equal(
      await t.ctx.vault.openJson(t.database.db, caseId, 'data', `review_decision:${comments[0].id}:comment`, comments[0].comment_sealed as string),
      'Expired in 2019',
      'under the case’s data key',
    );
    const entries = await journal(caseId);
    assert.equal(entries.filter((j) => j.action === 'review.decision_recorded').length, 1);
    assert.ok(entries.some((j) => j.action === 'case.decided' && j.actor === `op:${op.id}`));
    const changed = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    assert.equal(changed.statusCode, 409);
    assert.equal(errorOf(changed).code, 'decision_already_recorded');
  });

  const badBodies: [Record<string, unknown>, string, string][] = [
    [{ outcome: 'reject' }, 'parameter_invalid', 'reason_code'],
    [{ outcome: 'reject', reason_code: 'document_blurred' }, 'parameter_invalid', 'reason_code'],
    [{ outcome: 'reject', reason_code: 'because' }, 'parameter_invalid', 'reason_code'],
    [{ outcome: 'approve', reason_code: 'document_expired' }, 'parameter_invalid', 'reason_code'],
    [{ outcome: 'resubmit' }, 'parameter_invalid', 'steps'],
    [{ outcome: 'resubmit', steps: ['passport'] }, 'parameter_invalid', 'steps.0'],
    [{ outcome: 'maybe' }, 'parameter_invalid', 'outcome'],
    [{ outcome: 'approve', comment: 'x'.repeat(2001) }, 'parameter_invalid', 'comment'],
  ];
  for (const [body, code, field] of badBodies) {
    test(`422 on ${JSON.stringify(body).slice(0, 60)}`, async () => {
      const { taskId } = await caseInReview(t);
      const op = await addOperator(t, { role: 'reviewer' });
      await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
      const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body });
      assert.equal(res.statusCode, 422, res.body);
      assert.equal(errorOf(res).code, code);
      assert.equal(errorOf(res).field, field);
    });
  }

  test('resubmit sends the case back to the person, with case.resubmission_requested; a failed relaunch keeps the decision and fails the call', async () => {
    const { taskId, caseId } = await caseInReview(t);
    const op = await addOperator(t, { role: 'reviewer' });
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
    const relaunched: string[] = [];
    let fail = true;
    const saved = t.ctx.journey;
    t.ctx.journey = {
      relaunch: async (_tenant, id) => {
        if (fail) throw new Error('journey service down');
        relaunched.push(id);
      },
    };
    try {
      const body = { outcome: 'resubmit', steps: ['face', 'document'], reason_code: 'document_blurred' };
      const first = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body });
      assert.equal(first.statusCode, 502);
      assert.equal(errorOf(first).code, 'journey_relaunch_failed');
      assert.equal(await caseState(caseId), 'resubmission_requested', 'the outcome stays recorded');
      fail = false;
      const retry = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body });
      assert.equal(retry.statusCode, 201);
      assert.equal(retry.headers['idempotent-replayed'], 'true');
      assert.deepEqual(relaunched, [caseId]);
      const resub = (await events(caseId)).filter((e) => e.type === 'case.resubmission_requested');
      assert.deepEqual(resub.map((e) => e.data), [{ steps: ['document', 'face'], reason_code: 'document_blurred' }]);
      assert.deepEqual((await t.request('GET', `/v1/cases/${caseId}`)).json().resubmission, { steps: ['document', 'face'] });
    } finally {
      t.ctx.journey = saved;
    }
  });
});

describe('double validation', () => {
  test('two different operators agreeing conclude the case; decisions stay hidden until one’s own', async () => {
    const { taskId, caseId } = await caseInReview(t, { flow: 'dual' });
    const a = await addOperator(t, { role: 'reviewer' });
    const b = await addOperator(t, { role: 'reviewer' });
    await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/claim`);
    const first = await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'face_mismatch' } });
    assert.equal(first.statusCode, 201);
    assert.equal(first.json().concluded, false);
    assert.equal(first.json().task.status, 'second_validation');
    assert.equal(await caseState(caseId), 'in_review');
    assert.equal((await events(caseId)).length, 1, 'no event before the second validation');

    const forB = (await t.asOperator(b, 'GET', `/v1/reviews/${taskId}`)).json();
    assert.deepEqual(forB.decisions, []);
    assert.equal(forB.decisions_hidden, true);
    const recordForB = (await t.asOperator(b, 'GET', `/v1/cases/${caseId}/record`)).json();
    assert.deepEqual(recordForB.decisions, [], 'the record hides them too');
    const forA = (await t.asOperator(a, 'GET', `/v1/reviews/${taskId}`)).json();
    assert.equal(forA.decisions.length, 1);

    const again = await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/claim`);
    assert.equal(errorOf(again).code, 'double_validation_same_operator');
    assert.equal((await t.asOperator(b, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200);
    const second = await t.asOperator(b, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'face_mismatch' } });
    assert.equal(second.statusCode, 201);
    assert.equal(second.json().concluded, true);
    assert.equal(await caseState(caseId), 'rejected');
    assert.deepEqual((await events(caseId)).at(-1), { type: 'case.decided', data: { outcome: 'rejected', reason_code: 'face_mismatch' } });
  });

  test('disagreement escalates to a supervisor; a reviewer cannot take it, the supervisor’s outcome concludes', async () => {
    const { taskId, caseId } = await caseInReview(t, { flow: 'dual' });
    const a = await addOperator(t, { role: 'reviewer' });
    const b = await addOperator(t, { role: 'reviewer' });
    const c = await addOperator(t, { role: 'reviewer' });
    const sup = await addOperator(t, { role: 'supervisor' });
    await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/claim`);
    await t.asOperator(a, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    await t.asOperator(b, 'POST', `/v1/reviews/${taskId}/claim`);
    const disagree = await t.asOperator(b, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'suspected_fraud' } });
    assert.equal(disagree.json().task.status, 'escalated');
    assert.equal(await caseState(caseId), 'in_review');
    const byReviewer = await t.asOperator(c, 'POST', `/v1/reviews/${taskId}/claim`);
    assert.equal(byReviewer.statusCode, 403);
    assert.equal(errorOf(byReviewer).code, 'operator_role_insufficient');
    assert.equal((await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200);
    const final = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    assert.equal(final.json().concluded, true);
    assert.equal(await caseState(caseId), 'approved');
    const escalated = (await t.asOperator(sup, 'GET', '/v1/reviews/metrics')).json();
    assert.ok(escalated.double_validation.escalated >= 1);
  });
});

describe('revision', () => {
  test('supervisor with re-authentication revises a decided case; a revision that changes nothing is refused', async () => {
    const { taskId, caseId } = await caseInReview(t);
    const op = await addOperator(t, { role: 'reviewer' });
    const sup = await addOperator(t, { role: 'supervisor' });
    const admin = await addOperator(t, { role: 'administrator' });
    const early = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve' }, reauth: true });
    assert.equal(errorOf(early).code, 'case_not_decided');
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'reject', reason_code: 'document_expired' } });

    assert.equal(errorOf(await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve' }, reauth: true })).code, 'operator_role_insufficient');
    assert.equal(errorOf(await t.asOperator(admin, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve' }, reauth: true })).code, 'operator_role_insufficient');
    assert.equal(errorOf(await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve' } })).code, 'reauth_required');
    const same = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'reject', reason_code: 'document_expired' }, reauth: true });
    assert.equal(same.statusCode, 409);
    assert.equal(errorOf(same).code, 'revision_changes_nothing');
    const noReason = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'reject' }, reauth: true });
    assert.equal(errorOf(noReason).code, 'parameter_invalid');

    t.clock.advance(1000);
    const revised = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve', comment: 'Renewal proof seen' }, reauth: true });
    assert.equal(revised.statusCode, 201, revised.body);
    assert.deepEqual(
      [revised.json().outcome, revised.json().previous_outcome, revised.json().previous_reason_code],
      ['approved', 'rejected', 'document_expired'],
    );
    assert.equal(await caseState(caseId), 'approved');
    assert.deepEqual((await events(caseId)).at(-1), {
      type: 'case.decision_revised',
      data: { outcome: 'approved', reason_code: null, previous_outcome: 'rejected', previous_reason_code: 'document_expired' },
    });
    const retry = await t.asOperator(sup, 'POST', `/v1/reviews/${taskId}/revision`, { body: { outcome: 'approve' }, reauth: true });
    assert.equal(errorOf(retry).code, 'revision_changes_nothing', 'a retry after success changes nothing');
    const record = (await t.asOperator(sup, 'GET', `/v1/cases/${caseId}/record`)).json();
    assert.equal(record.revisions.length, 1);
    assert.equal(record.case.state, 'approved');
  });
});

describe('decision by key', () => {
  test('a key with decisions decides alone, journaled as key:<id>; the task closes', async () => {
    const { taskId, caseId } = await caseInReview(t);
    const holder = await addOperator(t, { role: 'reviewer' });
    await t.asOperator(holder, 'POST', `/v1/reviews/${taskId}/claim`);
    const noPermission = await issueKey(t, { clientId: t.tenant.clientId });
    const denied = await t.request('POST', `/v1/cases/${caseId}/decision`, { key: noPermission, signed: true, body: { outcome: 'approve' } });
    assert.equal(denied.statusCode, 403);
    assert.equal(errorOf(denied).code, 'permission_denied');

    const idem = 'decide-' + caseId;
    const res = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, idempotencyKey: idem, body: { outcome: 'reject', reason_code: 'underage' } });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().decision.decided_by, `key:${t.demoKey.id}`);
    const replay = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, idempotencyKey: idem, body: { outcome: 'reject', reason_code: 'underage' } });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json().decision.id, res.json().decision.id);
    assert.equal(await caseState(caseId), 'rejected');
    assert.ok((await journal(caseId)).some((j) => j.action === 'case.decided' && j.actor === `key:${t.demoKey.id}`));
    const admin = await addOperator(t, { role: 'administrator' });
    const task = (await t.asOperator(admin, 'GET', `/v1/reviews/${taskId}`)).json();
    assert.deepEqual([task.status, task.lock], ['closed', null]);
    const late = await t.asOperator(holder, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    assert.equal(errorOf(late).code, 'task_closed');

    const again = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, body: { outcome: 'approve' } });
    assert.equal(again.statusCode, 409);
    assert.equal(errorOf(again).code, 'case_not_in_review');
    assert.match(errorOf(again).message, /rejected \(status decided\)/);
  });

  test('a case waiting for the person is not in review', async () => {
    const created = (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } })).json();
    const res = await t.request('POST', `/v1/cases/${created.id}/decision`, { signed: true, body: { outcome: 'approve' } });
    assert.equal(res.statusCode, 409);
    assert.equal(errorOf(res).code, 'case_not_in_review');
    assert.match(errorOf(res).message, /awaiting_applicant \(status created\)/);
  });
});

describe('case screen, corrections, record and journey link', () => {
  test('the case screen is one journaled consultation with the subject masked', async () => {
    const created = (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR', declared: { surname: 'Ødegård', given_names: 'Åse' } } })).json();
    const { applyCaseTrigger, findCaseForUpdate, openReviewTask } = await import('@idv/db');
    const { task } = await t.database.db.transaction(async (tx) => {
      await applyCaseTrigger(tx, t.tenant, (await findCaseForUpdate(tx, t.tenant, created.id))!, { type: 'submission_complete' }, t.clock.now());
      return openReviewTask(tx, t.tenant, { caseId: created.id, riskScore: 30 }, t.clock.now());
    });
    const op = await addOperator(t, { role: 'reviewer' });
    const res = await t.asOperator(op, 'GET', `/v1/reviews/${task.id}/case`);
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.body.includes('Ødegård'), false);
    assert.deepEqual(res.json().subject, {
      masked: true,
      erased: false,
      declared_fields: ['declared.given_names', 'declared.surname'],
      entered_fields: [],
      read_fields: [],
      corrected_fields: [],
      comparison: [
        { field: 'surname', paths: ['declared.surname', 'document.surname'], status: 'missing', missing: ['document.surname'] },
        { field: 'given_names', paths: ['declared.given_names', 'document.given_names'], status: 'missing', missing: ['document.given_names'] },
      ],
    });
    const [stored] = await queryRows<{ declared_sealed: string }>(t.database.db, sql`SELECT declared_sealed FROM cases WHERE id = ${created.id}`);
    assert.equal(stored.declared_sealed.startsWith('v1.'), false, 'sealed under the case key, not the master key');
    assert.deepEqual(await t.ctx.vault.openJson(t.database.db, created.id, 'data', 'declared', stored.declared_sealed), { surname: 'Ødegård', given_names: 'Åse' });
    const consulted = (await journal(created.id)).filter((j) => j.action === 'case.consulted');
    assert.deepEqual(consulted.map((j) => j.actor), [`op:${op.id}`]);
  });

  test('corrections need the lock, read the previous value themselves and are kept sealed beside the reading', async () => {
    const { taskId, caseId } = await caseInReview(t);
    const op = await addOperator(t, { role: 'reviewer' });
    const noLock = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/corrections`, { body: { field: 'subject.surname', value: 'Müller' } });
    assert.equal(errorOf(noLock).code, 'lock_not_held');
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
    const first = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/corrections`, { body: { field: 'subject.surname', value: 'Müller' } });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(first.json().previous_value_present, false);
    t.clock.advance(1000);
    const second = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/corrections`, { body: { field: 'subject.surname', value: 'Mueller', comment: 'umlaut' } });
    assert.equal(second.json().previous_value_present, true);
    const stored = await queryRows<Record<string, unknown>>(t.database.db, sql`SELECT * FROM review_corrections WHERE case_id = ${caseId} ORDER BY created_at`);
    assert.equal(stored.length, 2);
    assert.equal(JSON.stringify(stored).includes('Müller') || JSON.stringify(stored).includes('Mueller'), false, 'values are sealed');
    const opened = await t.ctx.vault.openJson(t.database.db, caseId, 'data', `review_correction:${stored[1].id}`, stored[1].sealed as string);
    assert.deepEqual(opened, { previous: 'Müller', value: 'Mueller', comment: 'umlaut' }, 'sealed under the case’s data key');
    const entries = (await journal(caseId)).filter((j) => j.action === 'review.correction_added');
    assert.equal(entries.length, 2);
    assert.equal(JSON.stringify(entries).includes('ller'), false, 'the journal names the field, not the value');
    const unknown = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/corrections`, { body: { field: 'subject.eye_colour', value: 'x' } });
    assert.equal(errorOf(unknown).code, 'parameter_invalid');
  });

  test('the record stays readable after the decision and is journaled', async () => {
    const { taskId, caseId } = await caseInReview(t);
    const op = await addOperator(t, { role: 'reviewer' });
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/decision`, { body: { outcome: 'approve' } });
    const record = await t.asOperator(op, 'GET', `/v1/cases/${caseId}/record`);
    assert.equal(record.statusCode, 200);
    assert.equal(record.json().case.state, 'approved');
    assert.equal(record.json().decisions.length, 1);
    assert.equal(record.json().reviews[0].status, 'closed');
    assert.ok((await journal(caseId)).some((j) => j.action === 'case.consulted' && (j.detail as { via: string }).via === 'record'));
  });

  test('a journey link from the console only for a case created or collecting', async () => {
    const op = await addOperator(t, { role: 'reviewer', countries: ['FR'] });
    const { caseId } = await caseInReview(t);
    const refused = await t.asOperator(op, 'POST', `/v1/cases/${caseId}/journey-link`, { body: {} });
    assert.equal(refused.statusCode, 409);
    assert.equal(errorOf(refused).code, 'case_not_awaiting_applicant');
    const created = (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } })).json();
    const link = await t.asOperator(op, 'POST', `/v1/cases/${created.id}/journey-link`, { body: { locale: 'fr' } });
    assert.equal(link.statusCode, 201, link.body);
    assert.match(link.json().url, /^http:\/\/journey\.test\/#[A-Za-z0-9_-]{43}$/);
    const entries = await journal(created.id);
    assert.ok(entries.some((j) => j.action === 'session.created' && j.actor === `op:${op.id}`));
    const german = (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'DE' } })).json();
    assert.equal((await t.asOperator(op, 'POST', `/v1/cases/${german.id}/journey-link`, { body: {} })).statusCode, 404, 'outside the countries');
  });
});

describe('metrics', () => {
  test('supervisors and administrators read volumes, outcomes and alerts; since is bounded', async () => {
    const sup = await addOperator(t, { role: 'supervisor' });
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const m = await t.asOperator(sup, 'GET', '/v1/reviews/metrics');
    assert.equal(m.statusCode, 200, m.body);
    const body = m.json();
    assert.ok(body.volumes.opened >= body.volumes.closed);
    assert.ok(body.outcomes.rejected >= 1 && body.outcomes.approved >= 1);
    assert.ok(body.volumes.closed_by_keys >= 1);
    assert.equal(Date.parse(body.until) - Date.parse(body.since), 30 * 24 * 3600 * 1000);
    assert.equal(errorOf(await t.asOperator(reviewer, 'GET', '/v1/reviews/metrics')).code, 'operator_role_insufficient');
    const future = new Date(t.clock.now().getTime() + 3600_000).toISOString();
    assert.equal(errorOf(await t.asOperator(sup, 'GET', `/v1/reviews/metrics?since=${encodeURIComponent(future)}`)).field, 'since');
    assert.equal(errorOf(await t.asOperator(sup, 'GET', '/v1/reviews/metrics?since=2001-01-01T00:00:00Z')).field, 'since');
    assert.equal(errorOf(await t.asOperator(sup, 'GET', '/v1/reviews/metrics?since=yesterday')).code, 'parameter_invalid');
    // Everything open is overdue a day and a half later.
    t.clock.advance(36 * 3600_000);
    const later = (await t.asOperator(sup, 'GET', '/v1/reviews/metrics')).json();
    assert.ok(later.overdue.now >= 1);
    assert.ok(later.alerts.some((a: { code: string }) => a.code === 'overdue_tasks'));
  });
});
