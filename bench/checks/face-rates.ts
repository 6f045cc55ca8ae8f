/**
 * Error rates of a face comparison, in the field's terms: a pair is a match when its score (the
 * distance, or the flow's quality-corrected score: lower is more alike) is at most the threshold;
 * FMR is the share of different-person (impostor) pairs that match, FNMR the share of same-person
 * (genuine) pairs that do not.
 */

export interface Pairs {
  /** Scores of same-person pairs, ascending. */
  genuine: Float64Array;
  /** Scores of different-person pairs, ascending. */
  impostor: Float64Array;
}

/** Every pair of the items (i < j) scored by `compare`, split by whether both are the same person; `keep` leaves pairs out. */
export function pairScores<T>(items: T[], person: (t: T) => string, compare: (a: T, b: T) => number, keep: (a: T, b: T) => boolean = () => true): Pairs {
  const genuine: number[] = [];
  const impostor: number[] = [];
  for (let i = 0; i < items.length; i++) {
    for (let j = i + 1; j < items.length; j++) {
      const a = items[i]!, b = items[j]!;
      if (!keep(a, b)) continue;
      (person(a) === person(b) ? genuine : impostor).push(compare(a, b));
    }
  }
  return { genuine: Float64Array.from(genuine).sort(), impostor: Float64Array.from(impostor).sort() };
}

/** How many values of an ascending array are at most `t`. */
function countAtMost(sorted: Float64Array, t: number): number {
  let lo = 0, hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export function ratesAt(p: Pairs, threshold: number): { fmr: number; fnmr: number; false_matches: number; false_non_matches: number } {
  const falseMatches = countAtMost(p.impostor, threshold);
  const falseNonMatches = p.genuine.length - countAtMost(p.genuine, threshold);
  return { fmr: falseMatches / Math.max(1, p.impostor.length), fnmr: falseNonMatches / Math.max(1, p.genuine.length), false_matches: falseMatches, false_non_matches: falseNonMatches };
}

/**
 * The largest threshold (3 decimals, rounded down) whose FMR on these pairs is at most `fmr`,
 * and the rates there.
 */
export function thresholdAtFmr(p: Pairs, fmr: number) {
  const allowed = Math.floor(fmr * p.impostor.length);
  // Just under the first impostor distance that would exceed the allowance.
  const limit = allowed < p.impostor.length ? p.impostor[allowed]! : Number.POSITIVE_INFINITY;
  let threshold = Math.floor(limit * 1000) / 1000;
  if (threshold >= limit) threshold -= 0.001;
  return { threshold: r3(threshold), ...roundRates(ratesAt(p, threshold)) };
}

/** FNMR at each FMR of `fmrs` (a DET curve's points). */
export function detPoints(p: Pairs, fmrs: number[]) {
  return fmrs.map((fmr) => {
    const { threshold, fnmr } = thresholdAtFmr(p, fmr);
    return { fmr, fnmr, threshold };
  });
}

export function roundRates<T extends { fmr: number; fnmr: number }>(r: T): T {
  return { ...r, fmr: Math.round(r.fmr * 1e6) / 1e6, fnmr: Math.round(r.fnmr * 1e4) / 1e4 };
}

export function spread(values: ArrayLike<number>, digits = 3) {
  const s = Float64Array.from(values).sort();
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))]!;
  const round = (v: number) => Math.round(v * 10 ** digits) / 10 ** digits;
  return s.length === 0 ? null : { n: s.length, min: round(s[0]!), p50: round(at(0.5)), p95: round(at(0.95)), max: round(s[s.length - 1]!) };
}

const r3 = (v: number) => Math.round(v * 1000) / 1000;
