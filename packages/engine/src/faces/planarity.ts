import { EYE_CORNERS, type Landmark } from './landmarks.ts';

/**
 * Flat or round: a print or a screen, however it is moved, tilted or bent a little, is a plane, so
 * the motion of the face's landmarks from one frame to another is one homography (the projective
 * map of a plane into the image). A real head turning is not a plane: the nose tip, the eyes and
 * the outline sit at different depths and move differently (parallax). This module fits the best
 * homography from a reference frame to every other frame and measures what it cannot explain.
 *
 * Pure arithmetic on a few dozen points per frame: no image, no model. The landmarks come from the
 * face analysis already run on each frame of a sequence (analyse-face.ts, landmarks.ts).
 *
 * Every distance is divided by the inter-ocular distance (eye centre to eye centre, the largest
 * over the frames: the most frontal one), so the figures do not depend on the face's size in the
 * image.
 */

export type Homography = number[]; // 9 coefficients, row-major, scaled to unit norm

/**
 * One frame of a sequence as the face analysis gives it (a `FaceFinding` fits): the landmarks,
 * and the head pose in degrees when known. The pose says how far the head (or the print) seems
 * to have turned; the landmarks say whether that turn had depth.
 */
export interface PlanarityFrame {
  landmarks: Landmark[];
  yaw?: number;
  pitch?: number;
}

/** The measures of one sequence. */
export interface PlanarityMeasures {
  /** Frames given (with a face). */
  frames: number;
  /**
   * Frames far enough from the reference to tell a plane from a head: the landmarks moved
   * (`PLANARITY_LIMITS.minMotion`) or the head pose turned (`PLANARITY_LIMITS.minPoseChange`).
   */
  judgedFrames: number;
  /**
   * The largest motion from the reference frame that a 2-D similarity (shift, turn in the image,
   * zoom) cannot explain: root mean square over the points, in inter-ocular distances. A head that
   * turns or a print that tilts makes it grow; a face sliding in the image leaves it at zero.
   */
  motion: number;
  /**
   * What the best homography leaves unexplained, per judged frame: root mean square over the
   * points, in inter-ocular distances; the median and the 90th percentile over the judged frames
   * turned furthest (motion at least half the largest).
   * Near zero for a plane, growing with the head's turn for a real face. Null when no frame is judged.
   */
  residualMedian: number | null;
  residualP90: number | null;
  /** Inter-ocular distance in pixels (the largest over the frames). */
  interOcular: number;
  /** The largest change of head pose from the reference frame, in degrees (yaw and pitch together); null without poses. */
  poseChange: number | null;
}

/**
 * Measured on `npm run bench:pad-motion` (bench/checks/pad-motion.ts, 2026-11-29): the flat limit
 * was chosen on one half split by person (bona fide clips of p01; generated prints of every other
 * source person), between the generated prints' 95th percentile (0.046) and the real head turns'
 * 3rd percentile (0.116), and its error rates reported on the other half, in docs/liveness.md
 * ("Flat or round"). The real bona fide set is 4 clips of 3 people: a first figure, not a proof.
 */
export const PLANARITY_LIMITS = {
  /** A frame is judged when its non-similarity motion reaches this (inter-ocular distances). Under it, mesh jitter dominates. */
  minMotion: 0.04,
  /**
   * …or when the head pose (the face analysis' yaw and pitch) has turned this much from the
   * reference (degrees): a real head turned this far shows parallax, whatever its landmarks' jitter.
   */
  minPoseChange: 10,
  /** A sequence is judged when at least this many frames are. */
  minJudgedFrames: 3,
  /** Flat when the median residual over the judged frames turned furthest is under this (inter-ocular distances). */
  maxFlatResidual: 0.073,
} as const;

/** The verdict a sequence judge calls: `flat` is null when the landmarks moved too little to tell. */
export interface PlanarityJudgement {
  measures: PlanarityMeasures;
  flat: boolean | null;
}

/**
 * Judges a sequence of frames (the largest face of each, e.g. `FaceFinding`s: the same landmarks in
 * the same order, and the pose), the first frame being the reference.
 */
export function judgePlanarity(frames: PlanarityFrame[], limits: Partial<typeof PLANARITY_LIMITS> = {}): PlanarityJudgement {
  const l = { ...PLANARITY_LIMITS, ...limits };
  const measures = measurePlanarity(frames, l);
  if (measures.judgedFrames < l.minJudgedFrames || measures.residualMedian === null) return { measures, flat: null };
  return { measures, flat: measures.residualMedian < l.maxFlatResidual };
}

