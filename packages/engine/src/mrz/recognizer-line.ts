/**
 * One MRZ line image, on a grid found by segment.ts, to per-character class probabilities: the
 * cells classified one by one, the best character of each, and how sure the classifier is.
 */
import { bestCharacters, classifyCellsOnRuntime, type MrzClassifier } from './classifier.ts';
import { cellFeatures, type GreyImage, type LineGrid } from './segment.ts';

export interface LineRead {
  count: number;
  grid: LineGrid;
  /** count × CLASS_COUNT probabilities. */
  probs: Float32Array;
  text: string;
  /**
   * Mean log-probability per cell of its best character and of a glyph being centred there at
   * all (higher is surer, and a better fitting grid).
   */
  score: number;
  /** Mean log-probability of a glyph being centred in each cell (how well the grid fits). */
  fit: number;
}

export async function recogniseOnGrid(c: MrzClassifier, line: GreyImage, grid: LineGrid, shiftX = 0, shiftY = 0): Promise<LineRead> {
  const count = grid.count;
  const glyph = new Float32Array(count);
  const probs = await classifyCellsOnRuntime(c, cellFeatures(line, grid, shiftX, shiftY), count, glyph);
  const { text, logSum } = bestCharacters(probs, count);
  let fit = 0;
  for (let k = 0; k < count; k++) fit += Math.log(glyph[k]!);
  return { count, grid, probs, text, score: (logSum + fit) / count, fit: fit / count };
}
