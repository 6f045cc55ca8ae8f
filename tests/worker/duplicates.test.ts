import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { countCaseFaces, createClient, erasePersonalData, FACE_VECTOR_DIMENSIONS, findCaseForUpdate, queryRows, saveDocumentReading, type Tenant } from '@idv/db';
import { STANDARD_FLOW, type CheckReport, type FlowDefinition } from '@idv/domain';
import { FACE_TEMPLATE_LENGTH, type CaseAnalysis } from '@idv/engine';
import { ChecksRunner, DUPLICATE_DEFAULTS, DUPLICATE_FACE_THRESHOLD } from '@idv/worker';
import type { Credentials } from '../helpers/app.ts';
import { IMAGES, activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { issueKey } from '../helpers/tenants.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';

/**
 * The duplicate face search over every case (the face index, pgvector's HNSW on both databases):
 * the runner's analyser is replaced by one that hands back chosen templates, so that distances
 * are known; the gallery is 10,000 templates of other cases of the same client, planted directly
 * (random vectors, as the client's rotation of unknown faces would look).
 */

const FLOW = 'doc-only';
const DEFINITION: FlowDefinition = { ...STANDARD_FLOW, steps: ['document'], documents: [{ country: '*', types: ['passport'] }], liveness: { challenges: [] } };
const GALLERY = 10_000;
/** Per-coordinate spread of a template: about unit length, two different persons about 1.41 apart, as the descriptor's strangers. */
const SIGMA = 1 / Math.sqrt(FACE_TEMPLATE_LENGTH);

let t: JourneyTestApp;
let runner: ChecksRunner;
let other: { tenant: Tenant; key: Credentials };
let next: { selfie: number[] | null; portrait: number[] | null } = { selfie: null, portrait: null };

/** A template from a seed (Gaussian coordinates), and one at `distance` from another. */
function template(seed: string): number[] {
  const out: number[] = [];
  let block = Buffer.alloc(0);
  for (let i = 0; out.length < FACE_TEMPLATE_LENGTH; i++) {
    if (block.length < 8) block = createHash('sha256').update(`${seed}:${i}`).digest();
    const u1 = (block.readUInt32BE(0) + 1) / 4294967297;
    const u2 = block.readUInt32BE(4) / 4294967296;
    block = block.subarray(8);
    out.push(SIGMA * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2));
  }
  return out;
}
function near(base: number[], distance: number, seed: string): number[] {
  const noise = template(seed);
  const norm = Math.sqrt(noise.reduce((s, v) => s + v * v, 0));
  return base.map((v, i) => v + (noise[i]! / norm) * distance);
}

async function finishedCase(key?: Credentials): Promise<string> {
  const caseId = await openCase(t, { flow_name: FLOW, country: 'FR' }, key);
  const token = await newSession(t, caseId, 'en', key);
  assert.equal((await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'passport' } })).statusCode, 200);
  assert.equal((await journey(t, 'PUT', '/pieces/document_front', token, { bytes: fixture(IMAGES.passport) })).statusCode, 200);
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);
  return caseId;
}

/** A finished case checked with these templates: its duplicates report and duplicate case ids. */
async function checked(templates: typeof next, key?: Credentials): Promise<{ caseId: string; report: CheckReport; duplicates: string[] }> {
  const caseId = await finishedCase(key);
  next = templates;
  const outcomes = await runner.drain();
  assert.equal(outcomes.length, 1, JSON.stringify(outcomes));
  const [row] = await queryRows<{ checks: CheckReport[]; duplicates: string[] }>(t.database.db, sql`SELECT checks, duplicates FROM cases WHERE id = ${caseId}`);
  const report = row!.checks.find((c) => c.type === 'duplicates');
  assert.ok(report, JSON.stringify(row!.checks));
  return { caseId, report, duplicates: row!.duplicates };
}

const demo = (): Tenant => ({ clientId: t.demo.client_id, environment: 'sandbox' });

