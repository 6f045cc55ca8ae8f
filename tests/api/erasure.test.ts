import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { countCaseFaces, queryRows } from '@idv/db';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { addOperator } from '../helpers/operators.ts';
import { PERSONS, journeyThrough, openCaseFor, recordReading, sendToReview, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';

let t: PersonalDataTestApp;
let dataKey: Credentials;
before(async () => {
  t = await startPersonalDataApp();
  dataKey = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data'], name: 'dpo' });
});
after(() => t.close());

const erase = (caseId: string, opts: { key?: Credentials; idempotencyKey?: string } = {}) =>
  t.request('POST', `/v1/cases/${caseId}/erasure`, { signed: true, key: opts.key ?? dataKey, idempotencyKey: opts.idempotencyKey });

function blobFiles(): string[] {
  const root = join(t.dataDir, 'blobs');
  const out: string[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push(p);
    }
  };
  walk(root);
  return out;
}

/** A case decided by operators after review, with everything personal a case can hold. */
async function decidedCase(person = PERSONS[0]) {
  const caseId = await openCaseFor(t, person);
  await journeyThrough(t, caseId, person);
  await recordReading(t, caseId, person.read);
  const taskId = await sendToReview(t, caseId);
  const reviewer = await addOperator(t, { role: 'reviewer' });
  await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/claim`);
  const corrected = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/corrections`, { body: { field: 'subject.surname', value: person.declared.surname } });
  assert.equal(corrected.statusCode, 201, corrected.body);
  const decided = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/decision`, {
    body: { outcome: 'reject', reason_code: 'suspected_fraud', comment: `Photo of ${person.declared.surname} looks pasted` },
  });
  assert.equal(decided.statusCode, 201, decided.body);
  t.clock.advance(1000);
  const supervisor = await addOperator(t, { role: 'supervisor' });
  const revised = await t.asOperator(supervisor, 'POST', `/v1/reviews/${taskId}/revision`, {
    reauth: true,
    body: { outcome: 'approve', comment: `${person.read.document_number} checked with the issuer` },
  });
  assert.equal(revised.statusCode, 201, revised.body);
  t.clock.advance(1000);
  return { caseId, taskId, supervisor };
}

async function counts(caseId: string) {
  const q = async (text: ReturnType<typeof sql>) => Number((await queryRows<{ n: number }>(t.database.db, text))[0].n);
  return {
    journal: await q(sql`SELECT count(*)::int AS n FROM case_journal WHERE case_id = ${caseId}`),
    decisions: await q(sql`SELECT count(*)::int AS n FROM review_decisions WHERE case_id = ${caseId}`),
    revisions: await q(sql`SELECT count(*)::int AS n FROM case_revisions WHERE case_id = ${caseId}`),
    tasks: await q(sql`SELECT count(*)::int AS n FROM review_tasks WHERE case_id = ${caseId}`),
    pieces: await q(sql`SELECT count(*)::int AS n FROM pieces WHERE case_id = ${caseId}`),
    readings: await q(sql`SELECT count(*)::int AS n FROM document_readings WHERE case_id = ${caseId}`),
  };
}

describe('POST /v1/cases/{id}/erasure', () => {
  test('only a closed case: waiting or in review is 409 case_open; the permission personal_data is needed', async () => {
    const waiting = await openCaseFor(t, PERSONS[1]);
    let res = await erase(waiting);
    assert.equal(res.statusCode, 409);
    assert.equal(errorOf(res).code, 'case_open');
    assert.match(errorOf(res).message, /awaiting_applicant/);
    const inReview = await openCaseFor(t, PERSONS[1]);
    await journeyThrough(t, inReview, PERSONS[1]);
    await sendToReview(t, inReview);
    assert.equal(errorOf(await erase(inReview)).code, 'case_open');
    const plain = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['decisions'] });
    res = await erase(inReview, { key: plain });
    assert.equal(errorOf(res).code, 'permission_denied');
    const other = await otherClient(t);
    assert.equal((await erase(inReview, { key: other.key })).statusCode, 404);
    const data = (await t.request('GET', `/v1/cases/${inReview}/data`, { key: dataKey })).json();
    assert.deepEqual(data.entered, PERSONS[1].entered, 'nothing was erased');
  });

  test('erases by category with counts, destroys the keys, keeps case, steps, verdicts, decisions and journal; a replay erases nothing more', async () => {
    const person = PERSONS[0];
    const { caseId, taskId, supervisor } = await decidedCase(person);
    const before = await counts(caseId);
    const [sealedBefore] = await queryRows<{ declared_sealed: string }>(t.database.db, sql`SELECT declared_sealed FROM cases WHERE id = ${caseId}`);
    const blobIds = (await queryRows<{ blob_id: string }>(t.database.db, sql`SELECT blob_id FROM pieces WHERE case_id = ${caseId}`)).map((r) => r.blob_id);
    assert.equal(blobFiles().filter((f) => blobIds.some((b) => f.endsWith(b))).length, 4);
    const caseBefore = (await t.request('GET', `/v1/cases/${caseId}`)).json();
    assert.equal(caseBefore.state, 'approved');

    assert.equal(await countCaseFaces(t.database.db, caseId), 2, 'selfie and portrait in the face search index');

    const idem = randomUUID();
    const res = await erase(caseId, { idempotencyKey: idem });
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.deepEqual(body.erased, {
      images: 4,
      identity_read: 1,
      portraits_and_face_templates: 1,
      declared_data: 1,
      entered_data: 1,
      questionnaire_answers: 1,
      document_fingerprints: 1,
      review_comments: 2,
      corrections: 1,
    });
    assert.equal(body.case_keys_destroyed, 2);
    assert.deepEqual(body.kept, ['case', 'steps', 'verdicts', 'decisions', 'journal']);
    const after = await counts(caseId);
    assert.deepEqual({ ...after, journal: after.journal - 1 }, before, 'one journal entry more (the erasure), nothing else removed');

    // Gone: files, values, keys. The value copied before (as a backup would hold it) no longer opens.
    assert.equal(blobFiles().filter((f) => blobIds.some((b) => f.endsWith(b))).length, 0, 'image files deleted');
    assert.equal(await t.ctx.vault.openJson(t.database.db, caseId, 'data', 'declared', sealedBefore.declared_sealed), null);
    const keys = await queryRows<{ wrapped: string | null; destroyed_at: Date | null }>(t.database.db, sql`SELECT wrapped, destroyed_at FROM case_keys WHERE case_id = ${caseId}`);
    assert.ok(keys.length === 2 && keys.every((k) => k.wrapped === null && k.destroyed_at !== null));
    assert.equal(await countCaseFaces(t.database.db, caseId), 0, 'no vector of the case left in the face search index');
    const data = (await t.request('GET', `/v1/cases/${caseId}/data`, { key: dataKey })).json();
    assert.deepEqual([data.erased, data.declared, data.entered, data.questionnaire?.answers ?? null, data.document?.identity ?? null], [true, null, null, null, null]);

    // Kept: the case and its verdicts, decisions, revisions, tasks, the journal; pieces listed as unavailable.
    const caseAfter = (await t.request('GET', `/v1/cases/${caseId}`)).json();
    assert.deepEqual({ ...caseAfter, pieces: undefined, updated_at: undefined }, { ...caseBefore, pieces: undefined, updated_at: undefined });
    assert.equal(caseAfter.pieces.length, 4);
    assert.ok(caseAfter.pieces.every((p: { available: boolean }) => p.available === false));
    const record = await t.asOperator(supervisor, 'GET', `/v1/cases/${caseId}/record`);
    assert.equal(record.statusCode, 200);
    assert.equal(record.json().decisions.length, 1);
    assert.equal(record.json().revisions.length, 1);
    assert.equal(record.json().subject.erased, true);
    assert.deepEqual(record.json().corrections, []);
    const erasedEntry = (await queryRows<{ actor: string; detail: { case_keys_destroyed: number } }>(
      t.database.db,
      sql`SELECT actor, detail FROM case_journal WHERE case_id = ${caseId} AND action = 'personal_data.erased'`,
    ));
    assert.deepEqual(erasedEntry.map((e) => [e.actor, e.detail.case_keys_destroyed]), [[`key:${dataKey.id}`, 2]]);

    // The event, once, in the same transaction; no personal data in it.
    const events = await queryRows<{ body: string }>(t.database.db, sql`SELECT body FROM webhook_events WHERE object_id = ${caseId} AND type = 'case.personal_data_erased'`);
    assert.equal(events.length, 1);
    assert.deepEqual(JSON.parse(events[0].body).data, {});

    // Same Idempotency-Key: the same answer. A new one: nothing more to erase, no second event.
    const same = await erase(caseId, { idempotencyKey: idem });
    assert.equal(same.headers['idempotent-replayed'], 'true');
    assert.deepEqual(same.json(), body);
    const again = await erase(caseId);
    assert.equal(again.statusCode, 200);
    assert.ok(Object.values(again.json().erased).every((n) => n === 0), again.body);
    assert.equal(again.json().case_keys_destroyed, 0);
    assert.equal((await queryRows(t.database.db, sql`SELECT 1 FROM webhook_events WHERE object_id = ${caseId} AND type = 'case.personal_data_erased'`)).length, 1);

    // No new personal data is accepted for the case: a revision comment is refused, a revision without one is not.
    const refused = await t.asOperator(supervisor, 'POST', `/v1/reviews/${taskId}/revision`, { reauth: true, body: { outcome: 'reject', reason_code: 'suspected_fraud', comment: 'x' } });
    assert.equal(refused.statusCode, 409);
    assert.equal(errorOf(refused).code, 'case_erased');
    const unmasked = (await t.asOperator(supervisor, 'POST', `/v1/cases/${caseId}/unmask`)).json();
    assert.deepEqual([unmasked.erased, unmasked.values], [true, {}]);
    const newKeys = await queryRows(t.database.db, sql`SELECT 1 FROM case_keys WHERE case_id = ${caseId} AND wrapped IS NOT NULL`);
    assert.equal(newKeys.length, 0);
  });

  test('a closed case that never held personal data: zeros, and it can never receive a key afterwards', async () => {
    const caseId = await openCaseFor(t, null);
    await t.database.db.execute(sql`UPDATE cases SET state = 'expired', status = 'expired' WHERE id = ${caseId}`);
    const res = await erase(caseId);
    assert.equal(res.statusCode, 200, res.body);
    assert.ok(Object.values(res.json().erased).every((n) => n === 0));
    assert.equal(res.json().case_keys_destroyed, 0);
    assert.equal(await t.ctx.vault.key(t.database.db, caseId, 'data', t.clock.now()), null, 'tombstones: no key is created after erasure');
  });
});
