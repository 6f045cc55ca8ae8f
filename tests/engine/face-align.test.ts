import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ALIGNED_POINTS, applySimilarity, fitSimilarity, warpAligned, type Point } from '../../packages/engine/src/faces/align.ts';

test('the fitted similarity recovers any rotation, scale and shift from five points', () => {
  fc.assert(
    fc.property(
      fc.double({ min: -Math.PI, max: Math.PI, noNaN: true }),
      fc.double({ min: 0.2, max: 5, noNaN: true }),
      fc.double({ min: -500, max: 500, noNaN: true }),
      fc.double({ min: -500, max: 500, noNaN: true }),
      (angle, scale, tx, ty) => {
        const truth = { c: scale * Math.cos(angle), s: scale * Math.sin(angle), tx, ty };
        const moved = ALIGNED_POINTS.map((p) => applySimilarity(truth, p));
        const fitted = fitSimilarity(ALIGNED_POINTS, moved);
        for (const k of ['c', 's', 'tx', 'ty'] as const) assert.ok(Math.abs(fitted[k] - truth[k]) < 1e-6 * Math.max(1, Math.abs(truth[k])), `${k}: ${fitted[k]} vs ${truth[k]}`);
      },
    ),
  );
});

test('a face twice as large and turned 90° lands on the reference points', () => {
  // The reference points of a 112-px face drawn at twice the size, turned a quarter turn, in a 400-px image.
  const turned = { c: 0, s: 2, tx: 300, ty: 40 };
  const inImage = ALIGNED_POINTS.map((p) => applySimilarity(turned, p));
  const back = fitSimilarity(inImage, ALIGNED_POINTS);
  for (let i = 0; i < 5; i++) {
    const [x, y] = applySimilarity(back, inImage[i]!);
    assert.ok(Math.hypot(x - ALIGNED_POINTS[i]![0], y - ALIGNED_POINTS[i]![1]) < 1e-9);
  }
  assert.ok(Math.abs(Math.hypot(back.c, back.s) - 0.5) < 1e-12, 'the crop halves the face');
});

test('the warp samples the image where the transform says, and mirrors the second crop', () => {
  // A 200 × 100 image whose red channel is x and green channel is y.
  const width = 200, height = 100;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([x, y, 7], (y * width + x) * 3);
  const shift = { c: 1, s: 0, tx: -20, ty: -10 }; // crop pixel (u, v) = image pixel (u + 20, v + 10)
  const out = warpAligned({ data, width, height }, shift, 112, true);
  const px = (batch: number, u: number, v: number) => Array.from(out.subarray(((batch * 112 + v) * 112 + u) * 3, ((batch * 112 + v) * 112 + u) * 3 + 3));
  assert.deepEqual(px(0, 0, 0), [20, 10, 7]);
  assert.deepEqual(px(0, 50, 30), [70, 40, 7]);
  assert.deepEqual(px(1, 111 - 50, 30), [70, 40, 7], 'the mirror image holds the same pixel on the other side');
  assert.deepEqual(px(0, 111, 95), [0, 0, 0], 'outside the image (y 105) is black');
});

test('the fit refuses points that coincide or lists that differ', () => {
  const same: Point[] = [[1, 1], [1, 1], [1, 1]];
  assert.throws(() => fitSimilarity(same, ALIGNED_POINTS.slice(0, 3)), /coincide/);
  assert.throws(() => fitSimilarity(ALIGNED_POINTS, ALIGNED_POINTS.slice(0, 4)), /differ/);
});
