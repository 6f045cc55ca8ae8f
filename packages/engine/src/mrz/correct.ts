import { isIcaoCode, isSpecimenCode } from './codes.ts';
import { charKinds, checksFor, detectLayout, type CheckSpec, type MrzLayout } from './formats.ts';
import { checkPasses } from './verify.ts';

/**
 * OCR confusion correction of MRZ text: first by field type (digits where only digits may stand,
 * letters where only letters may), then by check digits in mixed fields, only when exactly one
 * combination of single letter↔digit changes makes every check pass. Never letter↔letter: letters
 * sharing a value modulo 10 (G/Q, A/K/U…) give the same check digit, so such a "correction" would
 * pass by construction; those are for the reader's votes and the printed zone to settle.
 */

/** Letters OCR takes for a digit, and the digit they stand for. */
const LETTER_TO_DIGIT: Readonly<Record<string, string>> = { O: '0', I: '1', B: '8', S: '5', Z: '2', G: '6', D: '0', Q: '0' };
/** Digits OCR takes for a letter, most likely letter first. */
const DIGIT_TO_LETTERS: Readonly<Record<string, readonly string[]>> = {
  '0': ['O', 'D', 'Q'], '1': ['I'], '8': ['B'], '5': ['S'], '2': ['Z'], '6': ['G'],
};

export interface CorrectionResult {
  lines: string[];
  /** Characters changed (both steps). */
  corrections: number;
  /** Several check-digit corrections fitted, so none was applied. */
  ambiguous: boolean;
}

export function correctMrz(lines: string[]): CorrectionResult {
  const layout = detectLayout(lines);
  if (!layout) return { lines, corrections: 0, ambiguous: false };
  const chars = lines.join('').split('');
  let corrections = fixByFieldType(layout, chars);
  const text = chars.join('');
  const solutions = checkDigitSolutions(layout, text);
  let final = text;
  if (solutions.length === 1) {
    const edits = solutions[0]!;
    const out = text.split('');
    for (const e of edits) out[e.pos] = e.char;
    final = out.join('');
    corrections += edits.length;
  }
  const n = layout.lineLength;
  return {
    lines: Array.from({ length: layout.lineCount }, (_, i) => final.slice(i * n, (i + 1) * n)),
    corrections,
    ambiguous: solutions.length > 1,
  };
}

/** Step 1, in place; returns the number of changes. */
function fixByFieldType(layout: MrzLayout, chars: string[]): number {
  const kinds = charKinds(layout);
  let changes = 0;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (kinds[i] === 'numeric' && LETTER_TO_DIGIT[c]) chars[i] = LETTER_TO_DIGIT[c]!;
    else if (kinds[i] === 'alpha' && DIGIT_TO_LETTERS[c]) chars[i] = DIGIT_TO_LETTERS[c]![0]!;
    if (chars[i] !== c) changes++;
  }
  // Country codes: among the letters a digit could be, prefer the one that makes a valid code.
  for (const span of [layout.issuingCountry, layout.nationality]) {
    if (!span) continue;
    const original = chars.slice(span.start, span.start + span.length);
    const digitAt = original.map((c, k) => (c !== chars[span.start + k] ? k : -1)).filter((k) => k >= 0);
    if (digitAt.length === 0) continue;
    const valid: string[] = [];
    const walk = (k: number, acc: string[]) => {
      if (k === digitAt.length) {
        const code = acc.join('');
        if (isIcaoCode(code) || isSpecimenCode(code)) valid.push(code);
        return;
      }
      const pos = digitAt[k]!;
      for (const letter of DIGIT_TO_LETTERS[original[pos]!]!) {
        const next = acc.slice();
        next[pos] = letter;
        walk(k + 1, next);
      }
    };
    walk(0, chars.slice(span.start, span.start + span.length));
    if (valid.length === 1) for (let k = 0; k < span.length; k++) chars[span.start + k] = valid[0]![k]!;
  }
  return changes;
}

interface Edit {
  pos: number;
  char: string;
}

/** Step 2: every combination of single letter↔digit edits that makes all checks pass. */
function checkDigitSolutions(layout: MrzLayout, text: string): Edit[][] {
  const checks = checksFor(layout, text);
  const failing = checks.filter((c) => !checkPasses(c, text));
  if (failing.length === 0) return [];
  const kinds = charKinds(layout);
  const own = failing.filter((c) => c.name !== 'composite');
  // Only the composite fails: the error sits in what the composite alone covers.
  const groups: Edit[][] =
    own.length > 0
      ? own.map((c) => editsFixing(c, text, positionsOf([c], kinds)))
      : [editsIn(text, compositeOnlyPositions(checks, kinds))];
  const solutions: Edit[][] = [];
  const walk = (k: number, acc: Edit[]) => {
    if (solutions.length > 1) return; // two are enough to know it is ambiguous
    if (k === groups.length) {
      const out = text.split('');
      for (const e of acc) out[e.pos] = e.char;
      const candidate = out.join('');
      if (checksFor(layout, candidate).every((c) => checkPasses(c, candidate))) solutions.push(acc);
      return;
    }
    for (const e of groups[k]!) walk(k + 1, [...acc, e]);
  };
  walk(0, []);
  return solutions;
}

function positionsOf(checks: CheckSpec[], kinds: string[]): number[] {
  const out: number[] = [];
  for (const c of checks) for (const sp of c.over) for (let i = sp.start; i < sp.start + sp.length; i++) if (kinds[i] === 'alnum') out.push(i);
  return out;
}

function compositeOnlyPositions(checks: CheckSpec[], kinds: string[]): number[] {
  const composite = checks.find((c) => c.name === 'composite');
  if (!composite) return [];
  const covered = new Set(positionsOf(checks.filter((c) => c.name !== 'composite'), kinds));
  return positionsOf([composite], kinds).filter((p) => !covered.has(p));
}

/** Letter↔digit swaps at these positions. */
function editsIn(text: string, positions: number[]): Edit[] {
  const edits: Edit[] = [];
  for (const pos of positions) {
    const c = text[pos]!;
    const options = LETTER_TO_DIGIT[c] ? [LETTER_TO_DIGIT[c]!] : (DIGIT_TO_LETTERS[c] ?? []);
    for (const char of options) edits.push({ pos, char });
  }
  return edits;
}

/** The swaps that make this one check pass on their own. */
function editsFixing(check: CheckSpec, text: string, positions: number[]): Edit[] {
  return editsIn(text, positions).filter((e) => {
    const out = text.split('');
    out[e.pos] = e.char;
    return checkPasses(check, out.join(''));
  });
}
