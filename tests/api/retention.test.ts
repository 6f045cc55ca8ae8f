import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { countCaseFaces, queryRows } from '@idv/db';
import { RetentionSweeper } from '@idv/worker';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { STANDARD_WITH_STILLS, activateFlow } from '../helpers/journey.ts';
import { PERSONS, journeyThrough, openCaseFor, recordReading, sendToReview, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';
import { issueKey } from '../helpers/tenants.ts';

let t: PersonalDataTestApp;
let dataKey: Credentials;
let sweeper: RetentionSweeper;
const DAY = 24 * 3_600_000;
const quiet = { info() {}, warn() {}, error() {} };

before(async () => {
  t = await startPersonalDataApp();
  dataKey = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data', 'decisions'], name: 'retention' });
  // A flow of its own: images kept 2 days, data 10 days after the case closed.
  await activateFlow(t, t.tenant.clientId, 'sandbox', 'short', { ...STANDARD_WITH_STILLS, retention: { images_days: 2, data_days: 10 } });
  sweeper = new RetentionSweeper({ db: t.database.db, blobs: t.ctx.blobs, log: quiet, now: t.clock.now, batchSize: 3 });
});
after(() => t.close());

async function decidedCase(flow: string) {
  const person = PERSONS[2];
  const created = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: flow, country: 'FR', declared: person.declared } });
  assert.equal(created.statusCode, 201, created.body);
  const caseId = created.json().id as string;
  await journeyThrough(t, caseId, person);
  await recordReading(t, caseId, person.read);
  await sendToReview(t, caseId);
  const decided = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, key: dataKey, body: { outcome: 'approve' } });
  assert.equal(decided.statusCode, 201, decided.body);
  return caseId;
}

const pieces = async (caseId: string) => (await t.request('GET', `/v1/cases/${caseId}`)).json().pieces as { id: string; available: boolean }[];
const blobsOf = async (caseId: string) => queryRows<{ blob_id: string }>(t.database.db, sql`SELECT blob_id FROM pieces WHERE case_id = ${caseId}`);

describe('retention per flow, applied by the worker', () => {
  test('stored idempotent responses are purged once past their retention, not before', async () => {
    const created = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(created.statusCode, 201, created.body);
    const stored = async () => (await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM idempotency_keys`))[0].n;
    const before = await stored();
    assert.ok(before >= 1);
    await sweeper.sweep();
    assert.equal(await stored(), before, 'kept within 24 hours');
    t.clock.advance(DAY + 1000);
    await sweeper.sweep();
    assert.equal(await stored(), 0);
    t.clock.advance(-(DAY + 1000));
  });

  test('images go images_days after the case closed, personal data data_days after; open cases and other flows are untouched', async () => {
    const short = await decidedCase('short');
    const standard = await decidedCase('standard');
    const open = await openCaseFor(t, PERSONS[0]);
    await journeyThrough(t, open, PERSONS[0]);
    await sendToReview(t, open);
    const closedAt = t.clock.now().getTime();

    t.clock.set(new Date(closedAt + 2 * DAY - 60_000));
    assert.deepEqual(await sweeper.sweep(), { images_deleted: 0, cases_erased: 0 }, 'not yet');

    t.clock.set(new Date(closedAt + 2 * DAY + 60_000));
    assert.deepEqual(await sweeper.sweep(), { images_deleted: 4, cases_erased: 0 }, 'the four images of the short-flow case, in batches of three');
    assert.ok((await pieces(short)).every((p) => !p.available), 'pieces[].available turned false');
    assert.ok((await pieces(standard)).every((p) => p.available), 'the standard flow keeps images 30 days');
    assert.ok((await pieces(open)).every((p) => p.available), 'an open case keeps its images');
    for (const { blob_id } of await blobsOf(short)) assert.equal(await t.ctx.blobs.get(blob_id), null, 'blob deleted');
    const gone = await t.request('GET', `/v1/cases/${short}/images/${(await pieces(short))[0].id}`, { key: dataKey });
    assert.equal(errorOf(gone).code, 'piece_unavailable');
    const journal = await queryRows<{ actor: string; detail: { pieces: string[] } }>(t.database.db, sql`SELECT actor, detail FROM case_journal WHERE case_id = ${short} AND action = 'retention.images_deleted'`);
    assert.equal(journal.reduce((n, j) => n + j.detail.pieces.length, 0), 4, 'each deletion journaled on its case');
    assert.ok(journal.every((j) => j.actor === 'system'));
    const data = (await t.request('GET', `/v1/cases/${short}/data`, { key: dataKey })).json();
    assert.deepEqual(data.declared, PERSONS[2].declared, 'the other personal data stays until data_days');
    assert.deepEqual(await sweeper.sweep(), { images_deleted: 0, cases_erased: 0 }, 'a second pass finds nothing');

    assert.equal(await countCaseFaces(t.database.db, short), 2, 'face templates searchable until data_days');
    t.clock.set(new Date(closedAt + 10 * DAY + 60_000));
    assert.deepEqual(await sweeper.sweep(), { images_deleted: 0, cases_erased: 1 });
    assert.equal(await countCaseFaces(t.database.db, short), 0, 'no vector of the case left in the face search index');
    assert.equal(await countCaseFaces(t.database.db, standard), 2, 'the other case still searchable');
    const erased = (await t.request('GET', `/v1/cases/${short}/data`, { key: dataKey })).json();
    assert.deepEqual([erased.erased, erased.declared, erased.entered], [true, null, null]);
    const entry = await queryRows<{ actor: string; detail: { reason: string } }>(t.database.db, sql`SELECT actor, detail FROM case_journal WHERE case_id = ${short} AND action = 'personal_data.erased'`);
    assert.deepEqual(entry.map((e) => [e.actor, e.detail.reason]), [['system', 'retention']]);
    const events = await queryRows(t.database.db, sql`SELECT 1 FROM webhook_events WHERE object_id = ${short} AND type = 'case.personal_data_erased'`);
    assert.equal(events.length, 1);
    assert.equal((await t.request('GET', `/v1/cases/${standard}/data`, { key: dataKey })).json().erased, false);

    // Thirty days: the standard flow's images; 365 days: its data. The open case keeps everything.
    t.clock.set(new Date(closedAt + 30 * DAY + 60_000));
    assert.deepEqual(await sweeper.sweep(), { images_deleted: 4, cases_erased: 0 });
    t.clock.set(new Date(closedAt + 365 * DAY + 60_000));
    assert.deepEqual(await sweeper.sweep(), { images_deleted: 0, cases_erased: 1 });
    assert.ok((await pieces(open)).every((p) => p.available));
    assert.equal((await t.request('GET', `/v1/cases/${open}/data`, { key: dataKey })).json().erased, false);
  });
});
