/**
 * One MRZ line image to per-character class probabilities: segment it into a known number of
 * cells, classify each cell. Also decides an unknown line length (30, 36 or 44) by which grid
 * the classifier finds most plausible.
 */
import { CLASS_COUNT, MRZ_ALPHABET, classifyCells, type MlpWeights } from './classifier.ts';
import { cellFeatures, findLineGrid, type GreyImage, type LineGrid } from './segment.ts';

export interface LineRead {
  count: number;
  grid: LineGrid;
  /** count × CLASS_COUNT probabilities. */
  probs: Float32Array;
  text: string;
  /** Mean log-probability of the best class per cell (higher is surer). */
  score: number;
}

export function recogniseLine(w: MlpWeights, line: GreyImage, count: number, shiftX = 0, shiftY = 0): LineRead | null {
  const grid = findLineGrid(line, count);
  if (!grid) return null;
  return recogniseOnGrid(w, line, grid, shiftX, shiftY);
}

export function recogniseOnGrid(w: MlpWeights, line: GreyImage, grid: LineGrid, shiftX = 0, shiftY = 0): LineRead {
  const count = grid.count;
  const probs = classifyCells(w, cellFeatures(line, grid, shiftX, shiftY), count);
  let text = '';
  let score = 0;
  for (let k = 0; k < count; k++) {
    let best = 0;
    for (let c = 1; c < CLASS_COUNT; c++) if (probs[k * CLASS_COUNT + c]! > probs[k * CLASS_COUNT + best]!) best = c;
    text += MRZ_ALPHABET[best];
    score += Math.log(probs[k * CLASS_COUNT + best]! + 1e-6);
  }
  return { count, grid, probs, text, score: score / count };
}

export const LINE_LENGTHS = [30, 36, 44] as const;

/** The most plausible reading among the MRZ line lengths, or null. */
export function recogniseLineAnyLength(w: MlpWeights, line: GreyImage, lengths: readonly number[] = LINE_LENGTHS): LineRead | null {
  let best: LineRead | null = null;
  for (const n of lengths) {
    const r = recogniseLine(w, line, n);
    if (r && (!best || r.score - r.grid.boundaryInk > best.score - best.grid.boundaryInk)) best = r;
  }
  return best;
}
