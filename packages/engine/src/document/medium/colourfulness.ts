import type { DecodedImage } from '../decode.ts';
import type { Point } from '../locate.ts';
import { pointInDocument, rgbAt } from './document-pixels.ts';
import { upperMedian } from '../../middle.ts';

/**
 * How much colour a document shows beyond the light's own tint. A black-and-white copy under a
 * warm lamp is uniformly tinted: every pixel has the same chromaticity (the share of red, green
 * and blue), whatever its brightness. A genuine document has tinted backgrounds, coloured
 * guilloches, a portrait, black text: its pixels' chromaticities spread. The measure is the 95th
 * percentile of each pixel's chromaticity distance from the document's median chromaticity, in
 * hundredths (0 = one single chromaticity; about 1–2 for a photographed grey copy).
 */
const GRID_U = 160;
const GRID_V = 100;
/** Pixels this dark carry mostly noise in their chromaticity; this bright, mostly clipping. */
const MIN_LUMA = 50;
const MAX_LUMA = 245;

export function colourfulness(image: DecodedImage, corners: readonly Point[]): number {
  const rs: number[] = [];
  const bs: number[] = [];
  for (let j = 0; j < GRID_V; j++) {
    for (let i = 0; i < GRID_U; i++) {
      const [x, y] = pointInDocument(corners, 0.04 + (0.92 * (i + 0.5)) / GRID_U, 0.04 + (0.92 * (j + 0.5)) / GRID_V);
      const [r, g, b] = rgbAt(image, x, y);
      const luma = 0.299 * r + 0.587 * g + 0.114 * b;
      if (luma < MIN_LUMA || luma > MAX_LUMA) continue;
      const sum = r + g + b;
      rs.push(r / sum);
      bs.push(b / sum);
    }
  }
  if (rs.length < 50) return 0;
  const mr = upperMedian(rs);
  const mb = upperMedian(bs);
  const distances = Float64Array.from(rs, (r, k) => Math.hypot(r - mr, bs[k]! - mb) * 100);
  return percentile(distances, 0.95);
}

function percentile(values: Float64Array, p: number): number {
  const sorted = values.sort();
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}
