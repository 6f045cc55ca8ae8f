import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import type { Credentials } from '../helpers/app.ts';
import { TEST_DB } from '../helpers/database.ts';
import { addOperator } from '../helpers/operators.ts';
import {
  PERSONS,
  journeyImages,
  journeyThrough,
  openCaseFor,
  recordReading,
  sendToReview,
  startPersonalDataApp,
  type Person,
  type PersonalDataTestApp,
} from '../helpers/personal-data.ts';
import { issueKey } from '../helpers/tenants.ts';

/**
 * The proof of encryption at rest: whole cases run through every path that stores personal data
 * (declared at creation, the hosted journey with entered data, answers and images, the document
 * reading, corrections, decision and revision comments, a support grant, unmasks, downloads),
 * then the raw database (every text, bytea, json and jsonb column of every table, found through
 * information_schema) and every file of the blob store are searched for the test persons' names,
 * document numbers, e-mail addresses, birth dates and for pieces of the image bytes. After the
 * erasure of one case, nothing of it can be decrypted any more, while what is kept is intact and
 * the other cases are untouched.
 */

let t: PersonalDataTestApp;
let dataKey: Credentials;
before(async () => {
  t = await startPersonalDataApp();
  dataKey = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data'], name: 'dpo' });
});
after(() => t.close());

/** Every way a person's data could be written in clear: as given, upper case, in MRZ form. */
function needles(p: Person): string[] {
  const words = [
    p.declared.surname,
    p.declared.given_names,
    p.entered.surname,
    p.entered.given_names,
    p.read.surname,
    p.read.given_names,
    p.read.document_number,
    p.declared.birth_date,
    p.read.birth_date,
    ...(p.entered.email ? [p.entered.email] : []),
  ];
  const out = new Set<string>();
  for (const w of words) {
    out.add(w);
    out.add(w.toUpperCase());
    // The longest single name part too (a value split or re-joined would still contain it).
    for (const part of w.split(/[\s<-]+/)) if (part.length >= 5) out.add(part);
  }
  return [...out];
}

