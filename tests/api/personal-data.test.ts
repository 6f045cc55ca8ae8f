import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import { errorOf } from '../helpers/app.ts';
import { addOperator } from '../helpers/operators.ts';
import { PERSONS, journeyThrough, openCaseFor, recordReading, sendToReview, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';
import type { Credentials } from '../helpers/app.ts';

let t: PersonalDataTestApp;
let dataKey: Credentials;
before(async () => {
  t = await startPersonalDataApp();
  dataKey = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data'], name: 'dpo' });
});
after(() => t.close());

const MIN = 60_000;

async function journal(caseId: string): Promise<{ id: string; actor: string; action: string; detail: Record<string, unknown> }[]> {
  return queryRows(t.database.db, sql`SELECT id, actor, action, detail FROM case_journal WHERE case_id = ${caseId} ORDER BY id`);
}

/** A whole case: declared at creation, the journey, the document read, in review. */
async function fullCase(person = PERSONS[0]) {
  const caseId = await openCaseFor(t, person);
  await journeyThrough(t, caseId, person);
  await recordReading(t, caseId, person.read);
  const taskId = await sendToReview(t, caseId);
  return { caseId, taskId };
}

describe('GET /v1/cases/{id}/data', () => {
  test('everything personal, with the gap computed by the service; never cached; journaled as a consultation', async () => {
    const person = PERSONS[0];
    const { caseId } = await fullCase(person);
    const res = await t.request('GET', `/v1/cases/${caseId}/data`, { key: dataKey });
    assert.equal(res.statusCode, 200, res.body);
    assert.equal(res.headers['cache-control'], 'no-store');
    const data = res.json();
    assert.equal(data.object, 'case_data');
    assert.equal(data.erased, false);
    assert.deepEqual(data.declared, person.declared);
    assert.deepEqual(data.entered, person.entered);
    assert.deepEqual(data.questionnaire, { answers: { source_of_funds: 'inheritance', politically_exposed: 'yes' }, points: 60, flags: ['pep'] });
    assert.deepEqual(data.document.identity, person.read);
    assert.equal(data.document.zone_agreement.surname, 'agree');
    // Müller-Lüdenscheidt / MUELLER<LUEDENSCHEIDT and Jörg Friedrich / JOERG<FRIEDRICH agree once normalised.
    assert.deepEqual(
      data.gap.map((g: { field: string; status: string }) => [g.field, g.status]),
      [
        ['surname', 'match'],
        ['given_names', 'match'],
        ['birth_date', 'match'],
        ['nationality', 'missing'],
      ],
    );
    const entries = (await journal(caseId)).filter((j) => j.action === 'personal_data.consulted');
    assert.deepEqual(entries.map((j) => [j.actor, j.detail.via]), [[`key:${dataKey.id}`, 'data']]);
    assert.equal(JSON.stringify(entries).includes('ller'), false, 'the journal carries no value');
  });

  test('a key without personal_data is refused before anything is read or journaled; another client’s case is not found', async () => {
    const caseId = await openCaseFor(t, PERSONS[1]);
    const plain = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['decisions'] });
    const res = await t.request('GET', `/v1/cases/${caseId}/data`, { key: plain });
    assert.equal(res.statusCode, 403);
    assert.equal(errorOf(res).code, 'permission_denied');
    assert.equal((await journal(caseId)).some((j) => j.action === 'personal_data.consulted'), false);
    const other = await otherClient(t);
    const hidden = await t.request('GET', `/v1/cases/${caseId}/data`, { key: other.key });
    assert.equal(hidden.statusCode, 404);
    assert.equal(errorOf(hidden).code, 'resource_not_found');
  });

  test('a case with only declared data: the rest is null, the gap says what is missing', async () => {
    const caseId = await openCaseFor(t, PERSONS[2]);
    const data = (await t.request('GET', `/v1/cases/${caseId}/data`, { key: dataKey })).json();
    assert.deepEqual([data.entered, data.questionnaire, data.document], [null, null, null]);
    assert.deepEqual(data.declared, PERSONS[2].declared);
    assert.ok(data.gap.every((g: { status: string; missing: string[] }) => g.status === 'missing' && g.missing[0].startsWith('document.')));
  });
});

