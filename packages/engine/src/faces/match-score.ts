/**
 * The face match's score: the distance between the two descriptors, corrected for the two faces'
 * image quality (recognition-descriptor.ts). The flow's thresholds (`face_match_max_distance`,
 * `face_review_max_distance`) are compared with it.
 *
 * Why: a poor face (blurred, dark, turned, old photo) is described less surely, so two poor photos
 * of one person lie further apart than two sharp ones, while a stranger's distance hardly depends
 * on quality (lfw-dev: same-person median distance 0.69 for pairs of mean quality over 4, 0.97
 * under 3; different people 1.41 in both). A single threshold at one false match in ten thousand
 * therefore misses mostly poorer pairs (the missed pairs' median quality 3.21, all pairs' 3.56).
 * Taking a little off the distance of
 * poorer pairs and adding a little to sharper ones moves the threshold onto the genuine pairs it
 * was missing: on lfw-dev's half B (not chosen on), FNMR at FMR 1e-4 3.9% → 3.0% over every pair,
 * 2.4% → 1.6% above the quality floor (docs/face-match.md: "How a face is described", step 5,
 * and "The match score's weight").
 *
 * The correction is linear in the pair's mean quality; its weight was chosen on half A of lfw-dev's
 * people alone (the fewest missed genuine pairs summed at FMR 1e-4, 2e-4, 5e-4 and 1e-3: a broad
 * optimum from 0.04 to 0.10). The reference only sets where the score equals the distance (lfw-dev's
 * median face quality is 3.56): it shifts the thresholds, not what they decide.
 */
export const MATCH_SCORE = {
  qualityWeight: 0.06,
  referenceQuality: 3.5,
} as const;

/** The score the flow's face thresholds are compared with: lower is more alike, like the distance. */
export function faceMatchScore(distance: number, qualityA: number, qualityB: number): number {
  return distance + MATCH_SCORE.qualityWeight * ((qualityA + qualityB) / 2 - MATCH_SCORE.referenceQuality);
}
