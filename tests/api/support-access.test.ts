import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import { errorOf } from '../helpers/app.ts';
import { addOperator } from '../helpers/operators.ts';
import { PERSONS, journeyThrough, openCaseFor, recordReading, sendToReview, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';

let t: PersonalDataTestApp;
before(async () => {
  t = await startPersonalDataApp();
});
after(() => t.close());

const HOUR = 3_600_000;

async function caseInReviewWithData(person = PERSONS[0]) {
  const caseId = await openCaseFor(t, person);
  await journeyThrough(t, caseId, person);
  await recordReading(t, caseId, person.read);
  const taskId = await sendToReview(t, caseId);
  return { caseId, taskId };
}

describe('support access', () => {
  test('opening a grant: administrator or supervisor with re-authentication, a case in review, a support account, a reason', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const support = await addOperator(t, { role: 'support', name: 'Sam Support' });
    const { caseId } = await caseInReviewWithData();
    const body = { case_id: caseId, operator_id: support.id, reason: `Ticket 4711: ${PERSONS[0].declared.surname} cannot finish the journey` };

    const noRe = await t.asOperator(admin, 'POST', '/v1/support-access', { body });
    assert.equal(noRe.statusCode, 403);
    assert.equal(errorOf(noRe).code, 'reauth_required');
    assert.equal(errorOf(await t.asOperator(reviewer, 'POST', '/v1/support-access', { body, reauth: true })).code, 'operator_role_insufficient');
    assert.equal(errorOf(await t.asOperator(support, 'POST', '/v1/support-access', { body, reauth: true })).code, 'operator_role_insufficient');
    for (const [bad, field] of [
      [{ ...body, reason: '' }, 'reason'],
      [{ ...body, reason: '   ' }, 'reason'],
      [{ case_id: caseId, operator_id: support.id }, 'reason'],
    ] as const) {
      const res = await t.asOperator(admin, 'POST', '/v1/support-access', { body: bad, reauth: true });
      assert.equal(res.statusCode, 422, JSON.stringify(bad));
      assert.equal(errorOf(res).field, field);
    }
    const notSupport = await t.asOperator(admin, 'POST', '/v1/support-access', { body: { ...body, operator_id: reviewer.id }, reauth: true });
    assert.equal(errorOf(notSupport).code, 'support_account_invalid');
    const waiting = await openCaseFor(t, PERSONS[1]);
    const notInReview = await t.asOperator(admin, 'POST', '/v1/support-access', { body: { ...body, case_id: waiting }, reauth: true });
    assert.equal(notInReview.statusCode, 409);
    assert.equal(errorOf(notInReview).code, 'case_not_in_review');

    const res = await t.asOperator(admin, 'POST', '/v1/support-access', { body, reauth: true });
    assert.equal(res.statusCode, 201, res.body);
    const grant = res.json();
    assert.match(grant.id, /^grt_/);
    assert.equal(grant.status, 'active');
    assert.equal(grant.reason, body.reason);
    assert.equal(grant.granted_by, `op:${admin.id}`);
    assert.equal(Date.parse(grant.expires_at) - Date.parse(grant.created_at), 4 * HOUR);
    const [row] = await queryRows<Record<string, unknown>>(t.database.db, sql`SELECT * FROM support_grants WHERE id = ${grant.id}`);
    assert.equal(JSON.stringify(row).includes('Ticket 4711'), false, 'the reason is sealed');
    const journal = await queryRows<{ action: string; detail: Record<string, unknown> }>(t.database.db, sql`SELECT action, detail FROM case_journal WHERE case_id = ${caseId} AND action LIKE 'support_access.%'`);
    assert.deepEqual(journal.map((j) => [j.action, j.detail.support_grant_id, j.detail.operator_id]), [['support_access.granted', grant.id, support.id]]);
    assert.equal(JSON.stringify(journal).includes('Ticket'), false);
  });

  test('the support account reads only the cases opened to it, each read in the client’s access log; the grant ends at its term', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    const support = await addOperator(t, { role: 'support', name: 'Sam Support' });
    const opened = await caseInReviewWithData(PERSONS[1]);
    const closed = await caseInReviewWithData(PERSONS[2]);
    const granted = await t.asOperator(admin, 'POST', '/v1/support-access', { body: { case_id: opened.caseId, operator_id: support.id, reason: 'Escalated ticket' }, reauth: true });
    assert.equal(granted.statusCode, 201, granted.body);
    const grantId = granted.json().id as string;
    const start = t.clock.now().getTime();

    const mine = (await t.asOperator(support, 'GET', '/v1/reviews/support-access')).json();
    assert.deepEqual(mine.data.map((g: { id: string; case_id: string }) => [g.id, g.case_id]), [[grantId, opened.caseId]]);
    assert.equal(mine.data[0].reason, 'Escalated ticket');

    const record = await t.asOperator(support, 'GET', `/v1/cases/${opened.caseId}/record`);
    assert.equal(record.statusCode, 200, record.body);
    assert.equal(record.body.includes(PERSONS[1].read.document_number), false, 'the record is masked for support too');
    t.clock.advance(1000);
    const unmasked = await t.asOperator(support, 'POST', `/v1/cases/${opened.caseId}/unmask`);
    assert.equal(unmasked.statusCode, 200);
    assert.equal(unmasked.json().values['document.document_number'], PERSONS[1].read.document_number);

    // Nothing else: another case, the queue, the tasks, the grants of the client.
    for (const [method, url] of [
      ['GET', `/v1/cases/${closed.caseId}/record`],
      ['POST', `/v1/cases/${closed.caseId}/unmask`],
      ['POST', `/v1/cases/${closed.caseId}/applicant-data/unmask`],
    ] as const) {
      const res = await t.asOperator(support, method, url);
      assert.equal(res.statusCode, 404, url);
    }
    for (const [method, url] of [
      ['GET', '/v1/reviews'],
      ['GET', `/v1/reviews/${opened.taskId}`],
      ['GET', `/v1/reviews/${opened.taskId}/case`],
      ['POST', `/v1/reviews/${opened.taskId}/unmask`],
      ['POST', `/v1/reviews/${opened.taskId}/claim`],
      ['GET', '/v1/support-access'],
    ] as const) {
      const res = await t.asOperator(support, method, url);
      assert.equal(res.statusCode, 403, url);
      assert.equal(errorOf(res).code, 'operator_role_insufficient');
    }

    // The client sees the provider's reads in the access log.
    const log = (await t.request('GET', `/v1/cases/${opened.caseId}/access-log`)).json();
    const bySupport = log.data.filter((e: { actor: { id: string } }) => e.actor.id === support.id);
    assert.deepEqual(
      bySupport.map((e: { kind: string; via: string; actor: { provider_support: boolean; support_grant_id: string; role: string; name: string } }) => [
        e.kind,
        e.via,
        e.actor.provider_support,
        e.actor.support_grant_id,
        e.actor.role,
        e.actor.name,
      ]),
      [
        ['unmasked', 'identity', true, grantId, 'support', 'Sam Support'],
        ['consulted', 'record', true, grantId, 'support', 'Sam Support'],
      ],
    );

    // The term: readable one second before four hours, not at four hours.
    t.clock.set(new Date(start + 4 * HOUR - 1000));
    assert.equal((await t.asOperator(support, 'GET', `/v1/cases/${opened.caseId}/record`)).statusCode, 200);
    t.clock.set(new Date(start + 4 * HOUR));
    assert.equal((await t.asOperator(support, 'GET', `/v1/cases/${opened.caseId}/record`)).statusCode, 404);
    assert.equal((await t.asOperator(support, 'POST', `/v1/cases/${opened.caseId}/unmask`)).statusCode, 404);
    assert.deepEqual((await t.asOperator(support, 'GET', '/v1/reviews/support-access')).json().data, []);
    const listed = (await t.asOperator(admin, 'GET', '/v1/support-access')).json().data.find((g: { id: string }) => g.id === grantId);
    assert.equal(listed.status, 'expired');
    const late = await t.asOperator(admin, 'POST', `/v1/support-access/${grantId}/revoke`);
    assert.equal(late.statusCode, 409);
    assert.equal(errorOf(late).code, 'support_grant_closed');
  });

  test('revocation closes a grant at once without re-authentication; the list is newest first, for administrators and supervisors', async () => {
    const supervisor = await addOperator(t, { role: 'supervisor' });
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const support = await addOperator(t, { role: 'support' });
    const a = await caseInReviewWithData(PERSONS[0]);
    const b = await caseInReviewWithData(PERSONS[2]);
    const first = (await t.asOperator(supervisor, 'POST', '/v1/support-access', { body: { case_id: a.caseId, operator_id: support.id, reason: 'first' }, reauth: true })).json();
    t.clock.advance(1000);
    const second = (await t.asOperator(supervisor, 'POST', '/v1/support-access', { body: { case_id: b.caseId, operator_id: support.id, reason: 'second' }, reauth: true })).json();
    assert.equal((await t.asOperator(support, 'GET', `/v1/cases/${a.caseId}/record`)).statusCode, 200);

    const revoked = await t.asOperator(supervisor, 'POST', `/v1/support-access/${first.id}/revoke`);
    assert.equal(revoked.statusCode, 200, revoked.body);
    assert.equal(revoked.json().status, 'revoked');
    assert.equal(revoked.json().revoked_by, `op:${supervisor.id}`);
    assert.equal((await t.asOperator(support, 'GET', `/v1/cases/${a.caseId}/record`)).statusCode, 404, 'closed at once');
    assert.equal((await t.asOperator(support, 'GET', `/v1/cases/${b.caseId}/record`)).statusCode, 200, 'the other grant stays');
    assert.equal(errorOf(await t.asOperator(supervisor, 'POST', `/v1/support-access/${first.id}/revoke`)).code, 'support_grant_closed');
    assert.equal((await t.asOperator(supervisor, 'POST', '/v1/support-access/grt_00000000000000000000000000/revoke')).statusCode, 404);
    assert.equal(errorOf(await t.asOperator(reviewer, 'POST', `/v1/support-access/${second.id}/revoke`)).code, 'operator_role_insufficient');

    const page1 = (await t.asOperator(supervisor, 'GET', '/v1/support-access?limit=1')).json();
    assert.deepEqual(page1.data.map((g: { id: string }) => g.id), [second.id], 'newest first');
    assert.equal(page1.has_more, true);
    const page2 = (await t.asOperator(supervisor, 'GET', `/v1/support-access?limit=1&cursor=${page1.next_cursor}`)).json();
    assert.deepEqual(page2.data.map((g: { id: string; status: string }) => [g.id, g.status]), [[first.id, 'revoked']]);
    assert.equal(errorOf(await t.asOperator(reviewer, 'GET', '/v1/support-access')).code, 'operator_role_insufficient');
    // A supervisor cleared for another country sees the grants, not the reasons (free text about cases they cannot read).
    const elsewhere = await addOperator(t, { role: 'supervisor', countries: ['DE'] });
    const theirs = (await t.asOperator(elsewhere, 'GET', '/v1/support-access?limit=100')).json().data;
    const listed = theirs.find((g: { id: string }) => g.id === second.id);
    assert.deepEqual([listed.case_id, listed.reason], [b.caseId, null]);
    assert.equal(page1.data[0].reason, 'second');
  });
});
