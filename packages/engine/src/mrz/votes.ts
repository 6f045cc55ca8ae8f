/**
 * The vote of a line's read variants (crops, grid phases): per position and character, the mean
 * probability and the share of variants whose best character it is; and the characters a
 * position may hold, ranked, once its field's kind is known.
 */
import { CLASS_COUNT, MRZ_ALPHABET } from './classifier.ts';
import type { CharKind } from './formats.ts';
import type { LineRead } from './recognizer-line.ts';

export interface Votes {
  /** Mean probability per position and class, over variants. */
  mean: Float32Array;
  /** Share of variants whose best class it is, per position and class. */
  share: Float32Array;
  count: number;
}

export function vote(reads: LineRead[], count: number): Votes {
  const mean = new Float32Array(count * CLASS_COUNT);
  const share = new Float32Array(count * CLASS_COUNT);
  for (const r of reads) {
    for (let i = 0; i < mean.length; i++) mean[i]! += r.probs[i]! / reads.length;
    for (let k = 0; k < count; k++) share[k * CLASS_COUNT + MRZ_ALPHABET.indexOf(r.text[k]!)]! += 1 / reads.length;
  }
  return { mean, share, count };
}

const LETTER = /[A-Z<]/;
const DIGIT = /[0-9<]/;

function allowedBy(kind: CharKind | undefined, c: string): boolean {
  if (kind === 'alpha') return LETTER.test(c);
  if (kind === 'numeric') return DIGIT.test(c);
  return true;
}

/**
 * Classes of a position, most likely first, among those its field allows, with probabilities and
 * vote shares renormalised over them: in a name, the mass the classifier gave to `0` goes to the
 * letters (the field settles O against 0; only letter against letter is left to decide).
 */
export function ranked(v: Votes, k: number, kind: CharKind | undefined): { c: string; p: number; share: number }[] {
  const out: { c: string; p: number; share: number }[] = [];
  let pSum = 0;
  let sSum = 0;
  for (let c = 0; c < CLASS_COUNT; c++) {
    const ch = MRZ_ALPHABET[c]!;
    if (!allowedBy(kind, ch)) continue;
    const p = v.mean[k * CLASS_COUNT + c]!;
    const share = v.share[k * CLASS_COUNT + c]!;
    pSum += p;
    sSum += share;
    out.push({ c: ch, p, share });
  }
  out.sort((a, b) => b.p - a.p);
  for (const o of out) {
    o.p = pSum > 0 ? o.p / pSum : 0;
    // No variant voted for an allowed class: the best allowed one inherits the vote.
    o.share = sSum > 0 ? o.share / sSum : o === out[0] ? 1 : 0;
  }
  return out;
}
