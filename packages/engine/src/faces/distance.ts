/**
 * Euclidean distance between two face descriptors (the fused face-api + faceres descriptor of
 * fused-descriptor.ts: 0 same image, ~0.5 same person, ~0.8 strangers on the fixtures).
 */
export function faceDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) throw new Error('face descriptors differ in length');
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(sum);
}

/**
 * A 0..1 similarity for `measures`, readable by an operator: 1 at distance 0, 0.5 at the usual
 * match threshold (0.63), 0 from 1.26 on. Linear, so it ranks exactly as the distance does; it
 * is a display scale, not a probability.
 */
export const SIMILARITY_ZERO_DISTANCE = 1.26;
export function faceSimilarity(distance: number): number {
  const s = 1 - distance / SIMILARITY_ZERO_DISTANCE;
  return Math.round(Math.min(1, Math.max(0, s)) * 1000) / 1000;
}