/** Pieces of each image, raw, in hex (bytea text form) and in base64 at every alignment. */
function imageNeedles(): { raw: Buffer[]; text: string[] } {
  const raw: Buffer[] = [];
  const text: string[] = [];
  for (const bytes of Object.values(journeyImages())) {
    for (const at of [0, Math.floor(bytes.length / 2), bytes.length - 48]) {
      const chunk = bytes.subarray(at, at + 48);
      raw.push(chunk);
      text.push(chunk.toString('hex'));
      for (const shift of [0, 1, 2]) {
        const b64 = bytes.subarray(at + shift, at + shift + 45).toString('base64');
        text.push(b64, b64.replace(/\+/g, '-').replace(/\//g, '_'));
      }
    }
  }
  return { raw, text };
}

/** Every column that can hold text or bytes, of every table, as information_schema lists them. */
async function databaseText(): Promise<{ columns: number; rows: number; text: string }> {
  const cols = await queryRows<{ table_name: string; column_name: string; data_type: string }>(
    t.database.db,
    sql`SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
        JOIN information_schema.tables tb ON tb.table_schema = c.table_schema AND tb.table_name = c.table_name
        WHERE c.table_schema = 'public' AND tb.table_type = 'BASE TABLE'
          AND c.data_type IN ('text', 'character varying', 'character', 'bytea', 'json', 'jsonb', 'ARRAY', 'USER-DEFINED')
        ORDER BY c.table_name, c.column_name`,
  );
  const parts: string[] = [];
  let rows = 0;
  for (const c of cols) {
    const values = await queryRows<{ v: string | null }>(t.database.db, sql.raw(`SELECT "${c.column_name}"::text AS v FROM "${c.table_name}"`));
    rows += values.length;
    for (const { v } of values) if (v) parts.push(v);
  }
  return { columns: cols.length, rows, text: parts.join('\n') };
}

function blobFiles(): { path: string; bytes: Buffer }[] {
  const out: { path: string; bytes: Buffer }[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else out.push({ path: p, bytes: readFileSync(p) });
    }
  };
  walk(join(t.dataDir, 'blobs'));
  return out;
}

/** A case through everything that stores personal data, then decided and revised (closed). */
async function wholeCase(person: Person) {
  const caseId = await openCaseFor(t, person);
  await journeyThrough(t, caseId, person);
  await recordReading(t, caseId, person.read);
  const taskId = await sendToReview(t, caseId);
  const admin = await addOperator(t, { role: 'administrator' });
  const support = await addOperator(t, { role: 'support' });
  const grant = await t.asOperator(admin, 'POST', '/v1/support-access', {
    reauth: true,
    body: { case_id: caseId, operator_id: support.id, reason: `${person.declared.surname} called about ${person.read.document_number}` },
  });
  assert.equal(grant.statusCode, 201, grant.body);
  assert.equal((await t.asOperator(support, 'POST', `/v1/cases/${caseId}/unmask`)).statusCode, 200);
  const reviewer = await addOperator(t, { role: 'reviewer' });
  await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/claim`);
  const correction = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/corrections`, {
    body: { field: 'subject.document_number', value: person.read.document_number, comment: `${person.read.surname} as printed` },
  });
  assert.equal(correction.statusCode, 201, correction.body);
  const unmasked = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/unmask`);
  assert.equal(unmasked.json().values['document.document_number'], person.read.document_number, 'the data is really there to be found');
  const pieces = (await t.request('GET', `/v1/cases/${caseId}`)).json().pieces as { id: string }[];
  for (const p of pieces) assert.equal((await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}/pieces/${p.id}`)).statusCode, 200);
  assert.equal((await t.request('GET', `/v1/cases/${caseId}/data`, { key: dataKey })).statusCode, 200);
  const decided = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/decision`, {
    body: { outcome: 'reject', reason_code: 'suspected_fraud', comment: `${person.declared.given_names} ${person.declared.surname}: photo pasted` },
  });
  assert.equal(decided.statusCode, 201, decided.body);
  t.clock.advance(1000);
  const supervisor = await addOperator(t, { role: 'supervisor' });
  const revised = await t.asOperator(supervisor, 'POST', `/v1/reviews/${taskId}/revision`, {
    reauth: true,
    body: { outcome: 'approve', comment: `${person.read.document_number} confirmed by the issuer for ${person.entered.surname}` },
  });
  assert.equal(revised.statusCode, 201, revised.body);
  t.clock.advance(1000);
  return { caseId, taskId, supervisor };
}

/** Every sealed value a case holds, copied as a backup would hold it. */
async function sealedValuesOf(caseId: string): Promise<{ where: string; keyClass: 'data' | 'biometric'; purpose: string; sealed: string }[]> {
  const out: { where: string; keyClass: 'data' | 'biometric'; purpose: string; sealed: string }[] = [];
  const one = async (query: ReturnType<typeof sql>) => queryRows<Record<string, string | number | null>>(t.database.db, query);
  for (const r of await one(sql`SELECT declared_sealed AS s FROM cases WHERE id = ${caseId}`)) if (r.s) out.push({ where: 'declared', keyClass: 'data', purpose: 'declared', sealed: String(r.s) });
  for (const r of await one(sql`SELECT applicant_sealed AS a, answers_sealed AS q FROM journeys WHERE case_id = ${caseId}`)) {
    if (r.a) out.push({ where: 'entered', keyClass: 'data', purpose: 'applicant', sealed: String(r.a) });
    if (r.q) out.push({ where: 'answers', keyClass: 'data', purpose: 'answers', sealed: String(r.q) });
  }
  for (const r of await one(sql`SELECT round, fields_sealed AS f, face_templates_sealed AS ft FROM document_readings WHERE case_id = ${caseId}`)) {
    if (r.f) out.push({ where: 'reading', keyClass: 'data', purpose: `document_reading:${r.round}`, sealed: String(r.f) });
    if (r.ft) out.push({ where: 'templates', keyClass: 'biometric', purpose: `face_templates:${r.round}`, sealed: String(r.ft) });
  }
  for (const r of await one(sql`SELECT id, comment_sealed AS s FROM review_decisions WHERE case_id = ${caseId}`)) if (r.s) out.push({ where: 'decision comment', keyClass: 'data', purpose: `review_decision:${r.id}:comment`, sealed: String(r.s) });
  for (const r of await one(sql`SELECT id, comment_sealed AS s FROM case_revisions WHERE case_id = ${caseId}`)) if (r.s) out.push({ where: 'revision comment', keyClass: 'data', purpose: `case_revision:${r.id}:comment`, sealed: String(r.s) });
  for (const r of await one(sql`SELECT id, sealed AS s FROM review_corrections WHERE case_id = ${caseId}`)) out.push({ where: 'correction', keyClass: 'data', purpose: `review_correction:${r.id}`, sealed: String(r.s) });
  for (const r of await one(sql`SELECT id, reason_sealed AS s FROM support_grants WHERE case_id = ${caseId}`)) if (r.s) out.push({ where: 'grant reason', keyClass: 'data', purpose: `support_grant:${r.id}:reason`, sealed: String(r.s) });
  return out;
}

describe(`personal data at rest on ${TEST_DB}`, () => {
  test('whole cases: no name, number, e-mail, birth date or image bytes in clear in any column of any table nor in the blob store; after erasure nothing of the case decrypts and the kept records are intact', async () => {
    const cases = [];
    for (const person of PERSONS) cases.push({ person, ...(await wholeCase(person)) });

    // 1. The raw database and the blob store.
    const db = await databaseText();
    assert.ok(db.columns >= 60 && db.rows > 200, `scanned ${db.columns} columns, ${db.rows} values`);
    // Control: the scan does read the values (the client's own reference is stored in clear, by design).
    const [{ external_ref: ref }] = await queryRows<{ external_ref: string }>(t.database.db, sql`SELECT external_ref FROM cases WHERE id = ${cases[0].caseId}`);
    assert.ok(db.text.includes(ref) && db.text.includes(cases[0].caseId), 'the scan sees clear values');
    const images = imageNeedles();
    const hits: string[] = [];
    for (const person of PERSONS) for (const n of needles(person)) if (db.text.includes(n)) hits.push(`database: ${n}`);
    for (const n of images.text) if (db.text.includes(n)) hits.push(`database: image bytes ${n.slice(0, 12)}…`);
    const files = blobFiles();
    assert.equal(files.length, PERSONS.length * 4, 'one blob per piece');
    for (const f of files) {
      const asText = f.bytes.toString('latin1');
      for (const person of PERSONS) for (const n of needles(person)) if (asText.includes(n) || f.bytes.includes(Buffer.from(n))) hits.push(`blob ${f.path}: ${n}`);
      for (const chunk of images.raw) if (f.bytes.includes(chunk)) hits.push(`blob ${f.path}: image bytes in clear`);
    }
    assert.deepEqual(hits, [], 'zero hits in clear');

    // 2. Erase the first case. Take the copy a backup would hold first.
    const [first, second] = cases;
    const backup = await sealedValuesOf(first.caseId);
    assert.ok(backup.length >= 9, `every kind of sealed value present before erasure (${backup.map((b) => b.where).join(', ')})`);
    const blobsOfFirst = (await queryRows<{ id: string; blob_id: string; key_class: 'data' | 'biometric' }>(t.database.db, sql`SELECT id, blob_id, key_class FROM pieces WHERE case_id = ${first.caseId}`));
    const blobBackup = await Promise.all(blobsOfFirst.map(async (b) => ({ ...b, sealed: (await t.ctx.blobs.get(b.blob_id))! })));
    const keptBefore = await queryRows<Record<string, unknown>>(
      t.database.db,
      sql`SELECT c.state, c.status, c.decision, c.checks, c.external_ref,
                 (SELECT count(*)::int FROM review_decisions d WHERE d.case_id = c.id) AS decisions,
                 (SELECT count(*)::int FROM case_revisions r WHERE r.case_id = c.id) AS revisions,
                 (SELECT count(*)::int FROM review_tasks k WHERE k.case_id = c.id) AS tasks,
                 (SELECT count(*)::int FROM case_journal j WHERE j.case_id = c.id) AS journal,
                 (SELECT count(*)::int FROM pieces p WHERE p.case_id = c.id) AS pieces,
                 (SELECT questionnaire_score::text FROM journeys j WHERE j.case_id = c.id) AS score
          FROM cases c WHERE c.id = ${first.caseId}`,
    );
    const erased = await t.request('POST', `/v1/cases/${first.caseId}/erasure`, { signed: true, key: dataKey });
    assert.equal(erased.statusCode, 200, erased.body);

    // Nothing of the first case decrypts any more: not what is left in the database, not the backup copy, not the blobs.
    for (const v of backup) {
      assert.equal(await t.ctx.vault.openJson(t.database.db, first.caseId, v.keyClass, v.purpose, v.sealed), null, `${v.where} still opens`);
    }
    for (const b of blobBackup) {
      assert.equal(await t.ctx.vault.existingKey(t.database.db, first.caseId, b.key_class), null, `the ${b.key_class} key of ${b.id} is gone`);
      assert.equal(await t.ctx.blobs.get(b.blob_id), null, 'the blob file is deleted');
    }
    assert.deepEqual(await sealedValuesOf(first.caseId), [], 'no sealed value left for the case');

    // What is kept is intact (one more journal entry: the erasure itself).
    const keptAfter = await queryRows<Record<string, unknown>>(
      t.database.db,
      sql`SELECT c.state, c.status, c.decision, c.checks, c.external_ref,
                 (SELECT count(*)::int FROM review_decisions d WHERE d.case_id = c.id) AS decisions,
                 (SELECT count(*)::int FROM case_revisions r WHERE r.case_id = c.id) AS revisions,
                 (SELECT count(*)::int FROM review_tasks k WHERE k.case_id = c.id) AS tasks,
                 (SELECT count(*)::int FROM case_journal j WHERE j.case_id = c.id) AS journal,
                 (SELECT count(*)::int FROM pieces p WHERE p.case_id = c.id) AS pieces,
                 (SELECT questionnaire_score::text FROM journeys j WHERE j.case_id = c.id) AS score
          FROM cases c WHERE c.id = ${first.caseId}`,
    );
    assert.deepEqual({ ...keptAfter[0], journal: Number(keptAfter[0].journal) - 1 }, { ...keptBefore[0], journal: Number(keptBefore[0].journal) });
    const data = (await t.request('GET', `/v1/cases/${first.caseId}/data`, { key: dataKey })).json();
    assert.deepEqual([data.erased, data.declared, data.entered, data.questionnaire?.answers ?? null, data.document?.identity ?? null], [true, null, null, null, null]);
    const record = (await t.asOperator(first.supervisor, 'GET', `/v1/cases/${first.caseId}/record`)).json();
    assert.equal(record.case.state, 'approved');
    assert.equal(record.decisions.length, 1);
    assert.equal(record.revisions.length, 1);

    // The other cases are untouched and still decrypt.
    const other = (await t.request('GET', `/v1/cases/${second.caseId}/data`, { key: dataKey })).json();
    assert.deepEqual(other.declared, second.person.declared);
    assert.equal(other.document.identity.document_number, second.person.read.document_number);
    const otherPiece = (await t.request('GET', `/v1/cases/${second.caseId}`)).json().pieces[0];
    const image = await t.request('GET', `/v1/cases/${second.caseId}/images/${otherPiece.id}`, { key: dataKey });
    assert.equal(image.statusCode, 200);

    // And still nothing in clear anywhere.
    const again = await databaseText();
    for (const person of PERSONS) for (const n of needles(person)) assert.equal(again.text.includes(n), false, `database after erasure: ${n}`);
  });
});
