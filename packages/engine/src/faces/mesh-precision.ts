import type { Mesh } from './align.ts';

/**
 * human's face mesh to a fraction of a pixel again.
 *
 * Why: human maps its mesh model's 468 points (in the model's 192 × 192 input) onto the image by
 * an affine transform (its box's scale, its rotation, its centre), then truncates each coordinate
 * to a whole pixel (`Math.trunc` in its `transformRawCoords`). On a small face (lfw-dev's 250-px
 * photos, a document's portrait) that is a noticeable error in the five points the alignment is
 * fitted on (align.ts): up to a pixel, half a pixel too far up and left on average.
 *
 * The model's own output is kept as it comes out of onnxruntime (human-onnx.ts), and since every
 * point went through the same affine transform, that transform is recovered by least squares
 * from the 468 pairs (raw point → truncated pixel + 0.5, the middle of the pixel the point fell
 * in), then applied to the raw points. The fit's residual is the truncation's own (about 0.41 px
 * RMS, √(2/12)); a mesh that no kept output explains that well (another frame's, human's iris
 * model moving points) is returned as it was.
 */

/** Values of the mesh model's output for one face: 468 points × (x, y, z) in its input's pixels. */
export const MESH_OUTPUT_LENGTH = 468 * 3;
/** Above this RMS residual (px), the output is not the one the mesh was made from. */
const MAX_RESIDUAL = 0.6;

export type MeshPoint = [number, number, number];

export function refineMesh(mesh: Mesh, outputs: readonly Float32Array[]): MeshPoint[] {
  const truncated = mesh.map(([x, y, z]) => [x, y, z ?? 0] as MeshPoint);
  if (mesh.length < 468) return truncated;
  // Points on the image (coordinates of 1 or more): truncation rounds those down; negative ones up.
  const used: number[] = [];
  for (let k = 0; k < 468; k++) if (mesh[k]![0] >= 1 && mesh[k]![1] >= 1) used.push(k);
  if (used.length < 100) return truncated;
  // Newest first: the face's own output is among the last few. Another face's leaves residuals of
  // many pixels, so the first one under the limit is the one.
  for (let i = outputs.length - 1; i >= 0; i--) {
    const raw = outputs[i]!;
    if (raw.length !== MESH_OUTPUT_LENGTH) continue;
    const fitted = fitAffine(raw, mesh, used);
    if (fitted && fitted.residual <= MAX_RESIDUAL) return fitted.points.map(([x, y], k) => [x, y, truncated[k]![2]]);
  }
  return truncated;
}

/** x' = a·x + b·y + c (and y' likewise) from raw to pixel centres, by least squares over `used`. */
function fitAffine(raw: Float32Array, mesh: Mesh, used: number[]): { points: MeshPoint[]; residual: number } | null {
  const m = [0, 0, 0, 0, 0, 0, 0, 0, 0];
  const bx = [0, 0, 0], by = [0, 0, 0];
  for (const k of used) {
    const v = [raw[3 * k]!, raw[3 * k + 1]!, 1];
    const tx = mesh[k]![0] + 0.5, ty = mesh[k]![1] + 0.5;
    for (let i = 0; i < 3; i++) {
      for (let j = 0; j < 3; j++) m[i * 3 + j]! += v[i]! * v[j]!;
      bx[i]! += v[i]! * tx;
      by[i]! += v[i]! * ty;
    }
  }
  const px = solve3(m, bx), py = solve3(m, by);
  if (!px || !py) return null;
  const points: MeshPoint[] = [];
  for (let k = 0; k < 468; k++) {
    const x = raw[3 * k]!, y = raw[3 * k + 1]!;
    points.push([px[0] * x + px[1] * y + px[2], py[0] * x + py[1] * y + py[2], 0]);
  }
  let sum = 0;
  for (const k of used) sum += (points[k]![0] - mesh[k]![0] - 0.5) ** 2 + (points[k]![1] - mesh[k]![1] - 0.5) ** 2;
  return { points, residual: Math.sqrt(sum / used.length) };
}

/** The 3 × 3 system m·p = b (row-major m) by Cramer's rule; null when it is singular. */
function solve3(m: number[], b: number[]): [number, number, number] | null {
  const det = (a: number[]) => a[0]! * (a[4]! * a[8]! - a[5]! * a[7]!) - a[1]! * (a[3]! * a[8]! - a[5]! * a[6]!) + a[2]! * (a[3]! * a[7]! - a[4]! * a[6]!);
  const d = det(m);
  if (!Number.isFinite(d) || Math.abs(d) < 1e-9) return null;
  const column = (c: number) => m.map((v, i) => (i % 3 === c ? b[Math.floor(i / 3)]! : v));
  return [det(column(0)) / d, det(column(1)) / d, det(column(2)) / d];
}