/** 10,000 cases of the client, each with one indexed selfie (random, about 0.8 from any template here). */
async function plantGallery(templateCaseId: string): Promise<void> {
  const columns = (
    await queryRows<{ column_name: string }>(t.database.db, sql`SELECT column_name FROM information_schema.columns WHERE table_name = 'cases' AND table_schema = 'public' ORDER BY ordinal_position`)
  ).map((c) => c.column_name);
  const list = sql.raw(columns.map((c) => `"${c}"`).join(', '));
  const values = sql.raw(columns.map((c) => (c === 'id' ? `'case_planted_' || lpad(g::text, 5, '0')` : `c."${c}"`)).join(', '));
  await t.database.db.execute(sql`INSERT INTO cases (${list}) SELECT ${values} FROM cases c, generate_series(1, ${GALLERY}) g WHERE c.id = ${templateCaseId}`);
  const scale = SIGMA * Math.sqrt(12); // uniform coordinates of the same spread
  // Bulk loading: the index is built once after the rows (as migration 0015 defines it), instead of
  // growing row by row (minutes on PGlite for 10,000 rows).
  const [{ def }] = await queryRows<{ def: string }>(t.database.db, sql`SELECT pg_get_indexdef('face_vectors_hnsw'::regclass) AS def`);
  await t.database.db.execute(sql`DROP INDEX face_vectors_hnsw`);
  await t.database.db.execute(sql`SELECT setseed(0.25)`);
  for (let from = 1; from <= GALLERY; from += 2_500) {
    await t.database.db.execute(sql`
      INSERT INTO face_vectors (case_id, round, source, client_id, environment, descriptor, embedding, created_at)
      SELECT 'case_planted_' || lpad(g::text, 5, '0'), 1, 'selfie', ${demo().clientId}, 'sandbox', ${runnerDescriptor()},
             (SELECT array_agg((random() - 0.5) * ${scale}) FROM generate_series(1, ${FACE_TEMPLATE_LENGTH}) WHERE g > 0)::vector,
             now()
      FROM generate_series(${from}::int, ${Math.min(GALLERY, from + 2_499)}::int) g`);
  }
  await t.database.db.transaction(async (tx) => {
    await tx.execute(sql`SET LOCAL maintenance_work_mem = '256MB'`);
    await tx.execute(sql.raw(def));
  });
  await t.database.db.execute(sql`ANALYZE face_vectors`);
}
const runnerDescriptor = () => (runner as unknown as { faceIndex: { descriptor: { version: string } } }).faceIndex.descriptor.version;

before(async () => {
  t = await startJourneyApp();
  await activateFlow(t, t.demo.client_id, 'sandbox', FLOW, DEFINITION);
  const client = await createClient(t.database.db, 'Other client', t.clock.now());
  await activateFlow(t, client.id, 'sandbox', FLOW, DEFINITION);
  other = { tenant: { clientId: client.id, environment: 'sandbox' }, key: await issueKey(t, { clientId: client.id, permissions: ['personal_data', 'decisions'] }) };
  runner = checksRunnerFor(t, {
    analyse: async (): Promise<CaseAnalysis> => ({
      checks: [],
      reading: { fields: null, zoneAgreement: {}, faceTemplates: next, portraitBox: null },
      timings: { document: 0, face: 0, total: 0 },
    }),
  });
});
after(() => t.close());