describe('masked by default', () => {
  test('the case screen, the record, the case and its results carry paths and the gap, never a value', async () => {
    const person = PERSONS[1];
    const { caseId, taskId } = await fullCase(person);
    const op = await addOperator(t, { role: 'reviewer' });
    const screen = await t.asOperator(op, 'GET', `/v1/reviews/${taskId}/case`);
    assert.equal(screen.statusCode, 200, screen.body);
    const subject = screen.json().subject;
    assert.deepEqual(subject.read_fields, ['document.birth_date', 'document.document_number', 'document.given_names', 'document.nationality', 'document.surname']);
    assert.deepEqual(subject.entered_fields, ['entered.birth_date', 'entered.given_names', 'entered.surname']);
    assert.deepEqual(
      subject.comparison.map((g: { field: string; status: string }) => [g.field, g.status]),
      [
        ['surname', 'match'],
        ['given_names', 'match'],
        ['birth_date', 'mismatch'],
        ['nationality', 'missing'],
      ],
    );
    const record = await t.asOperator(op, 'GET', `/v1/cases/${caseId}/record`);
    const reads = [screen.body, record.body, (await t.request('GET', `/v1/cases/${caseId}`)).body, (await t.request('GET', `/v1/cases/${caseId}/results`)).body];
    for (const body of reads) {
      for (const value of [person.declared.surname, person.read.surname, person.read.document_number, person.read.birth_date, person.entered.surname, 'inheritance']) {
        assert.equal(body.includes(value), false, `${value} shown without an unmask`);
      }
    }
  });
});

