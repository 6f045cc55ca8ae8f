import { upperMedian } from '../../middle.ts';

/**
 * Grain against detail, on the face's luminance window (pixels.ts `faceWindow`, the image's own
 * resolution). A print adds a grain of its own to the picture it carries (an inkjet's dither, a
 * halftone's dots, the paper's fibres), and a screen its pixel grid; the camera then adds its
 * noise to both. A live face filmed once has only the camera's noise, and its fine texture comes
 * with the detail of a sharp image. So the two measures are:
 *
 *  - `grain`: the median absolute difference of each pixel from the mean of its 3×3 neighbourhood
 *    (log10 of grey levels): the finest texture, whatever made it;
 *  - `grainToDetail`: that grain over the median gradient of the window blurred to about 7×7
 *    pixels (log10): grain on a soft picture (a print or a screen re-photographed, a copy of a
 *    copy) stands out against it, where a sharp live face's fine texture comes with its detail.
 *
 * Both separate this project's generated prints and screens from the same photos filmed by the same
 * simulated camera (bench/checks/pad-set.ts's `generated_bona_fide`), which measures the medium and
 * not the simulated camera; on NUAA's real prints, seen by a 640×480 webcam, they go the other way
 * (docs/liveness.md gives the figures).
 */
export interface GrainMeasures {
  grain: number;
  grainToDetail: number;
}

/** `lum`: an n×n window of luminance (0..255). */
export function grainMeasures(lum: Float64Array, n: number): GrainMeasures {
  const fine = boxBlur(lum, n, 1);
  const soft = boxBlur(fine, n, 2);
  const margin = 3;
  const side = n - 2 * margin;
  if (side <= 0) return { grain: -3, grainToDetail: 0 };
  const residual = new Float64Array(side * side);
  const gradient = new Float64Array(side * side);
  let k = 0;
  for (let y = margin; y < n - margin; y++) {
    for (let x = margin; x < n - margin; x++) {
      const i = y * n + x;
      residual[k] = Math.abs(lum[i]! - fine[i]!);
      gradient[k++] = Math.hypot(soft[i + 1]! - soft[i - 1]!, soft[i + n]! - soft[i - n]!);
    }
  }
  const g = upperMedian(residual) + 1e-3;
  return { grain: Math.log10(g), grainToDetail: Math.log10(g / (upperMedian(gradient) + 1e-3)) };
}

/** The mean over a (2r+1)² square, separable (rows then columns), the square cut at the window's edges. */
function boxBlur(src: Float64Array, n: number, r: number): Float64Array {
  const rows = new Float64Array(n * n);
  const out = new Float64Array(n * n);
  for (let y = 0; y < n; y++) {
    for (let x = 0; x < n; x++) {
      let s = 0;
      const a = Math.max(0, x - r), b = Math.min(n - 1, x + r);
      for (let t = a; t <= b; t++) s += src[y * n + t]!;
      rows[y * n + x] = s / (b - a + 1);
    }
  }
  for (let y = 0; y < n; y++) {
    const a = Math.max(0, y - r), b = Math.min(n - 1, y + r);
    for (let x = 0; x < n; x++) {
      let s = 0;
      for (let t = a; t <= b; t++) s += rows[t * n + x]!;
      out[y * n + x] = s / (b - a + 1);
    }
  }
  return out;
}
