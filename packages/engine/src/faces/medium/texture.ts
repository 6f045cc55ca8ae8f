import type { FaceBox } from '../../types.ts';
import type { RgbImage } from '../decode-image.ts';

/**
 * Micro-texture of the face, pure: the face's box made square and brought to a fixed 64×64 by
 * area averaging (the same scale whatever the camera's resolution, as Määttä, Hadid and
 * Pietikäinen, 2011, normalise NUAA's faces), then local binary patterns on it. A printed or
 * re-displayed face has lost the skin's fine shading and gained the medium's own (paper grain,
 * dots, a flat low-contrast range): the share of each kind of pattern moves.
 *
 * Measured and reported, not in the combined model: they tell NUAA's prints from NUAA's live
 * frames (one webcam) almost perfectly, but a phone's video frames are smoother than both and the
 * generated prints grainier than photos, so across cameras they do not hold a 3% BPCER
 * (docs/liveness.md, scripts/fit-pad-model.ts).
 */

export const CROP = 64;

export interface TextureMeasures {
  /** Share of the crop's LBP(8,1) patterns that are a straight edge (4 of 8 neighbours brighter): high on NUAA's prints, low on dithered ones. */
  edges: number;
  /** Share of non-uniform LBP(8,1) patterns (more than two changes around the circle): noise and fine grain. */
  irregular: number;
}

/** The texture measures of a face: one 64×64 crop, one LBP histogram (1 to 2 ms a still). */
export function textureMeasures(image: RgbImage, box: FaceBox): TextureMeasures {
  const crop = faceCrop(image, box);
  const hist = lbpHistogram(cropGrey(crop), CROP, 8, 1);
  return { edges: hist[4]!, irregular: hist[9]! };
}

/** The face's square box, 64×64, RGB (0..255), by averaging every source pixel that falls in each cell. */
export function faceCrop(image: RgbImage, box: FaceBox, size = CROP): Float64Array {
  const side = Math.max(box.width, box.height);
  const x0 = box.x + box.width / 2 - side / 2;
  const y0 = box.y + box.height / 2 - side / 2;
  const out = new Float64Array(size * size * 3);
  const cell = side / size;
  for (let cy = 0; cy < size; cy++) {
    const ya = Math.max(0, Math.floor(y0 + cy * cell));
    const yb = Math.min(image.height, Math.max(ya + 1, Math.floor(y0 + (cy + 1) * cell)));
    for (let cx = 0; cx < size; cx++) {
      const xa = Math.max(0, Math.floor(x0 + cx * cell));
      const xb = Math.min(image.width, Math.max(xa + 1, Math.floor(x0 + (cx + 1) * cell)));
      let r = 0, g = 0, b = 0, n = 0;
      for (let y = ya; y < yb; y++) {
        for (let x = xa, i = (y * image.width + xa) * 3; x < xb; x++, i += 3) {
          r += image.data[i]!;
          g += image.data[i + 1]!;
          b += image.data[i + 2]!;
          n++;
        }
      }
      const o = (cy * size + cx) * 3;
      if (n) {
        out[o] = r / n;
        out[o + 1] = g / n;
        out[o + 2] = b / n;
      }
    }
  }
  return out;
}

/** Grey (BT.601 luma) of an RGB crop. */
export function cropGrey(crop: Float64Array): Float64Array {
  const out = new Float64Array(crop.length / 3);
  for (let i = 0; i < out.length; i++) out[i] = 0.299 * crop[3 * i]! + 0.587 * crop[3 * i + 1]! + 0.114 * crop[3 * i + 2]!;
  return out;
}

/**
 * Uniform LBP histogram (P neighbours on a circle of radius R, bilinear), normalised to sum 1:
 * bins 0..P are the uniform patterns by their count of brighter neighbours (0: a dark spot, P: a
 * flat or bright spot, the middle ones: edges and corners), bin P+1 all non-uniform patterns.
 * Rotation invariant (riu2): few bins, which is what a model fitted on a handful of people can bear.
 */
export function lbpHistogram(grey: Float64Array, size: number, points: number, radius: number): Float64Array {
  const hist = new Float64Array(points + 2);
  const dx = Array.from({ length: points }, (_, p) => radius * Math.cos((2 * Math.PI * p) / points));
  const dy = Array.from({ length: points }, (_, p) => -radius * Math.sin((2 * Math.PI * p) / points));
  const bits = new Uint8Array(points);
  const m = Math.ceil(radius);
  for (let y = m; y < size - m; y++) {
    for (let x = m; x < size - m; x++) {
      const c = grey[y * size + x]!;
      let ones = 0;
      for (let p = 0; p < points; p++) {
        const v = bilinear(grey, size, x + dx[p]!, y + dy[p]!);
        // A small tolerance: the interpolation of a flat patch can fall a rounding error under it.
        bits[p] = v >= c - 1e-6 ? 1 : 0;
        ones += bits[p]!;
      }
      let transitions = 0;
      for (let p = 0; p < points; p++) transitions += bits[p] !== bits[(p + 1) % points] ? 1 : 0;
      hist[transitions <= 2 ? ones : points + 1]! += 1;
    }
  }
  const total = hist.reduce((s, v) => s + v, 0) || 1;
  for (let i = 0; i < hist.length; i++) hist[i]! /= total;
  return hist;
}

function bilinear(grey: Float64Array, size: number, x: number, y: number): number {
  // Integer positions (radius 1 and 2 at the axes) read exactly; others interpolate.
  const x0 = Math.floor(x + 1e-9), y0 = Math.floor(y + 1e-9);
  const fx = x - x0, fy = y - y0;
  const i = y0 * size + x0;
  if (fx < 1e-6 && fy < 1e-6) return grey[i]!;
  const a = grey[i]!, b = grey[i + 1] ?? a, c = grey[i + size] ?? a, d = grey[i + size + 1] ?? a;
  return a * (1 - fx) * (1 - fy) + b * fx * (1 - fy) + c * (1 - fx) * fy + d * fx * fy;
}
