import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { EYE_CORNERS, LANDMARK_MESH_INDICES, type Landmark } from '../../packages/engine/src/faces/landmarks.ts';
import { fitHomography, judgePlanarity, measurePlanarity, PLANARITY_LIMITS, projectPoint, reprojectionErrors } from '../../packages/engine/src/faces/planarity.ts';
import { createRng, type Rng } from '../../packages/engine/src/generator/rng.ts';

// Synthetic point sets only: a plane under homographies, and a head-like 3-D set seen by a
// pinhole camera while it turns. No image, no model: the module is pure arithmetic.

const N = LANDMARK_MESH_INDICES.length;
type P3 = [number, number, number];

/** A head-like set in millimetres: points on the front of an ellipsoid (75 × 100 × 60), the nose forward, the eye corners where eyes are. */
function head(rng: Rng): P3[] {
  const points: P3[] = [];
  for (let i = 0; i < N; i++) {
    const a = rng.range(-Math.PI * 0.45, Math.PI * 0.45);
    const b = rng.range(-Math.PI * 0.4, Math.PI * 0.4);
    points.push([75 * Math.sin(a) * Math.cos(b), 100 * Math.sin(b), 60 * Math.cos(a) * Math.cos(b) - 60]);
  }
  points[0] = [0, 10, 25]; // nose tip, forward of the face
  const [o1, i1] = EYE_CORNERS.first;
  const [i2, o2] = EYE_CORNERS.second;
  points[o1] = [-45, -30, -15];
  points[i1] = [-15, -30, -10];
  points[i2] = [15, -30, -10];
  points[o2] = [45, -30, -15];
  return points;
}

/** The pinhole image of the set turned by `yaw` and `pitch` degrees, 500 mm from a camera of focal length 800 px. */
function view(points: P3[], yawDeg: number, pitchDeg = 0, noisePx = 0, rng?: Rng): Landmark[] {
  const y = (yawDeg * Math.PI) / 180, p = (pitchDeg * Math.PI) / 180;
  return points.map(([x0, y0, z0]) => {
    const x1 = Math.cos(y) * x0 + Math.sin(y) * z0;
    const z1 = -Math.sin(y) * x0 + Math.cos(y) * z0;
    const y2 = Math.cos(p) * y0 - Math.sin(p) * z1;
    const z2 = Math.sin(p) * y0 + Math.cos(p) * z1;
    const depth = 500 - z2;
    const n = () => (rng ? rng.gauss() * noisePx : 0);
    return [320 + (800 * x1) / depth + n(), 240 + (800 * y2) / depth + n()];
  });
}

/** A random homography near a print's motions: rotation, zoom, shear and some perspective. */
const homographyArb = fc.record({
  angle: fc.double({ min: -0.6, max: 0.6, noNaN: true }),
  zoom: fc.double({ min: 0.6, max: 1.6, noNaN: true }),
  shear: fc.double({ min: -0.2, max: 0.2, noNaN: true }),
  tx: fc.double({ min: -150, max: 150, noNaN: true }),
  ty: fc.double({ min: -150, max: 150, noNaN: true }),
  px: fc.double({ min: -0.0008, max: 0.0008, noNaN: true }),
  py: fc.double({ min: -0.0008, max: 0.0008, noNaN: true }),
}).map(({ angle, zoom, shear, tx, ty, px, py }) => [
  zoom * Math.cos(angle), -zoom * Math.sin(angle) + shear, tx,
  zoom * Math.sin(angle), zoom * Math.cos(angle), ty,
  px, py, 1,
]);

test('a homography fitted to exact points of a plane reprojects them exactly (property)', () => {
  fc.assert(
    fc.property(homographyArb, fc.integer({ min: 1, max: 1e6 }), (h, seed) => {
      const rng = createRng(seed);
      const from: Landmark[] = Array.from({ length: N }, () => [rng.range(200, 440), rng.range(140, 340)]);
      const to = from.map((p) => projectPoint(h, p));
      const fitted = fitHomography(from, to);
      const worst = Math.max(...reprojectionErrors(fitted, from, to));
      assert.ok(worst < 1e-6, `worst error ${worst} px`);
    }),
    { numRuns: 200 },
  );
});