describe('unmask', () => {
  test('the review station reveals everything with the gap; field_path narrows it; journaled with the path, never the value', async () => {
    const person = PERSONS[0];
    const { caseId, taskId } = await fullCase(person);
    const op = await addOperator(t, { role: 'reviewer' });
    await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/claim`);
    const corrected = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/corrections`, { body: { field: 'subject.document_number', value: 'C4J7K2P9Y' } });
    assert.equal(corrected.statusCode, 201, corrected.body);

    const all = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/unmask`);
    assert.equal(all.statusCode, 200, all.body);
    const body = all.json();
    assert.equal(body.scope, 'review');
    assert.equal(body.task_id, taskId);
    assert.equal(body.values['declared.surname'], person.declared.surname);
    assert.equal(body.values['entered.email'], person.entered.email);
    assert.equal(body.values['document.document_number'], person.read.document_number);
    assert.equal(body.values['corrected.subject.document_number'], 'C4J7K2P9Y');
    assert.equal(body.values['answers.politically_exposed'], 'yes');
    assert.deepEqual(body.questionnaire, { points: 60, flags: ['pep'] });
    assert.equal(body.gap.find((g: { field: string }) => g.field === 'surname').status, 'match');

    t.clock.advance(1000);
    const one = (await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/unmask?field_path=document.surname`)).json();
    assert.deepEqual(one.values, { 'document.surname': person.read.surname });
    assert.equal(one.field_path, 'document.surname');
    t.clock.advance(1000);
    const source = (await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/unmask?field_path=declared`)).json();
    assert.deepEqual(Object.keys(source.values).sort(), ['declared.birth_date', 'declared.given_names', 'declared.surname']);
    for (const bad of ['surname', 'document.', 'passwords.x', 'document.Surname']) {
      const res = await t.asOperator(op, 'POST', `/v1/reviews/${taskId}/unmask?field_path=${encodeURIComponent(bad)}`);
      assert.equal(res.statusCode, 422, bad);
      assert.equal(errorOf(res).field, 'field_path');
    }
    const unmasks = (await journal(caseId)).filter((j) => j.action === 'personal_data.unmasked');
    assert.deepEqual(
      unmasks.map((j) => [j.actor, j.detail.via, j.detail.task_id, j.detail.field_path ?? null, j.detail.role]),
      [
        [`op:${op.id}`, 'review', taskId, null, 'reviewer'],
        [`op:${op.id}`, 'review', taskId, 'document.surname', 'reviewer'],
        [`op:${op.id}`, 'review', taskId, 'declared', 'reviewer'],
      ],
    );
    assert.equal(JSON.stringify(await journal(caseId)).includes('MUELLER'), false);
  });

  test('case routes: identity read, questionnaire answers, entered beside declared', async () => {
    const person = PERSONS[2];
    const { caseId } = await fullCase(person);
    const op = await addOperator(t, { role: 'supervisor' });
    const identity = (await t.asOperator(op, 'POST', `/v1/cases/${caseId}/unmask`)).json();
    t.clock.advance(1000);
    assert.equal(identity.scope, 'identity');
    assert.deepEqual(Object.keys(identity.values).sort(), ['document.birth_date', 'document.document_number', 'document.given_names', 'document.nationality', 'document.surname']);
    assert.equal(identity.gap.find((g: { field: string }) => g.field === 'given_names').status, 'match', 'Hannelore declared, HANNELORE read');
    assert.equal(identity.gap.find((g: { field: string }) => g.field === 'surname').status, 'match', 'Strauß declared, STRAUSS read');
    const answers = (await t.asOperator(op, 'POST', `/v1/cases/${caseId}/questionnaires/unmask`)).json();
    t.clock.advance(1000);
    assert.deepEqual(answers.values, { 'answers.source_of_funds': 'inheritance', 'answers.politically_exposed': 'yes' });
    assert.deepEqual(answers.gap, []);
    const applicant = (await t.asOperator(op, 'POST', `/v1/cases/${caseId}/applicant-data/unmask`)).json();
    assert.equal(applicant.values['entered.given_names'], 'Hanne');
    assert.equal(applicant.values['declared.given_names'], 'Hannelore');
    assert.deepEqual(
      applicant.gap.map((g: { field: string; status: string; paths: string[] }) => [g.field, g.status, g.paths]),
      [
        ['surname', 'match', ['entered.surname', 'declared.surname']],
        ['given_names', 'mismatch', ['entered.given_names', 'declared.given_names']],
        ['birth_date', 'match', ['entered.birth_date', 'declared.birth_date']],
      ],
    );
    assert.deepEqual(
      (await journal(caseId)).filter((j) => j.action === 'personal_data.unmasked').map((j) => j.detail.via),
      ['identity', 'questionnaire', 'applicant_data'],
    );
  });

  test('outside the clearance, for another client, or a support account without a grant: 404, nothing journaled', async () => {
    const caseId = await openCaseFor(t, PERSONS[0], 'FR');
    const de = await addOperator(t, { role: 'reviewer', countries: ['DE'] });
    const support = await addOperator(t, { role: 'support' });
    for (const op of [de, support]) {
      for (const path of ['unmask', 'questionnaires/unmask', 'applicant-data/unmask']) {
        const res = await t.asOperator(op, 'POST', `/v1/cases/${caseId}/${path}`);
        assert.equal(res.statusCode, 404, `${op.role} ${path}: ${res.body}`);
      }
    }
    const taskId = await sendToReview(t, await (async () => {
      const id = await openCaseFor(t, PERSONS[1], 'FR');
      await journeyThrough(t, id, PERSONS[1]);
      return id;
    })());
    const supportOnTask = await t.asOperator(support, 'POST', `/v1/reviews/${taskId}/unmask`);
    assert.equal(supportOnTask.statusCode, 403, 'the review station is not the support desk');
    assert.equal(errorOf(supportOnTask).code, 'operator_role_insufficient');
    assert.equal((await journal(caseId)).some((j) => j.action === 'personal_data.unmasked'), false);
  });

  test('journal first: when the journal write fails, nothing is revealed and nothing is counted', async () => {
    const { caseId, taskId } = await fullCase(PERSONS[0]);
    const op = await addOperator(t, { role: 'reviewer' });
    await t.database.db.execute(sql`
      CREATE OR REPLACE FUNCTION test_refuse_unmask_journal() RETURNS trigger AS $$
      BEGIN
        IF NEW.action = 'personal_data.unmasked' THEN RAISE EXCEPTION 'journal refused by the test'; END IF;
        RETURN NEW;
      END $$ LANGUAGE plpgsql`);
    await t.database.db.execute(sql`CREATE TRIGGER test_refuse_unmask BEFORE INSERT ON case_journal FOR EACH ROW EXECUTE FUNCTION test_refuse_unmask_journal()`);
    try {
      for (const url of [`/v1/reviews/${taskId}/unmask`, `/v1/cases/${caseId}/unmask`, `/v1/cases/${caseId}/applicant-data/unmask`]) {
        const res = await t.asOperator(op, 'POST', url);
        assert.equal(res.statusCode, 500, url);
        assert.equal(errorOf(res).code, 'internal_error');
        for (const value of [PERSONS[0].read.document_number, PERSONS[0].declared.surname, PERSONS[0].entered.email!]) {
          assert.equal(res.body.includes(value), false, `${url} revealed ${value}`);
        }
      }
      const counted = await queryRows(t.database.db, sql`SELECT 1 FROM operator_unmasks WHERE operator_id = ${op.id}`);
      assert.equal(counted.length, 0, 'the counter rolled back with the journal');
    } finally {
      await t.database.db.execute(sql`DROP TRIGGER test_refuse_unmask ON case_journal`);
      await t.database.db.execute(sql`DROP FUNCTION test_refuse_unmask_journal()`);
    }
    const res = await t.asOperator(op, 'POST', `/v1/cases/${caseId}/unmask`);
    assert.equal(res.statusCode, 200, 'with the journal working again, the unmask goes through');
  });
});

describe('the hourly unmask counter', () => {
  test('twenty distinct cases an hour over every unmask route; the 21st needs a re-authentication; the window slides on the clock', async () => {
    const op = await addOperator(t, { role: 'administrator' });
    const cases: string[] = [];
    for (let i = 0; i < 22; i++) cases.push(await openCaseFor(t, PERSONS[i % PERSONS.length]));
    const routes = ['unmask', 'questionnaires/unmask', 'applicant-data/unmask'];
    for (let i = 0; i < 20; i++) {
      const res = await t.asOperator(op, 'POST', `/v1/cases/${cases[i]}/${routes[i % 3]}`);
      assert.equal(res.statusCode, 200, `case ${i + 1}: ${res.body}`);
      t.clock.advance(1000);
    }
    // The 21st distinct case, whichever route, without re-authentication.
    for (const route of routes) {
      const refused = await t.asOperator(op, 'POST', `/v1/cases/${cases[20]}/${route}`);
      assert.equal(refused.statusCode, 403, route);
      assert.equal(errorOf(refused).code, 'reauth_required');
      assert.match(errorOf(refused).message, /20 other cases/);
    }
    assert.equal((await journal(cases[20])).some((j) => j.action === 'personal_data.unmasked'), false, 'a refused unmask is not journaled');
    // A case already unmasked this hour is not another case.
    assert.equal((await t.asOperator(op, 'POST', `/v1/cases/${cases[3]}/unmask`)).statusCode, 200);
    // A stale re-authentication does not count; a fresh one does.
    const stale = await t.asOperator(op, 'POST', `/v1/cases/${cases[20]}/unmask`, {
      headers: { 'x-service-reauthenticated-at': await t.idp.idToken(op.subject!, t.nowS() - 600) },
    });
    assert.equal(stale.statusCode, 403);
    assert.equal(errorOf(stale).code, 'reauth_required');
    const forged = await t.asOperator(op, 'POST', `/v1/cases/${cases[20]}/unmask`, { headers: { 'x-service-reauthenticated-at': await t.idp.forgedToken(op.subject!, t.nowS()) } });
    assert.equal(errorOf(forged).code, 'reauth_invalid');
    const fresh = await t.asOperator(op, 'POST', `/v1/cases/${cases[20]}/unmask`, { reauth: true });
    assert.equal(fresh.statusCode, 200, fresh.body);
    const entry = (await journal(cases[20])).find((j) => j.action === 'personal_data.unmasked')!;
    assert.equal(entry.detail.reauthenticated, true);
    // 21 cases counted now: the 22nd needs it too, on the review station as well.
    assert.equal(errorOf(await t.asOperator(op, 'POST', `/v1/cases/${cases[21]}/applicant-data/unmask`)).code, 'reauth_required');
    // An hour after the first unmasks they leave the window.
    t.clock.advance(60 * MIN - 15_000);
    const later = await t.asOperator(op, 'POST', `/v1/cases/${cases[21]}/applicant-data/unmask`);
    assert.equal(later.statusCode, 200, later.body);
    // Another operator has a counter of their own.
    const colleague = await addOperator(t, { role: 'reviewer' });
    assert.equal((await t.asOperator(colleague, 'POST', `/v1/cases/${cases[0]}/unmask`)).statusCode, 200);
  });
});

describe('GET /v1/cases/{id}/access-log', () => {
  test('who consulted, unmasked or downloaded what and when, newest first, paged; client-level', async () => {
    const { caseId, taskId } = await fullCase(PERSONS[2]);
    const reviewer = await addOperator(t, { role: 'reviewer', name: 'Rita Reviewer' });
    await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/case`);
    t.clock.advance(1000);
    await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/unmask?field_path=document.surname`);
    t.clock.advance(1000);
    await t.request('GET', `/v1/cases/${caseId}/data`, { key: dataKey });
    t.clock.advance(1000);
    await t.asOperator(reviewer, 'GET', `/v1/cases/${caseId}/record`);

    const res = await t.request('GET', `/v1/cases/${caseId}/access-log`);
    assert.equal(res.statusCode, 200, res.body);
    const log = res.json();
    assert.equal(log.object, 'list');
    assert.deepEqual(
      log.data.map((e: { kind: string; via: string; actor: { type: string; id: string } }) => [e.kind, e.via, e.actor.type, e.actor.id]),
      [
        ['consulted', 'record', 'operator', reviewer.id],
        ['consulted', 'data', 'key', dataKey.id],
        ['unmasked', 'review', 'operator', reviewer.id],
        ['consulted', 'review', 'operator', reviewer.id],
      ],
    );
    const unmasked = log.data[2];
    assert.deepEqual(unmasked.what, ['document.surname']);
    assert.deepEqual(unmasked.actor, { type: 'operator', id: reviewer.id, name: 'Rita Reviewer', role: 'reviewer', provider_support: false, support_grant_id: null });
    assert.equal(res.body.includes(PERSONS[2].read.surname), false);
    assert.equal((await journal(caseId)).some((j) => j.action === 'case.created'), true, 'other journal entries exist but are not accesses');

    const first = (await t.request('GET', `/v1/cases/${caseId}/access-log?limit=3`)).json();
    assert.equal(first.has_more, true);
    const second = (await t.request('GET', `/v1/cases/${caseId}/access-log?limit=3&cursor=${first.next_cursor}`)).json();
    assert.deepEqual([...first.data, ...second.data].map((e: { id: string }) => e.id), log.data.map((e: { id: string }) => e.id));
    assert.equal(second.has_more, false);

    const other = await otherClient(t);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}/access-log`, { key: other.key })).statusCode, 404);
    assert.equal((await t.request('GET', `/v1/cases/${caseId}/access-log?limit=0`)).statusCode, 422);
  });
});
