/**
 * Euclidean distance between two face descriptors (unit vectors, recognition-descriptor.ts): 0
 * for the same image, up to 2; the flow's thresholds are distances.
 */
export function faceDistance(a: ArrayLike<number>, b: ArrayLike<number>): number {
  if (a.length !== b.length || a.length === 0) throw new Error('face descriptors differ in length');
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += (a[i]! - b[i]!) ** 2;
  return Math.sqrt(sum);
}

/**
 * A 0..1 similarity for `measures`, readable by an operator: the cosine of the two unit
 * descriptors (1 − d²/2), 0 when it is negative. It ranks exactly as the distance does; it is a
 * display scale, not a probability.
 */
export function faceSimilarity(distance: number): number {
  const s = 1 - (distance * distance) / 2;
  return Math.round(Math.min(1, Math.max(0, s)) * 1000) / 1000;
}

/** The vector's Euclidean length. */
export function vectorLength(values: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i]! ** 2;
  return Math.sqrt(sum);
}

/** The vector scaled to unit length (a zero vector stays zero). */
export function unitVector(values: ArrayLike<number>, length = vectorLength(values)): number[] {
  const norm = length || 1;
  return Array.from(values, (v) => v / norm);
}
