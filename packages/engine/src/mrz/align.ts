/**
 * Places a line's N character centres where the glyphs are, without a rigid grid: the classifier
 * scans the band once, then dynamic programming picks N centres about a pitch apart (the pitch may
 * vary a little, and grow along a slanted line) that maximise the glyph-centred probability. The
 * scan does not depend on N, so the reader can try every plausible N cheaply.
 */
import { CLASS_COUNT, classifyCellsOnRuntime, type MrzClassifier } from './classifier.ts';
import { windowFeatures, type GreyImage, type LineBand } from './segment.ts';
import type { Votes } from './votes.ts';

export interface LineScan {
  /** Distance between window centres, in pixels; the first centre is at inkStart. */
  step: number;
  positions: number;
  /** log P(a glyph is centred here), per position. */
  logGlyph: Float32Array;
  /** positions × CLASS_COUNT character probabilities, given a glyph. */
  probs: Float32Array;
  inkStart: number;
  inkEnd: number;
}

/** Window centres per band height. */
const STEPS_PER_BAND = 10;
/** Spacing allowed between neighbouring centres, in pitches, and its cost in nats per (Δ/pitch)². */
const SPACING: [number, number] = [0.78, 1.22];
const SPACING_COST = 10;
/** How far inside the ink the first and last centres may lie, in pitches. */
const END_REACH = 0.62;

export async function scanLine(c: MrzClassifier, line: GreyImage, band: LineBand & { inkStart: number; inkEnd: number }): Promise<LineScan> {
  const step = band.bandHeight / STEPS_PER_BAND;
  const positions = Math.max(1, Math.floor((band.inkEnd - band.inkStart) / step) + 1);
  const centres = Float64Array.from({ length: positions }, (_, j) => band.inkStart + j * step);
  const glyph = new Float32Array(positions);
  const probs = await classifyCellsOnRuntime(c, windowFeatures(line, band, centres), positions, glyph);
  const logGlyph = glyph.map((g) => Math.log(g));
  return { step, positions, logGlyph, probs, inkStart: band.inkStart, inkEnd: band.inkEnd };
}

export interface Alignment {
  count: number;
  /** Scan position of each centre. */
  at: Int32Array;
  /** Mean over centres of log P(glyph) less the spacing costs (higher fits better). */
  fit: number;
}

/**
 * The best placement of `count` centres on the scan, or null when none fits the ink. `slope`:
 * the expected pitch grows steadily along the line, from (1 - slope) to (1 + slope) times the
 * mean (a line seen at a slant); 0 for a flat line.
 */
