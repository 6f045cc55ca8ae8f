import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { RECOGNITION_LENGTH, RECOGNITION_MODEL } from '../../packages/engine/src/faces/recognition-descriptor.ts';
import { loadFaceModels } from '../../packages/engine/src/faces/models.ts';

test('the recognition model in the repository is the file its README names', () => {
  const sha = createHash('sha256').update(readFileSync(RECOGNITION_MODEL)).digest('hex');
  assert.equal(sha, '87aacdfe57510db2af90c0251df680e8eec88f122ee94712121d09bcaaaf3581');
});

test('the face models load once per thread, the recognition model taking an aligned 112-px crop to 512 values', async () => {
  const [a, b] = await Promise.all([loadFaceModels(), loadFaceModels()]);
  assert.equal(a, b, 'one load, shared');
  const session = a.recognition;
  assert.deepEqual(session.inputNames, ['input']);
  const input = (session as unknown as { inputMetadata: { shape: number[] }[] }).inputMetadata[0]!;
  assert.deepEqual(input.shape, [1, 3, 112, 112]);
  const out = (session as unknown as { outputMetadata: { shape: number[] }[] }).outputMetadata[0]!;
  assert.deepEqual(out.shape, [1, RECOGNITION_LENGTH]);
});