/** The measures of a sequence (first frame as the reference); see PlanarityMeasures. */
export function measurePlanarity(
  sequence: PlanarityFrame[],
  limits: { minMotion: number; minPoseChange: number } = PLANARITY_LIMITS,
): PlanarityMeasures {
  const tracks = sequence.map((f) => f.landmarks);
  const frames = tracks.length;
  if (frames === 0) return { frames, judgedFrames: 0, motion: 0, residualMedian: null, residualP90: null, interOcular: 0, poseChange: null };
  const count = tracks[0]!.length;
  if (count < 5) throw new Error(`planarity needs at least 5 points per frame, got ${count}`);
  for (const t of tracks) if (t.length !== count) throw new Error('every frame must have the same points');
  const iod = Math.max(...tracks.map(interOcular));
  if (!(iod > 0)) throw new Error('the eyes are not apart in any frame');
  const ref = tracks[0]!;
  const refPose = sequence[0]!;
  let motion = 0;
  let poseChange: number | null = null;
  const judged: Array<{ motion: number; residual: number }> = [];
  for (let f = 1; f < frames; f++) {
    const frame = tracks[f]!;
    const m = rms(similarityErrors(ref, frame)) / iod;
    motion = Math.max(motion, m);
    const turn = turned(refPose, sequence[f]!);
    if (turn !== null) poseChange = Math.max(poseChange ?? 0, turn);
    if (m < limits.minMotion && (turn === null || turn < limits.minPoseChange)) continue;
    const h = fitHomography(ref, frame);
    judged.push({ motion: m, residual: rms(reprojectionErrors(h, ref, frame)) / iod });
  }
  // The frames turned furthest (at least half the largest motion) carry the parallax; the frames
  // on the way out and back, barely above the jitter, would drag a head's figure towards a print's.
  const furthest = Math.max(0, ...judged.map((j) => j.motion)) / 2;
  const residuals = judged.filter((j) => j.motion >= furthest).map((j) => j.residual).sort((a, b) => a - b);
  return {
    frames,
    judgedFrames: judged.length,
    motion: round(motion),
    residualMedian: residuals.length ? round(quantile(residuals, 0.5)) : null,
    residualP90: residuals.length ? round(quantile(residuals, 0.9)) : null,
    interOcular: round(iod, 1),
    poseChange: poseChange === null ? null : round(poseChange, 1),
  };
}

/** Degrees between two head poses (yaw and pitch), null when either is unknown. */
function turned(a: PlanarityFrame, b: PlanarityFrame): number | null {
  if (a.yaw === undefined || a.pitch === undefined || b.yaw === undefined || b.pitch === undefined) return null;
  return Math.hypot(b.yaw - a.yaw, b.pitch - a.pitch);
}

/** Eye centre to eye centre (each centre the middle of its two corners). */
function interOcular(points: Landmark[]): number {
  const centre = ([a, b]: readonly [number, number]) => [(points[a]![0] + points[b]![0]) / 2, (points[a]![1] + points[b]![1]) / 2];
  const [x0, y0] = centre(EYE_CORNERS.first);
  const [x1, y1] = centre(EYE_CORNERS.second);
  return Math.hypot(x1! - x0!, y1! - y0!);
}

/**
 * The homography taking `from` onto `to`, fitted to all the points: the normalised direct linear
 * transform (Hartley: both sets centred and scaled to a mean distance of √2 so the equations are
 * well conditioned; the solution is the eigenvector of AᵀA with the smallest eigenvalue), then
 * reweighted a few times (Huber weights on each point's error) so that one misplaced landmark
 * does not bend the fit for all the others. The reweighting does not hide parallax: a turning
 * head's nose and outline disagree with each other by many points at once.
 */
export function fitHomography(from: Landmark[], to: Landmark[], iterations = 4): Homography {
  if (from.length !== to.length || from.length < 4) throw new Error('a homography needs at least 4 matched points');
  const tf = normaliser(from);
  const tt = normaliser(to);
  const a = from.map((p) => applyAffine(tf, p));
  const b = to.map((p) => applyAffine(tt, p));
  const weights = new Array<number>(from.length).fill(1);
  let h = solveDlt(a, b, weights);
  for (let it = 0; it < iterations; it++) {
    const errors = a.map((p, i) => distance(projectPoint(h, p), b[i]!));
    const sorted = [...errors].sort((x, y) => x - y);
    // Huber's constant on a robust scale (1.4826 × median absolute error); a floor keeps an exact fit exact.
    const scale = Math.max(1.4826 * quantile(sorted, 0.5), 1e-9);
    const k = 1.345 * scale;
    for (let i = 0; i < errors.length; i++) weights[i] = errors[i]! <= k ? 1 : k / errors[i]!;
    h = solveDlt(a, b, weights);
  }
  // Back to pixels: H = Tto⁻¹ · Hn · Tfrom.
  return normalise(multiply(multiply(invertAffine(tt), h), affineMatrix(tf)));
}

/** Each point's distance, in the target frame's pixels, from where the homography puts it. */
export function reprojectionErrors(h: Homography, from: Landmark[], to: Landmark[]): number[] {
  return from.map((p, i) => distance(projectPoint(h, p), to[i]!));
}

export function projectPoint(h: Homography, [x, y]: Landmark): Landmark {
  const w = h[6]! * x + h[7]! * y + h[8]!;
  return [(h[0]! * x + h[1]! * y + h[2]!) / w, (h[3]! * x + h[4]! * y + h[5]!) / w];
}

