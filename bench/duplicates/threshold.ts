import { faceDistance } from '../../packages/engine/src/index.ts';
import { halfOf } from '../checks/faces-lfw.ts';
import type { LfwFace } from './lfw-descriptors.ts';

/**
 * The duplicate search's threshold from real faces (lfw-dev), split by identity: one half chooses
 * the threshold, the other reports the rates at it.
 *
 * In each half every photo is searched for among all the other photos of that half (the gallery):
 *  - a non-mated search: the photo against the other persons' photos; a false positive when any of
 *    them is within the threshold (FPIR, NIST's false positive identification rate);
 *  - a mated search, for a photo whose person has another photo in the half (a genuine pair
 *    planted in the gallery): a miss when none of the person's other photos is within the
 *    threshold (FNIR).
 * The threshold chosen is the largest one whose FPIR on the choosing half is ≤ the target.
 */

export const FPIR_TARGET = 1e-3;

export interface HalfStats {
  photos: number;
  persons: number;
  /** Photos searched for against the others (each photo's gallery is the half's other photos). */
  gallery_size: number;
  non_mated_searches: number;
  mated_searches: number;
  /** Sorted nearest other-person distance of each photo. */
  nearestNonMate: number[];
  /** Nearest same-person distance of each photo that has a mate. */
  nearestMate: number[];
  /** Every different-person pair's distance (for the FMR). */
  impostorPairs: number;
  impostorDistances: Float64Array;
}

export function splitByIdentity(faces: readonly LfwFace[]): { choose: LfwFace[]; report: LfwFace[] } {
  const choose: LfwFace[] = [];
  const report: LfwFace[] = [];
  for (const f of faces) (halfOf(f.identity) === 0 ? choose : report).push(f);
  return { choose, report };
}

export function halfStats(faces: readonly LfwFace[]): HalfStats {
  const n = faces.length;
  const nearestNonMate = new Array<number>(n).fill(Infinity);
  const nearestMate = new Array<number>(n).fill(Infinity);
  const impostor: number[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const d = faceDistance(faces[i]!.template, faces[j]!.template);
      if (faces[i]!.identity === faces[j]!.identity) {
        nearestMate[i] = Math.min(nearestMate[i]!, d);
        nearestMate[j] = Math.min(nearestMate[j]!, d);
      } else {
        impostor.push(d);
        nearestNonMate[i] = Math.min(nearestNonMate[i]!, d);
        nearestNonMate[j] = Math.min(nearestNonMate[j]!, d);
      }
    }
  }
  const mates = nearestMate.filter((d) => d !== Infinity);
  return {
    photos: n,
    persons: new Set(faces.map((f) => f.identity)).size,
    gallery_size: n - 1,
    non_mated_searches: n,
    mated_searches: mates.length,
    nearestNonMate: nearestNonMate.sort((a, b) => a - b),
    nearestMate: mates.sort((a, b) => a - b),
    impostorPairs: impostor.length,
    impostorDistances: Float64Array.from(impostor).sort(),
  };
}

/** Largest threshold (a match when distance ≤ t, three decimals) with FPIR ≤ target on these searches. */
export function chooseThreshold(s: HalfStats, target = FPIR_TARGET): number {
  const allowed = Math.floor(target * s.nearestNonMate.length);
  const first = s.nearestNonMate[allowed]!; // the first false positive not allowed
  // Three decimals, strictly below it.
  return Math.ceil(first * 1000) / 1000 - 0.001;
}

export function ratesAt(s: HalfStats, t: number) {
  const falsePositives = s.nearestNonMate.filter((d) => d <= t).length;
  const misses = s.nearestMate.filter((d) => d > t).length;
  let fm = 0;
  while (fm < s.impostorDistances.length && s.impostorDistances[fm]! <= t) fm++;
  const fmr = fm / Math.max(1, s.impostorPairs);
  return {
    threshold: t,
    fpir: r6(falsePositives / s.non_mated_searches),
    false_positive_searches: falsePositives,
    fnir: r4(misses / Math.max(1, s.mated_searches)),
    missed_mated_searches: misses,
    fmr: fmr,
    false_match_pairs: fm,
    // Under independent comparisons, the FPIR this FMR would give at larger galleries.
    fpir_expected_at_10k: r6(1 - (1 - fmr) ** 10_000),
    fpir_expected_at_1m: r6(1 - (1 - fmr) ** 1_000_000),
  };
}

const r4 = (v: number) => Math.round(v * 1e4) / 1e4;
const r6 = (v: number) => Math.round(v * 1e6) / 1e6;
