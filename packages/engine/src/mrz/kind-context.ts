/**
 * The characters of a line whose format is not known, with the one rule every MRZ field keeps:
 * letters beside letters, digits beside digits ("L0PEZ" → "LOPEZ"). A Viterbi pass over the kinds
 * charges KIND_CHANGE_COST nats per change (fillers are free), so mixed document numbers keep their
 * kinds where the classifier is sure. The cost was chosen on mrz-lines (docs/checks-document.md).
 */
import { CLASS_COUNT, MRZ_ALPHABET } from './classifier.ts';

const KIND_CHANGE_COST = 1;

const DIGIT = 0;
const LETTER = 1;
const FILLER = 2;
const KINDS = 3;

function kindOf(c: number): number {
  const ch = MRZ_ALPHABET[c]!;
  return ch === '<' ? FILLER : ch >= '0' && ch <= '9' ? DIGIT : LETTER;
}

const CLASS_KIND = Array.from({ length: CLASS_COUNT }, (_, c) => kindOf(c));

function changeCost(from: number, to: number): number {
  return (from === DIGIT && to === LETTER) || (from === LETTER && to === DIGIT) ? KIND_CHANGE_COST : 0;
}

/** The text of `count` cells (count × CLASS_COUNT probabilities) decoded with the kind rule. */
export function charactersInContext(probs: Float32Array, count: number): string {
  if (count === 0) return '';
  // Best character and its log-probability per cell and kind.
  const bestChar = new Int32Array(count * KINDS).fill(-1);
  const bestLog = new Float64Array(count * KINDS).fill(-Infinity);
  for (let k = 0; k < count; k++) {
    for (let c = 0; c < CLASS_COUNT; c++) {
      const i = k * KINDS + CLASS_KIND[c]!;
      const l = Math.log(probs[k * CLASS_COUNT + c]! + 1e-6);
      if (l > bestLog[i]!) {
        bestLog[i] = l;
        bestChar[i] = c;
      }
    }
  }
  const score = new Float64Array(count * KINDS);
  const back = new Int8Array(count * KINDS);
  for (let s = 0; s < KINDS; s++) score[s] = bestLog[s]!;
  for (let k = 1; k < count; k++) {
    for (let s = 0; s < KINDS; s++) {
      let best = -Infinity;
      let from = 0;
      for (let p = 0; p < KINDS; p++) {
        const v = score[(k - 1) * KINDS + p]! - changeCost(p, s);
        if (v > best) {
          best = v;
          from = p;
        }
      }
      score[k * KINDS + s] = best + bestLog[k * KINDS + s]!;
      back[k * KINDS + s] = from;
    }
  }
  let s = 0;
  for (let t = 1; t < KINDS; t++) if (score[(count - 1) * KINDS + t]! > score[(count - 1) * KINDS + s]!) s = t;
  const out = new Array<string>(count);
  for (let k = count - 1; k >= 0; k--) {
    out[k] = MRZ_ALPHABET[bestChar[k * KINDS + s]!]!;
    s = back[k * KINDS + s]!;
  }
  return out.join('');
}
