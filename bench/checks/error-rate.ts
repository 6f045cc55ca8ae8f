import jstat from 'jstat';

/**
 * An error rate of the benches (APCER, BPCER) with how sure it is, pure. The sets are small (16
 * capture windows, 79 frames, 217 generated prints), so a rate alone says less than it seems: 0 of
 * 16 is as compatible with 20% as with 0%. Each rate carries its exact two-sided 95% interval
 * (Clopper–Pearson: never narrower than its confidence promises, the usual choice in biometric
 * evaluation, ISO/IEC 19795-1), and a verdict against a target says "met" only when the whole
 * interval lies under it.
 *
 * The interval counts the items as independent trials. Frames or windows of one person, one clip
 * or one print are not: where a species holds few people the true uncertainty is wider, and the
 * benches print the people beside the interval.
 */

export interface ErrorRate {
  /** errors / judged to four decimals; null when nothing was judged. */
  rate: number | null;
  errors: number;
  judged: number;
  /** The exact 95% interval of the rate, to four decimals; null when nothing was judged. */
  ci95: [number, number] | null;
}

export function errorRate(errors: number, judged: number): ErrorRate {
  if (!Number.isInteger(errors) || !Number.isInteger(judged) || errors < 0 || errors > judged) throw new RangeError(`errorRate: ${errors} errors of ${judged} judged`);
  if (judged === 0) return { rate: null, errors, judged, ci95: null };
  const [lo, hi] = clopperPearson(errors, judged);
  return { rate: round4(errors / judged), errors, judged, ci95: [Math.floor(lo * 1e4) / 1e4, Math.ceil(hi * 1e4) / 1e4] };
}

/**
 * The Clopper–Pearson interval of `errors` in `judged` trials at `confidence` (two-sided): the
 * rates p for which seeing `errors` or fewer, or `errors` or more, is not rarer than (1 −
 * confidence) / 2, read off the Beta distribution's quantiles. Rounded outwards by errorRate only.
 */
export function clopperPearson(errors: number, judged: number, confidence = 0.95): [number, number] {
  const tail = (1 - confidence) / 2;
  const lo = errors === 0 ? 0 : jstat.jStat.beta.inv(tail, errors, judged - errors + 1);
  const hi = errors === judged ? 1 : jstat.jStat.beta.inv(1 - tail, errors + 1, judged - errors);
  return [lo, hi];
}

export type Verdict = 'met' | 'not_met' | 'undecided';

/**
 * A rate against a target it must not exceed: met when the interval's upper end is at most the
 * target, not met when its lower end is above it, undecided when the set cannot tell (or judged nothing).
 */
export function againstTarget(r: Pick<ErrorRate, 'errors' | 'judged'>, target: number): Verdict {
  if (r.judged === 0) return 'undecided';
  // The exact ends, not ErrorRate's rounded ones: rounding must not move a verdict.
  const [lo, hi] = clopperPearson(r.errors, r.judged);
  if (hi <= target) return 'met';
  return lo > target ? 'not_met' : 'undecided';
}

/**
 * How many items a species must judge, all without error, for its interval to lie under `target`
 * (so that a "met" can be shown): the least n with (1 − target)^n ≤ (1 − confidence) / 2.
 */
export function judgedNeededWithoutError(target: number, confidence = 0.95): number {
  return Math.ceil(Math.log((1 - confidence) / 2) / Math.log(1 - target));
}

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;
