import type { CheckReason } from '@idv/domain';
import type { DecodedImage } from '../decode.ts';
import type { Point } from '../locate.ts';
import { colourfulness } from './colourfulness.ts';
import { loadMediumNet, mediumNetScores } from './medium-net.ts';
import { periodicity } from './periodicity.ts';

/**
 * The medium the document was presented on, judged passively from the one photo: a screen (a
 * periodic pixel grid and its coloured moiré) or a copy on paper (no colour beyond the light's
 * tint), each read two ways: by measures a reviewer can follow (spectral peaks, colour spread),
 * and by this project's document medium network (medium-net.ts), which reads the fine texture
 * itself (a faded colour copy keeps enough colour for the spread, but not its paper and dots).
 * Each rule raises its reason on its own. The spectral and colour thresholds were chosen on one
 * half of the generated attack set and reported on the other; the network's, on the other half,
 * cross-fitted over its two quarters, since the network was trained on the first
 * (bench/checks/pad-documents.ts, docs/liveness.md "The document side"). None is proof: they
 * send the case to a person.
 */
export const MEDIUM_THRESHOLDS = {
  /** A screen: the stronger spectral peak (luminance grid or colour moiré), log10 over its ring's median, at least this. */
  minScreenPeak: 2.49,
  /** A copy: the document's colour spread (hundredths of chromaticity, 95th percentile) below this. */
  maxCopyColourSpread: 1.02,
  /**
   * A screen: the network's mean log-odds of a screen against a genuine document, at least this.
   * The network's two thresholds are chosen where it was not trained: on the test half of
   * bench:pad-documents, cross-fitted (each quarter's choice reported on the other quarter), the
   * stricter of the two quarters' choices. The thresholds its training script's folds chose (1.71
   * and 3.44), from networks each trained on half as much, let most copies through: the network
   * shipped scores the test half's unseen genuine documents far lower than the folds scored theirs
   * (whether for its training or for the documents, 15 a half cannot tell).
   */
  minScreenNet: -0.09,
  /** A copy: the network's mean log-odds of a copy on paper against a genuine document, at least this. */
  minCopyNet: 0.74,
} as const;

export type MediumThresholds = { readonly [K in keyof typeof MEDIUM_THRESHOLDS]: number };

export interface MediumMeasures {
  /** Colour spread of the document (colourfulness.ts), 0 when too few pixels. */
  colour_spread: number;
  /** Spectral peak of the luminance at periods of 2–6 px (a pixel grid, a halftone). */
  pixel_grid_peak: number;
  /** Spectral peak of red minus blue at periods of 3–40 px (coloured moiré). */
  colour_moire_peak: number;
  /** The network's mean log-odds of a screen (0 when not read: see network_patches). */
  screen_network: number;
  /** The network's mean log-odds of a copy on paper (0 when not read). */
  copy_network: number;
  /** Patches the network read (0: the document too small or too little of it in the photo; the network's rules are then silent). */
  network_patches: number;
}

/**
 * The measures of a located document. `network: false` leaves the network out (its measures 0):
 * it was trained on the fronts of documents only, and a card's back (a barcode, a zone, black
 * text on a pale ground) is not what it learnt a genuine document looks like.
 */
export async function mediumMeasures(image: DecodedImage, corners: readonly Point[], options: { network?: boolean } = {}): Promise<MediumMeasures> {
  const p = periodicity(image, corners);
  const net = options.network === false ? null : await mediumNetScores(await loadMediumNet(), image, corners);
  return {
    colour_spread: round2(colourfulness(image, corners)),
    pixel_grid_peak: round2(p.lumaPeak),
    colour_moire_peak: round2(p.chromaPeak),
    screen_network: round2(net?.screen ?? 0),
    copy_network: round2(net?.copy ?? 0),
    network_patches: net?.patches ?? 0,
  };
}

/** The score the screen rule compares (the stronger of the two peaks). */
export function screenPeak(m: MediumMeasures): number {
  return Math.max(m.pixel_grid_peak, m.colour_moire_peak);
}

/**
 * The presentation-attack reasons of a located document's measures (pure). A screen's moiré
 * carries colour, so a screen is never also called a copy.
 */
export function mediumReasons(m: MediumMeasures, t: MediumThresholds = MEDIUM_THRESHOLDS): CheckReason[] {
  const read = m.network_patches > 0;
  if (screenPeak(m) >= t.minScreenPeak || (read && m.screen_network >= t.minScreenNet)) return ['document_screen_replay_suspected'];
  if (m.colour_spread < t.maxCopyColourSpread || (read && m.copy_network >= t.minCopyNet)) return ['document_photocopy_suspected'];
  return [];
}

function round2(v: number): number {
  return Math.round(v * 100) / 100;
}
