/**
 * The two medians the engine's measures use, written once. `upperMedian` is the element at the
 * middle of the sorted values (the upper of the two middle ones for an even count): what the
 * medium measures' spectral rings and colour statistics were measured and thresholded with.
 * `median` averages the two middle ones: the head's neutral pose in a live sequence. Both give 0
 * for no values.
 */

export function upperMedian(values: ArrayLike<number>): number {
  if (!values.length) return 0;
  // A typed copy sorts numerically and natively: the grain measures take it over a face's 65,536 pixels.
  const sorted = Float64Array.from(values).sort();
  return sorted[sorted.length >> 1]!;
}

export function median(values: readonly number[]): number {
  if (!values.length) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
