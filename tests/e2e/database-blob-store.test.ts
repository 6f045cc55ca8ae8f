import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { PostgresBlobStore } from '@idv/blobstore';
import { pieceBlobs } from '@idv/case-data';
import { queryRows } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { ChecksPool, generateDocument, type CaseInput } from '@idv/engine';
import { RetentionSweeper } from '@idv/worker';
import { activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';

/**
 * BLOB_STORE=postgres end to end: the journey's images are sealed into the database (nothing under
 * DATA_DIR), the checks read them from there and decide, the API serves them, and the erasure
 * and the retention delete their rows.
 */

const FLOW = 'db_blobs';
/** No liveness challenge (no real turned-head photos of the fixture persons exist). */
const DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['applicant', 'questionnaire', 'document', 'face'],
  documents: [{ country: '*', types: ['passport'] }],
  liveness: { challenges: [] },
  retention: { images_days: 1, data_days: 30 },
};
const PERSON = { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' };

let t: JourneyTestApp;
let pool: ChecksPool;
const analysed: Partial<Record<string, Buffer>>[] = [];

before(async () => {
  t = await startJourneyApp({ BLOB_STORE: 'postgres' });
  await activateFlow(t, t.demo.client_id, 'sandbox', FLOW, DEFINITION);
  pool = new ChecksPool({ threads: 2 });
});
after(async () => {
  await pool?.destroy();
  await t?.close();
});

const blobRows = (caseId: string) =>
  queryRows<{ piece_id: string; kind: string; blob_id: string; stored: number; chunks: number }>(
    t.database.db,
    sql`SELECT p.id AS piece_id, p.kind, p.blob_id, b.size_bytes AS stored, (SELECT count(*)::int FROM blob_chunks c WHERE c.blob_id = p.blob_id) AS chunks
        FROM pieces p LEFT JOIN blobs b ON b.id = p.blob_id WHERE p.case_id = ${caseId} ORDER BY p.kind`,
  );

/** A case of the flow, created by API, its journey done with these images; returns its id. */
async function submit(images: Record<string, Buffer>): Promise<string> {
  const caseId = await openCase(t, { flow_name: FLOW, country: 'FR', declared: { surname: 'Martin', given_names: 'Julien', birth_date: PERSON.birth_date } });
  const token = await newSession(t, caseId);
  for (const [path, body] of [
    ['/applicant', PERSON],
    ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
    ['/document', { country: 'FR', type: 'passport' }],
  ] as const) {
    const res = await journey(t, 'POST', path, token, { body });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
  }
  for (const [kind, bytes] of Object.entries(images)) {
    const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
  }
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);
  return caseId;
}

test('images go to the database store, are read by the checks and the API, and are gone after erasure and retention', { timeout: 120_000 }, async () => {
  assert.ok(t.ctx.blobs instanceof PostgresBlobStore, 'BLOB_STORE=postgres chose the database store');
  const passport = (
    await generateDocument({
      format: 'TD3',
      fields: { document_code: 'P', issuing_country: 'FRA', document_number: '14FP52K81', surname: 'MARTIN', given_names: 'JULIEN', nationality: 'FRA', birth_date: PERSON.birth_date, sex: 'M', expiry_date: '2033-06-30' },
      portrait: fixture('faces/face_recognition/examples/obama.jpg'),
      seed: 7,
    })
  ).image;
  const images: Record<string, Buffer> = { document_front: passport, selfie: fixture('faces/face_recognition/examples/obama2.jpg') };

  const caseId = await submit(images);

  // In the database, sealed (the stored bytes are not the image), and no file under DATA_DIR.
  const stored = await blobRows(caseId);
  assert.deepEqual(stored.map((r) => r.kind), ['document_front', 'selfie']);
  for (const row of stored) {
    const clear = images[row.kind];
    assert.ok(Number(row.stored) > clear.length && Number(row.chunks) === Math.ceil(Number(row.stored) / (256 * 1024)), JSON.stringify(row));
    const sealed: Buffer = (await t.ctx.blobs.get(row.blob_id))!;
    assert.equal(sealed.indexOf(clear.subarray(0, 64)), -1, 'the database holds sealed bytes only');
  }
  assert.equal(existsSync(join(t.dataDir, 'blobs')), false, 'nothing written under DATA_DIR');

  // The checks open them from the database and decide.
  const runner = checksRunnerFor(t, {
    analyse: (input: CaseInput) => {
      analysed.push(Object.fromEntries(Object.entries(input.pieces).map(([kind, bytes]) => [kind, Buffer.from(bytes)])));
      return pool.analyse(input);
    },
  }, { pieces: pieceBlobs(t.ctx) });
  const ran = await runner.drain();
  assert.deepEqual(ran.map((r) => [r.caseId, r.outcome]), [[caseId, 'approved']]);
  assert.equal(analysed.length, 1);
  for (const [kind, bytes] of Object.entries(images)) assert.ok(analysed[0][kind]?.equals(bytes), `the checks read the ${kind} from the database`);

  // The API serves an image from there too.
  const image = await t.request('GET', `/v1/cases/${caseId}/images/${stored[1].piece_id}`);
  assert.equal(image.statusCode, 200, image.body);
  assert.ok(image.rawPayload.equals(images.selfie));

  // Erased: the blob rows and their chunks are deleted.
  const erased = await t.request('POST', `/v1/cases/${caseId}/erasure`, { signed: true });
  assert.equal(erased.statusCode, 200, erased.body);
  assert.equal(erased.json().erased.images, 2, erased.body);
  for (const row of await blobRows(caseId)) {
    assert.equal(row.stored, null, `the blob of ${row.kind} is deleted`);
    assert.equal(Number(row.chunks), 0, `the chunks of ${row.kind} are deleted`);
  }
  const left = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM blob_chunks`);
  assert.equal(Number(left[0].n), 0);

  // Retention: another case, decided, is swept past images_days; its blob rows are deleted too.
  const kept = await submit(images);
  // The same passport as the erased case, whose fingerprints the erasure forgot: no duplicate.
  assert.deepEqual((await runner.drain()).map((r) => [r.caseId, r.outcome]), [[kept, 'approved']]);
  assert.equal((await blobRows(kept)).filter((r) => r.stored !== null).length, 2);
  t.clock.advance(2 * 24 * 3_600_000);
  const swept = await new RetentionSweeper({ db: t.database.db, blobs: t.ctx.blobs, log: { info() {}, warn() {}, error() {} }, now: t.clock.now }).sweep();
  assert.equal(swept.images_deleted, 2);
  for (const row of await blobRows(kept)) assert.deepEqual([row.stored, Number(row.chunks)], [null, 0], `the blob of ${row.kind} is deleted`);
});
