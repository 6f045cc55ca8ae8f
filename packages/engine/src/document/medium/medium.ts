import type { CheckReason } from '@idv/domain';
import type { DecodedImage } from '../decode.ts';
import type { Point } from '../locate.ts';
import { colourfulness } from './colourfulness.ts';
import { periodicity } from './periodicity.ts';

/**
 * The medium the document was presented on, judged passively from the one photo: a screen (a
 * periodic pixel grid and its coloured moiré) or a copy on paper (no colour beyond the light's
 * tint). Two rules a reviewer can read, each on its own measure; the thresholds were chosen on
 * one half of the generated attack set and reported on the other (bench/checks/pad-documents.ts,
 * docs/checks.md "The document side"). Neither is proof: they send the case to a person.
 */
export const MEDIUM_THRESHOLDS = {
  /** A screen: the stronger spectral peak (luminance grid or colour moiré), log10 over its ring's median, at least this. */
  minScreenPeak: 2.49,
  /** A copy: the document's colour spread (hundredths of chromaticity, 95th percentile) below this. */
  maxCopyColourSpread: 1.02,
} as const;

export interface MediumMeasures {
  /** Colour spread of the document (colourfulness.ts), 0 when too few pixels. */
  colour_spread: number;
  /** Spectral peak of the luminance at periods of 2–6 px (a pixel grid, a halftone). */
  pixel_grid_peak: number;
  /** Spectral peak of red minus blue at periods of 3–40 px (coloured moiré). */
  colour_moire_peak: number;
}

export function mediumMeasures(image: DecodedImage, corners: readonly Point[]): MediumMeasures {
  const p = periodicity(image, corners);
  return { colour_spread: round2(colourfulness(image, corners)), pixel_grid_peak: round2(p.lumaPeak), colour_moire_peak: round2(p.chromaPeak) };
}

/** The score the screen rule compares (the stronger of the two peaks). */
export function screenPeak(m: MediumMeasures): number {
  return Math.max(m.pixel_grid_peak, m.colour_moire_peak);
}

/**
 * The presentation-attack reasons of a located document's measures (pure). A screen's moiré
 * carries colour, so a screen is never also called a copy.
 */
export function mediumReasons(m: MediumMeasures, t: { minScreenPeak: number; maxCopyColourSpread: number } = MEDIUM_THRESHOLDS): CheckReason[] {
  if (screenPeak(m) >= t.minScreenPeak) return ['document_screen_replay_suspected'];
  if (m.colour_spread < t.maxCopyColourSpread) return ['document_photocopy_suspected'];
  return [];
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