export function alignCount(scan: LineScan, count: number, slope = 0): Alignment | null {
  const { positions, logGlyph, step } = scan;
  const mean = (scan.inkEnd - scan.inkStart) / (count - 0.35) / step;
  if (count < 2 || mean * (1 - Math.abs(slope)) < 2) return null;
  const pitchAt = (j: number) => mean * (1 + slope * ((2 * j) / Math.max(1, positions - 1) - 1));
  const reach = Math.ceil(mean * END_REACH);
  const score = new Float64Array(count * positions).fill(-Infinity);
  const from = new Int32Array(count * positions).fill(-1);
  // The spacings allowed before each position and their costs depend on the position alone (its
  // pitch), not on which centre: worked out once, not once per centre.
  const dFrom = new Int32Array(positions);
  const dTo = new Int32Array(positions);
  let dShortest = Infinity;
  let dLongest = 0;
  for (let j = 0; j < positions; j++) {
    const pitch = pitchAt(j);
    dFrom[j] = Math.max(1, Math.floor(pitch * SPACING[0]));
    dTo[j] = Math.ceil(pitch * SPACING[1]);
    dShortest = Math.min(dShortest, dFrom[j]!);
    dLongest = Math.max(dLongest, dTo[j]!);
  }
  const spread = dLongest - dShortest + 1;
  const cost = new Float64Array(positions * spread);
  for (let j = 0; j < positions; j++) {
    const pitch = pitchAt(j);
    for (let d = dFrom[j]!; d <= dTo[j]!; d++) {
      const dev = (d - pitch) / pitch;
      cost[j * spread + d - dShortest] = SPACING_COST * dev * dev;
    }
  }
  // Centre k can only be where a chain of centres from a start (within `reach` of the ink's
  // start) can put it, and from where one can still reach an end (within `reach` of the ink's
  // end), each step between the shortest and the longest spacing anywhere on the line. Only
  // those cells are worked out: a cell that could reach an end reads only cells that could too,
  // so the best alignment is the one working out every cell would give, at a fraction of the
  // cost (most of a line crop's reading, which aligns every plausible length and slant).
  const endFrom = Math.max(0, positions - 1 - reach);
  const firstAt = (k: number) => Math.max(0, k * dShortest, endFrom - (count - 1 - k) * dLongest);
  const lastAt = (k: number) => Math.min(positions - 1, reach + k * dLongest, positions - 1 - (count - 1 - k) * dShortest);
  for (let j = firstAt(0); j <= lastAt(0); j++) score[j] = logGlyph[j]!;
  for (let k = 1; k < count; k++) {
    const row = k * positions;
    const prev = (k - 1) * positions;
    for (let j = firstAt(k), jEnd = lastAt(k); j <= jEnd; j++) {
      let best = -Infinity;
      let arg = -1;
      const costs = j * spread - dShortest;
      const dMax = Math.min(dTo[j]!, j);
      for (let d = dFrom[j]!; d <= dMax; d++) {
        const s = score[prev + j - d]!;
        if (s === -Infinity) continue;
        const v = s - cost[costs + d]!;
        if (v > best) {
          best = v;
          arg = j - d;
        }
      }
      if (arg >= 0) {
        score[row + j] = best + logGlyph[j]!;
        from[row + j] = arg;
      }
    }
  }
  const last = (count - 1) * positions;
  let end = -1;
  for (let j = Math.max(0, positions - 1 - reach); j < positions; j++) {
    if (score[last + j]! > (end < 0 ? -Infinity : score[last + end]!)) end = j;
  }
  if (end < 0) return null;
  const at = new Int32Array(count);
  let j = end;
  for (let k = count - 1; k >= 0; k--) {
    at[k] = j;
    j = from[k * positions + j]!;
  }
  return { count, at, fit: score[last + end]! / count };
}

/** Slants tried: pitches growing along the line by up to these fractions of the mean, either way. */
const SLOPES = [0, -0.15, 0.15, -0.3, 0.3];
/** A slant is paid for (in mean log-probability per centre): a flat line stays flat in a near tie. */
const SLOPE_COST = 0.1;

/**
 * The best placement of `count` centres, flat or slanted; its fit net of the slant's cost. Used
 * for line crops handed alone (read-line.ts). The zone reader keeps to flat alignments: slants
 * changed nothing on the 200 generated documents and 30 specimens, at five times the cost.
 */
export function alignSlanted(scan: LineScan, count: number): Alignment | null {
  let best: Alignment | null = null;
  for (const slope of SLOPES) {
    const a = alignCount(scan, count, slope);
    if (!a) continue;
    a.fit -= SLOPE_COST * Math.abs(slope);
    if (!best || a.fit > best.fit) best = a;
  }
  return best;
}

/**
 * The vote at the aligned centres: each centre and its two neighbouring scan positions (a little
 * to either side, as grid phases are read), weighted 1-2-1.
 */
export function alignedVotes(scan: LineScan, a: Alignment): Votes {
  const mean = new Float32Array(a.count * CLASS_COUNT);
  const share = new Float32Array(a.count * CLASS_COUNT);
  for (let k = 0; k < a.count; k++) {
    for (const [off, weight] of [[-1, 0.25], [0, 0.5], [1, 0.25]] as const) {
      const j = Math.min(scan.positions - 1, Math.max(0, a.at[k]! + off));
      let best = 0;
      for (let c = 0; c < CLASS_COUNT; c++) {
        const p = scan.probs[j * CLASS_COUNT + c]!;
        mean[k * CLASS_COUNT + c]! += weight * p;
        if (p > scan.probs[j * CLASS_COUNT + best]!) best = c;
      }
      share[k * CLASS_COUNT + best]! += weight;
    }
  }
  return { mean, share, count: a.count };
}
