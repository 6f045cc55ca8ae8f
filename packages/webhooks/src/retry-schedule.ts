/**
 * The spec's retry schedule: a failed delivery is retried after 10 s, 1 min, 5 min, 30 min,
 * 2 h, 6 h and 24 h; the eighth failure (first attempt plus seven retries) exhausts it and
 * suspends the endpoint. Tests shrink the delays through configuration, never the count.
 */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 86_400_000];
export const RETRY_COUNT = RETRY_DELAYS_MS.length;
/** Failures of one delivery that suspend its endpoint. */
export const MAX_FAILURES = RETRY_COUNT + 1;

export type AfterFailure = { kind: 'retry'; delayMs: number } | { kind: 'exhausted' };

/** What follows the `failures`-th failure of a delivery (counting this one, from 1). */
export function afterFailure(failures: number, delaysMs: readonly number[] = RETRY_DELAYS_MS): AfterFailure {
  if (!Number.isInteger(failures) || failures < 1) throw new RangeError(`failures must be a positive integer (got ${failures})`);
  if (delaysMs.length !== RETRY_COUNT) throw new RangeError(`a retry schedule has exactly ${RETRY_COUNT} delays`);
  return failures >= MAX_FAILURES ? { kind: 'exhausted' } : { kind: 'retry', delayMs: delaysMs[failures - 1] };
}