describe('duplicate faces: the face index over every case of the client', () => {
  const alice = template('alice');
  let aliceCase = '';

  test('the threshold: one constant, the runner default; the index column has the engine template length', async () => {
    assert.equal(DUPLICATE_DEFAULTS.faceMaxDistance, DUPLICATE_FACE_THRESHOLD);
    assert.ok(DUPLICATE_FACE_THRESHOLD > 0.2 && DUPLICATE_FACE_THRESHOLD < STANDARD_FLOW.checks.face_match_max_distance, 'stricter than the 1:1 match threshold');
    assert.equal(FACE_VECTOR_DIMENSIONS, FACE_TEMPLATE_LENGTH);
    const [col] = await queryRows<{ type: string }>(
      t.database.db,
      sql`SELECT format_type(atttypid, atttypmod) AS type FROM pg_attribute WHERE attrelid = 'face_vectors'::regclass AND attname = 'embedding'`,
    );
    assert.equal(col!.type, `vector(${FACE_TEMPLATE_LENGTH})`);
  });

  test('a planted duplicate among 10,000 templates is found; the case own templates are not', { timeout: 600_000 }, async () => {
    const first = await checked({ selfie: alice, portrait: near(alice, 0.2, 'alice-portrait') });
    aliceCase = first.caseId;
    assert.equal(first.report.status, 'ok', JSON.stringify(first.report));
    assert.equal(await countCaseFaces(t.database.db, aliceCase), 2, 'selfie and portrait indexed');
    await plantGallery(aliceCase);
    const [{ n }] = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM face_vectors WHERE client_id = ${demo().clientId}`);
    assert.equal(n, GALLERY + 2);

    const again = await checked({ selfie: near(alice, 0.3, 'alice-2'), portrait: null });
    assert.equal(again.report.status, 'attention', JSON.stringify(again.report));
    assert.deepEqual(again.report.reasons, ['duplicate_face']);
    assert.deepEqual(again.duplicates, [aliceCase]);
    assert.equal(again.report.measures?.same_face, 1);
    assert.ok(Number(again.report.measures?.faces_compared) >= 1);
  });

  test('at the threshold: just inside is the same face, just outside is not', async () => {
    const inside = await checked({ selfie: near(alice, DUPLICATE_FACE_THRESHOLD - 0.01, 'inside'), portrait: null });
    assert.ok(inside.duplicates.includes(aliceCase), JSON.stringify(inside));
    const outside = await checked({ selfie: near(alice, DUPLICATE_FACE_THRESHOLD + 0.01, 'outside'), portrait: null });
    assert.ok(!outside.duplicates.includes(aliceCase), JSON.stringify(outside));
  });

  test('a different person is not reported', async () => {
    const bob = await checked({ selfie: template('bob'), portrait: template('bob-document') });
    assert.equal(bob.report.status, 'ok', JSON.stringify(bob.report));
    assert.deepEqual(bob.duplicates, []);
    assert.ok(Number(bob.report.measures?.faces_compared) > 0, 'the index was searched');
  });

  test("another client's identical template is never found, and is stored differently (its own rotation)", async () => {
    const theirs = await checked({ selfie: alice, portrait: null }, other.key);
    assert.equal(theirs.report.status, 'ok', JSON.stringify(theirs.report));
    assert.deepEqual(theirs.duplicates, []);
    const stored = await queryRows<{ client_id: string; e: string }>(
      t.database.db,
      sql`SELECT client_id, embedding::text AS e FROM face_vectors WHERE source = 'selfie' AND case_id IN (${aliceCase}, ${theirs.caseId})`,
    );
    assert.equal(stored.length, 2);
    assert.notEqual(stored[0]!.e, stored[1]!.e, 'the same template, rotated by each client key');
    const [{ d }] = await queryRows<{ d: number }>(
      t.database.db,
      sql`SELECT (SELECT embedding FROM face_vectors WHERE case_id = ${aliceCase} AND source = 'selfie') <-> (SELECT embedding FROM face_vectors WHERE case_id = ${theirs.caseId}) AS d`,
    );
    assert.ok(Number(d) > 0.5, `far apart in the index: ${d}`);
    // And the first client's next search does not see the other client's template either.
    const mine = await checked({ selfie: near(alice, 0.1, 'alice-3'), portrait: null });
    assert.ok(!mine.duplicates.includes(theirs.caseId));
  });

  test('readings made before the index existed are indexed once by the worker, then found', async () => {
    const carol = template('carol');
    const caseId = await openCase(t, { flow_name: FLOW, country: 'FR' }); // no job: only its reading matters here
    const now = t.clock.now();
    await t.database.db.transaction(async (tx) => {
      const sealed = await t.ctx.vault.sealJson(tx, caseId, 'biometric', 'face_templates:1', { selfie: carol, portrait: null }, now);
      await saveDocumentReading(tx, { caseId, round: 1, ...demo(), fieldsSealed: null, faceTemplatesSealed: sealed, fingerprints: null, zoneAgreement: {}, readAt: now });
    });
    assert.equal(await countCaseFaces(t.database.db, caseId), 0);
    const first = await runner.indexMissingFaces();
    assert.equal(first.templates, 1, JSON.stringify(first));
    assert.equal(await countCaseFaces(t.database.db, caseId), 1);
    assert.equal((await runner.indexMissingFaces()).templates, 0, 'nothing left the second time');
    const later = await checked({ selfie: near(carol, 0.2, 'carol-2'), portrait: null });
    assert.ok(later.duplicates.includes(caseId), JSON.stringify(later));
  });

  test('erasure leaves no vector of the case behind, and the case is no longer found', async () => {
    const rows = await queryRows<{ case_id: string }>(t.database.db, sql`SELECT DISTINCT case_id FROM face_vectors WHERE client_id = ${demo().clientId} AND case_id NOT LIKE 'case_planted_%'`);
    assert.ok(rows.length >= 3);
    const now = t.clock.now();
    for (const { case_id } of rows) {
      await t.database.db.transaction(async (tx) => {
        const row = await findCaseForUpdate(tx, demo(), case_id);
        await erasePersonalData(tx, demo(), row!, 'test', now);
      });
      assert.equal(await countCaseFaces(t.database.db, case_id), 0, `no vector left for ${case_id}`);
    }
    const later = await checked({ selfie: alice, portrait: null });
    assert.deepEqual(later.duplicates, [], 'every earlier case of that face was erased');
  });
});
