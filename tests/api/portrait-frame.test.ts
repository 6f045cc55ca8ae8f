import { test } from 'node:test';
import assert from 'node:assert/strict';
import { portraitFrame } from '../../apps/api/src/images/view-spec.ts';

/** The portrait cut around a face found on a document: 4:5, the face inside, never outside the image. */

const inside = (b: { left: number; top: number; width: number; height: number }, w: number, h: number) =>
  b.left >= 0 && b.top >= 0 && b.width >= 1 && b.height >= 1 && b.left + b.width <= w && b.top + b.height <= h;

test('a face in the middle: a 4:5 portrait around it, the face within', () => {
  const face = { left: 0.4, top: 0.4, width: 0.1, height: 0.12 };
  const b = portraitFrame(face, 2000, 1500);
  assert.ok(inside(b, 2000, 1500));
  assert.ok(Math.abs(b.width / b.height - 0.8) < 0.01, JSON.stringify(b));
  // The face's own pixels are all in the cut.
  assert.ok(b.left <= 800 && b.left + b.width >= 1000, JSON.stringify(b));
  assert.ok(b.top <= 600 && b.top + b.height >= 780, JSON.stringify(b));
  // The face is most of the portrait's height, as printed on documents.
  assert.ok(180 / b.height > 0.4 && 180 / b.height < 0.75, JSON.stringify(b));
});

test('a face at a corner: the cut slides inside the image', () => {
  for (const face of [
    { left: 0, top: 0, width: 0.1, height: 0.1 },
    { left: 0.9, top: 0.88, width: 0.1, height: 0.12 },
  ]) {
    const b = portraitFrame(face, 1000, 800);
    assert.ok(inside(b, 1000, 800), JSON.stringify(b));
  }
});

test('a face larger than the image allows: the cut shrinks to the image, never beyond', () => {
  const b = portraitFrame({ left: 0, top: 0, width: 1, height: 1 }, 640, 480);
  assert.ok(inside(b, 640, 480), JSON.stringify(b));
  assert.equal(b.height, 480);
  assert.equal(b.width, 384);
});