test('a plane under random homographies is flat: near-zero residual whatever the motion (property)', () => {
  fc.assert(
    fc.property(fc.array(homographyArb, { minLength: 4, maxLength: 12 }), fc.integer({ min: 1, max: 1e6 }), (hs, seed) => {
      const rng = createRng(seed);
      // The face drawn on the plane: the head's frontal image, flattened.
      const flat = view(head(rng), 0);
      const tracks = [flat, ...hs.map((h) => flat.map((p) => projectPoint(h, p)))];
      const m = measurePlanarity(tracks.map((landmarks) => ({ landmarks })), { minMotion: 0, minPoseChange: 0 });
      assert.equal(m.judgedFrames, hs.length);
      assert.ok(m.residualP90! < 1e-6, `residual ${m.residualP90}`);
    }),
    { numRuns: 100 },
  );
});

test('a 3-D head turning in yaw leaves a residual that grows with the angle, far over the flat limit', () => {
  const points = head(createRng(7));
  const front = view(points, 0);
  let previous = 0;
  for (const yaw of [5, 10, 20, 30, 40]) {
    const m = measurePlanarity([front, view(points, yaw)].map((landmarks) => ({ landmarks })), { minMotion: 0, minPoseChange: 0 });
    assert.ok(m.residualMedian! > previous, `yaw ${yaw}: ${m.residualMedian} after ${previous}`);
    previous = m.residualMedian!;
  }
  assert.ok(previous > 2 * PLANARITY_LIMITS.maxFlatResidual, `40° of yaw: ${previous}`);
});

test('a head turning in yaw and pitch, with mesh jitter, is judged round; the same face on a print is judged flat', () => {
  fc.assert(
    // From 30°: this synthetic head (a shallow ellipsoid, shallower than a real head, whose turns
    // measure 0.116 at their 3rd percentile) leaves 0.0705 at 25° for its flattest random shapes,
    // under the flat limit (0.073; found by fast-check once in ~1,000 runs), and 0.084 at 30°.
    fc.property(fc.integer({ min: 1, max: 1e6 }), fc.double({ min: 30, max: 45, noNaN: true }), fc.constantFrom(-1, 1), (seed, maxYaw, side) => {
      const rng = createRng(seed);
      const points = head(rng);
      const steps = 12;
      const angles = Array.from({ length: steps }, (_, i) => (side * maxYaw * i) / (steps - 1));
      // The pose the face analysis would report with each frame: the head's own angles.
      const real = angles.map((a) => ({ landmarks: view(points, a, a / 4, 0.5, rng), yaw: a, pitch: a / 4 }));
      const round = judgePlanarity(real);
      assert.equal(round.flat, false, JSON.stringify(round.measures));
      // The print: the frontal image on a plane, turned by the same angles (a homography each), same jitter.
      const print = angles.map((a) => {
        const flatHead = view(points, 0).map(([x, y]): P3 => [(x - 320) * 500 / 800, (y - 240) * 500 / 800, 0]);
        // The worst case: the face analysis believes the print turned as far as it did.
        return { landmarks: view(flatHead, a, a / 4, 0.5, rng), yaw: a, pitch: a / 4 };
      });
      const flat = judgePlanarity(print);
      assert.equal(flat.flat, true, JSON.stringify(flat.measures));
    }),
    { numRuns: 60 },
  );
});

test('too little motion is not judged (null), not called flat', () => {
  const rng = createRng(3);
  const points = head(rng);
  const still = Array.from({ length: 10 }, () => {
    const yaw = rng.range(-1, 1);
    return { landmarks: view(points, yaw, 0, 0.3, rng), yaw, pitch: 0 };
  });
  const j = judgePlanarity(still);
  assert.equal(j.flat, null);
  assert.ok(j.measures.motion < PLANARITY_LIMITS.minMotion, `motion ${j.measures.motion}`);
  // A face only sliding and turning in the image (a similarity) is no motion either.
  const front = view(points, 0);
  const slid = [front, ...[1, 2, 3, 4].map((k) => front.map(([x, y]): Landmark => [x * Math.cos(k / 10) - y * Math.sin(k / 10) + 20 * k, x * Math.sin(k / 10) + y * Math.cos(k / 10)]))];
  assert.equal(judgePlanarity(slid.map((landmarks) => ({ landmarks }))).flat, null);
  assert.equal(judgePlanarity([]).flat, null);
});

test('inputs that cannot be fitted are refused', () => {
  assert.throws(() => measurePlanarity([{ landmarks: [[0, 0], [1, 1]] }]), /at least 5 points/);
  const points = view(head(createRng(1)), 0);
  assert.throws(() => measurePlanarity([{ landmarks: points }, { landmarks: points.slice(1) }]), /same points/);
});
