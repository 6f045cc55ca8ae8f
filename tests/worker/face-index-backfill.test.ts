import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { countCaseFaces, queryRows, saveDocumentReading, type Tenant } from '@idv/db';
import { ChecksPool, FACE_TEMPLATE_LENGTH, FACE_TEMPLATE_VERSION } from '@idv/engine';
import { ChecksRunner } from '@idv/worker';
import { openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';

/**
 * The worker's start-up pass over readings missing from the face index (startWorker →
 * ChecksRunner.indexMissingFaces → FaceSearchIndex.indexMissing), started twice as two worker
 * processes would (a new runner each time, no cache shared). Readings sealed by the descriptor
 * before the current one (the fusion of face-api and faceres: 1,152 numbers) give no current
 * template: the first start opens them once and marks them; the second opens nothing. Readings of
 * the current descriptor sealed before the index existed are indexed once.
 */

/** The previous descriptor's length (fused-faceapi128-faceres1024.1). */
const OLD_LENGTH = 1152;

let t: JourneyTestApp;
let pool: ChecksPool;
const demo = (): Tenant => ({ clientId: t.demo.client_id, environment: 'sandbox' });

/** Deterministic numbers of a length (the values do not matter here, only what can be indexed). */
const numbers = (length: number, seed: number) => Array.from({ length }, (_, i) => Math.sin(seed * 1000 + i) / Math.sqrt(length));

/** A case with a reading of these templates, written as the checks engine of its time did (no descriptor recorded). */
async function readingOf(templates: { selfie: number[] | null; portrait: number[] | null }): Promise<string> {
  const caseId = await openCase(t, { flow_name: 'standard', country: 'FR' });
  const now = t.clock.now();
  await t.database.db.transaction(async (tx) => {
    const sealed = await t.ctx.vault.sealJson(tx, caseId, 'biometric', 'face_templates:1', templates, now);
    await saveDocumentReading(tx, { caseId, round: 1, ...demo(), fieldsSealed: null, faceTemplatesSealed: sealed, fingerprints: null, zoneAgreement: {}, readAt: now });
  });
  return caseId;
}

/** A worker start's pass, by a runner of its own (as a new worker process). */
function start() {
  const runner = checksRunnerFor(t, pool);
  return runner.indexMissingFaces();
}

const descriptorOf = async (caseId: string) =>
  (await queryRows<{ d: string | null }>(t.database.db, sql`SELECT face_templates_descriptor AS d FROM document_readings WHERE case_id = ${caseId} AND round = 1`))[0]?.d;

const indexedAt = async (caseId: string) =>
  (await queryRows<{ source: string; created_at: string }>(t.database.db, sql`SELECT source, created_at::text FROM face_vectors WHERE case_id = ${caseId} ORDER BY source`)).map(
    (r) => `${r.source}@${r.created_at}`,
  );

before(async () => {
  t = await startJourneyApp();
  // The engine's pool, never asked to analyse here (no thread starts until a case is analysed).
  pool = new ChecksPool();
});
after(async () => {
  await pool.destroy();
  await t.close();
});

describe('worker start: readings missing from the face index', () => {
  test('old-descriptor readings are opened once and then skipped by the query; current readings are indexed once', async () => {
    const old = [
      await readingOf({ selfie: numbers(OLD_LENGTH, 1), portrait: numbers(OLD_LENGTH, 2) }),
      await readingOf({ selfie: numbers(OLD_LENGTH, 3), portrait: null }),
      await readingOf({ selfie: null, portrait: numbers(OLD_LENGTH, 4) }),
    ];
    const current = [await readingOf({ selfie: numbers(FACE_TEMPLATE_LENGTH, 5), portrait: numbers(FACE_TEMPLATE_LENGTH, 6) }), await readingOf({ selfie: numbers(FACE_TEMPLATE_LENGTH, 7), portrait: null })];

    const first = await start();
    assert.equal(first.readings, 5, `every reading opened once: ${JSON.stringify(first)}`);
    assert.equal(first.templates, 3, `the current readings' templates indexed: ${JSON.stringify(first)}`);
    assert.equal(first.superseded, 3, `the old readings marked: ${JSON.stringify(first)}`);
    // The mark the next start's query skips them by, and the version of the indexed ones.
    for (const caseId of old) assert.equal(await descriptorOf(caseId), `superseded:${OLD_LENGTH}`);
    for (const caseId of current) assert.equal(await descriptorOf(caseId), FACE_TEMPLATE_VERSION);
    for (const caseId of old) assert.equal(await countCaseFaces(t.database.db, caseId), 0, 'an old template is never indexed');
    assert.equal(await countCaseFaces(t.database.db, current[0]!), 2);
    assert.equal(await countCaseFaces(t.database.db, current[1]!), 1);
    const stamps = await Promise.all(current.map(indexedAt));

    t.clock.advance(60_000);
    const second = await start();
    assert.deepEqual(second, { readings: 0, templates: 0, superseded: 0 }, 'a second start opens no reading');
    assert.deepEqual(await Promise.all(current.map(indexedAt)), stamps, 'the current readings were not indexed again');
  });
});
