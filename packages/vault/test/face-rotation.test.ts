import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { FaceRotation } from '@idv/vault';

const dist = (a: number[], b: number[]) => Math.sqrt(a.reduce((s, v, i) => s + (v - b[i]!) ** 2, 0));
const vec = (d: number) => Array.from({ length: d }, () => Math.random() - 0.5);

test('a face rotation keeps every distance and norm, and moves the vectors', () => {
  const r = FaceRotation.fromSeed(randomBytes(32), 1152);
  const a = vec(1152);
  const b = vec(1152);
  const [ra, rb] = [r.apply(a), r.apply(b)];
  assert.ok(Math.abs(dist(a, b) - dist(ra, rb)) < 1e-9);
  assert.ok(Math.abs(dist(a, new Array(1152).fill(0)) - dist(ra, new Array(1152).fill(0))) < 1e-9);
  assert.ok(dist(a, ra) > 0.5 * dist(a, new Array(1152).fill(0)), 'not the identity');
});

test('the same seed gives the same rotation; another seed or dimension another one', () => {
  const seed = randomBytes(32);
  const a = vec(128);
  assert.deepEqual(FaceRotation.fromSeed(seed, 128).apply(a), FaceRotation.fromSeed(Buffer.from(seed), 128).apply(a));
  assert.ok(dist(FaceRotation.fromSeed(seed, 128).apply(a), FaceRotation.fromSeed(randomBytes(32), 128).apply(a)) > 0.1);
});

test('the columns are orthonormal (a true rotation, not only length-keeping on a sample)', () => {
  const d = 64;
  const r = FaceRotation.fromSeed(randomBytes(32), d);
  const cols = Array.from({ length: d }, (_, i) => r.apply(Array.from({ length: d }, (_, j) => (i === j ? 1 : 0))));
  for (let i = 0; i < d; i++) {
    for (let j = i; j < d; j++) {
      const dot = cols[i]!.reduce((s, v, k) => s + v * cols[j]![k]!, 0);
      assert.ok(Math.abs(dot - (i === j ? 1 : 0)) < 1e-12, `${i}·${j} = ${dot}`);
    }
  }
});

test('inputs are checked: seed size, dimension, template length, finite numbers', () => {
  assert.throws(() => FaceRotation.fromSeed(randomBytes(16), 128));
  assert.throws(() => FaceRotation.fromSeed(randomBytes(32), 1));
  assert.throws(() => FaceRotation.fromSeed(randomBytes(32), 5000));
  const r = FaceRotation.fromSeed(randomBytes(32), 8);
  assert.throws(() => r.apply([1, 2, 3]));
  assert.throws(() => r.apply([1, 2, 3, 4, 5, 6, 7, Number.NaN]));
});
