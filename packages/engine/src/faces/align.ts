import type { RgbImage } from './decode-image.ts';

/**
 * Five-point face alignment, as the recognition models of the ArcFace family were trained: the
 * eye centres, the nose tip and the mouth corners mapped by a similarity transform (rotation,
 * uniform scale, shift) onto fixed places of a 112 × 112 crop. A box crop instead leaves the
 * face's scale and angle to chance, which the descriptor then has to absorb.
 */

export type Point = readonly [number, number];

/** Where the five points go in the 112 × 112 crop (insightface's reference, image left to right). */
export const ALIGNED_POINTS: readonly Point[] = [
  [38.2946, 51.6963],
  [73.5318, 51.5014],
  [56.0252, 71.7366],
  [41.5493, 92.3655],
  [70.7299, 92.2041],
];
export const ALIGNED_SIDE = 112;

/** A similarity transform: x' = c·x − s·y + tx, y' = s·x + c·y + ty. */
export interface Similarity {
  c: number;
  s: number;
  tx: number;
  ty: number;
}

/**
 * The similarity transform that maps `from` onto `to` with the least squared error (Umeyama's
 * method without reflection; closed form in two dimensions).
 */
export function fitSimilarity(from: readonly Point[], to: readonly Point[]): Similarity {
  if (from.length !== to.length || from.length < 2) throw new Error('alignment: point lists differ or are too short');
  const n = from.length;
  let fx = 0, fy = 0, tx = 0, ty = 0;
  for (let i = 0; i < n; i++) {
    fx += from[i]![0];
    fy += from[i]![1];
    tx += to[i]![0];
    ty += to[i]![1];
  }
  fx /= n;
  fy /= n;
  tx /= n;
  ty /= n;
  let a = 0, b = 0, v = 0;
  for (let i = 0; i < n; i++) {
    const sx = from[i]![0] - fx, sy = from[i]![1] - fy;
    const dx = to[i]![0] - tx, dy = to[i]![1] - ty;
    a += sx * dx + sy * dy;
    b += sx * dy - sy * dx;
    v += sx * sx + sy * sy;
  }
  if (v === 0) throw new Error('alignment: the points coincide');
  const c = a / v, s = b / v;
  return { c, s, tx: tx - (c * fx - s * fy), ty: ty - (s * fx + c * fy) };
}

export function applySimilarity(m: Similarity, [x, y]: Point): Point {
  return [m.c * x - m.s * y + m.tx, m.s * x + m.c * y + m.ty];
}

/**
 * The `side` × `side` crop the transform maps the image onto (`side` / 112 scales the reference
 * points), bilinear, black outside the image, as float RGB 0..255 in NHWC order; with `mirrored`,
 * the crop's mirror image follows it in the same array (a batch of two).
 */
export function warpAligned(rgb: RgbImage, m: Similarity, side = ALIGNED_SIDE, mirrored = false): Float32Array {
  const out = new Float32Array(side * side * 3 * (mirrored ? 2 : 1));
  const k = side / ALIGNED_SIDE;
  const det = m.c * m.c + m.s * m.s;
  const { data, width, height } = rgb;
  const at = (x: number, y: number, ch: number) => (x < 0 || y < 0 || x >= width || y >= height ? 0 : data[(y * width + x) * 3 + ch]!);
  for (let v = 0; v < side; v++) {
    for (let u = 0; u < side; u++) {
      // Pixel centres map through the inverse transform.
      const X = (u + 0.5) / k - 0.5 - m.tx, Y = (v + 0.5) / k - 0.5 - m.ty;
      const x = (m.c * X + m.s * Y) / det, y = (-m.s * X + m.c * Y) / det;
      const x0 = Math.floor(x), y0 = Math.floor(y), ax = x - x0, ay = y - y0;
      const o = (v * side + u) * 3;
      const mo = mirrored ? (side * side + v * side + (side - 1 - u)) * 3 : -1;
      for (let ch = 0; ch < 3; ch++) {
        const top = (1 - ax) * at(x0, y0, ch) + ax * at(x0 + 1, y0, ch);
        const bottom = (1 - ax) * at(x0, y0 + 1, ch) + ax * at(x0 + 1, y0 + 1, ch);
        const value = (1 - ay) * top + ay * bottom;
        out[o + ch] = value;
        if (mo >= 0) out[mo + ch] = value;
      }
    }
  }
  return out;
}

/**
 * The five points from human's 468-point face mesh (MediaPipe's numbering): each eye's centre
 * as the middle of its two corners, the nose tip, the mouth corners; image left first, as
 * ALIGNED_POINTS (for an unmirrored photo, the person's right eye is on the image's left).
 */
export type Mesh = ReadonlyArray<readonly [number, number, number?]>;

export function fivePointsFromMesh(mesh: Mesh): Point[] {
  if (mesh.length < 468) throw new Error('alignment: a 468-point mesh is needed');
  const mid = (a: number, b: number): Point => [(mesh[a]![0] + mesh[b]![0]) / 2, (mesh[a]![1] + mesh[b]![1]) / 2];
  const at = (i: number): Point => [mesh[i]![0], mesh[i]![1]];
  return [mid(33, 133), mid(362, 263), at(4), at(61), at(291)];
}