/** Each point's distance from the best 2-D similarity (least squares, closed form) taking `from` onto `to`. */
function similarityErrors(from: Landmark[], to: Landmark[]): number[] {
  const n = from.length;
  const [fx, fy] = mean(from);
  const [tx, ty] = mean(to);
  let sxx = 0, a = 0, b = 0;
  for (let i = 0; i < n; i++) {
    const px = from[i]![0] - fx, py = from[i]![1] - fy;
    const qx = to[i]![0] - tx, qy = to[i]![1] - ty;
    sxx += px * px + py * py;
    a += px * qx + py * qy;
    b += px * qy - py * qx;
  }
  a /= sxx || 1;
  b /= sxx || 1;
  return from.map(([x, y], i) => {
    const px = x - fx, py = y - fy;
    return Math.hypot(a * px - b * py + tx - to[i]![0], b * px + a * py + ty - to[i]![1]);
  });
}

// --- linear algebra: 3×3 matrices as 9 numbers row-major, a 9×9 symmetric eigenproblem ---

interface Affine { scale: number; cx: number; cy: number }

function normaliser(points: Landmark[]): Affine {
  const [cx, cy] = mean(points);
  const d = points.reduce((s, [x, y]) => s + Math.hypot(x - cx, y - cy), 0) / points.length;
  return { scale: d > 0 ? Math.SQRT2 / d : 1, cx, cy };
}
const applyAffine = (t: Affine, [x, y]: Landmark): Landmark => [(x - t.cx) * t.scale, (y - t.cy) * t.scale];
const affineMatrix = (t: Affine): Homography => [t.scale, 0, -t.cx * t.scale, 0, t.scale, -t.cy * t.scale, 0, 0, 1];
const invertAffine = (t: Affine): Homography => [1 / t.scale, 0, t.cx, 0, 1 / t.scale, t.cy, 0, 0, 1];

function multiply(p: Homography, q: Homography): Homography {
  const r = new Array<number>(9).fill(0);
  for (let i = 0; i < 3; i++) for (let j = 0; j < 3; j++) for (let k = 0; k < 3; k++) r[i * 3 + j]! += p[i * 3 + k]! * q[k * 3 + j]!;
  return r;
}

function normalise(h: Homography): Homography {
  const n = Math.hypot(...h);
  const sign = h[8]! < 0 ? -1 : 1;
  return h.map((v) => (sign * v) / n);
}

/** The weighted DLT: minimises Σ wᵢ‖Aᵢ h‖² over unit h (two rows of A per point). */
function solveDlt(from: Landmark[], to: Landmark[], weights: number[]): Homography {
  const m = Array.from({ length: 9 }, () => new Array<number>(9).fill(0));
  for (let i = 0; i < from.length; i++) {
    const [x, y] = from[i]!;
    const [u, v] = to[i]!;
    const w = weights[i]!;
    const rows = [
      [x, y, 1, 0, 0, 0, -u * x, -u * y, -u],
      [0, 0, 0, x, y, 1, -v * x, -v * y, -v],
    ];
    for (const row of rows) for (let r = 0; r < 9; r++) for (let c = r; c < 9; c++) m[r]![c]! += w * row[r]! * row[c]!;
  }
  for (let r = 0; r < 9; r++) for (let c = 0; c < r; c++) m[r]![c] = m[c]![r]!;
  return smallestEigenvector(m);
}

/** Cyclic Jacobi rotations on a small symmetric matrix: its eigenvector with the smallest eigenvalue. */
function smallestEigenvector(matrix: number[][]): number[] {
  const n = matrix.length;
  const a = matrix.map((row) => [...row]);
  const v: number[][] = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1 : 0)));
  for (let sweep = 0; sweep < 60; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p]![q]! ** 2;
    if (off < 1e-30) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p]![q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q]![q]! - a[p]![p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k]![p]!, akq = a[k]![q]!;
          a[k]![p] = c * akp - s * akq;
          a[k]![q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p]![k]!, aqk = a[q]![k]!;
          a[p]![k] = c * apk - s * aqk;
          a[q]![k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k]![p]!, vkq = v[k]![q]!;
          v[k]![p] = c * vkp - s * vkq;
          v[k]![q] = s * vkp + c * vkq;
        }
      }
    }
  }
  let best = 0;
  for (let i = 1; i < n; i++) if (a[i]![i]! < a[best]![best]!) best = i;
  return v.map((row) => row[best]!);
}

// --- small helpers ---

function mean(points: Landmark[]): Landmark {
  let x = 0, y = 0;
  for (const p of points) {
    x += p[0];
    y += p[1];
  }
  return [x / points.length, y / points.length];
}

const distance = (p: Landmark, q: Landmark) => Math.hypot(p[0] - q[0], p[1] - q[1]);
const rms = (values: number[]) => Math.sqrt(values.reduce((s, v) => s + v * v, 0) / values.length);

/** Linear interpolation between the order statistics of a sorted list. */
function quantile(sorted: number[], q: number): number {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (pos - lo);
}

function round(value: number, digits = 4): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
