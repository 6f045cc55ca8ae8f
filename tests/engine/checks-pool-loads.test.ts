import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { STANDARD_FLOW } from '@idv/domain';
import { ChecksPool, FIXTURES_DIR, generateDocument, randomIdentity, type CaseInput } from '@idv/engine';

/**
 * The checks pool's promise behind the warm-up at start: each thread loads its models once and
 * reuses them for every case. Counted inside the threads (model-loads.ts), on pools of one thread
 * each, so every task of every case runs on the thread whose counts are read.
 */

const pool = new ChecksPool({ threads: 1, ocrThreads: 1 });
after(() => pool.destroy());

async function caseInput(seed: number): Promise<CaseInput> {
  const fields = { ...randomIdentity(seed), document_code: 'P' };
  const doc = await generateDocument({ format: 'TD3', fields, portrait: readFileSync(join(FIXTURES_DIR, 'faces/face_recognition/examples/obama.jpg')), seed });
  const entered = { given_names: fields.given_names ?? 'X', surname: fields.surname ?? 'X', birth_date: fields.birth_date ?? '1980-01-01' };
  return {
    pieces: { document_front: doc.image, selfie: readFileSync(join(FIXTURES_DIR, 'faces/face_recognition/examples/obama2.jpg')) },
    declared: null,
    entered,
    questionnaire: null,
    flow: { ...STANDARD_FLOW, steps: ['applicant', 'document', 'face'], documents: [{ country: '*', types: ['passport'] }], liveness: { challenges: [] } },
    document: { country: 'FR', type: 'passport' },
    environment: 'sandbox',
    now: new Date(),
  };
}

test('a pool thread loads each model once, at warm-up, and reuses it for every case', async () => {
  const [a, b, c] = await Promise.all([caseInput(1), caseInput(2), caseInput(3)]);
  await pool.warmUp();
  const warm = await pool.modelLoads();
  assert.deepEqual(warm.images.loads, { faces: 1, mrz_classifier: 1, opencv: 1 });
  assert.deepEqual(warm.printedZone.loads, { ocr: 1, opencv: 1 });

  // Three cases, one after the other and then two at once: every document, OCR and face task ran.
  const first = await pool.analyse(a);
  const both = await Promise.all([pool.analyse(b), pool.analyse(c)]);
  for (const analysis of [first, ...both]) assert.ok(analysis.timings.tasks?.face_selfie && analysis.timings.tasks.printed_zone, 'the case ran its face and OCR tasks');

  const after3 = await pool.modelLoads();
  assert.deepEqual(after3, warm, 'same threads, no load more after three cases');
});
