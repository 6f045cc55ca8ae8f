import { nameKeys } from '@idv/domain';
import type { DocumentFields } from '../types.ts';
import { findDate, normaliseOcrText } from './printed-dates.ts';

/**
 * Agreement between the MRZ and the OCR text of the printed (visual) zone, field by field, as
 * pure functions. The MRZ value is looked for in the text: names through the domain's name keys
 * (accents, transliteration, hyphens), dates in the common printed forms, the document number
 * exactly. Lines that look like the MRZ itself are removed first, or every field would "agree"
 * with the very zone it is checked against.
 */
export const PRINTED_FIELDS = ['surname', 'given_names', 'birth_date', 'document_number', 'expiry_date', 'nationality', 'sex'] as const;
export type PrintedField = (typeof PRINTED_FIELDS)[number];
export type Agreement = 'agree' | 'differ' | 'absent';

/**
 * Fields whose absence from a legible printed zone counts as a difference. Nationality is printed
 * as a word (UTOPIAN, Française) and sex as one letter in a crowd of labels: found, they agree;
 * not found proves nothing, so they are `absent`.
 */
const DECISIVE: ReadonlySet<PrintedField> = new Set(['surname', 'given_names', 'birth_date', 'document_number', 'expiry_date']);

/** An OCR line that is an MRZ line (long, only MRZ characters; `<` often read as K, L or «). */
export function isMrzLike(line: string): boolean {
  const compact = line.replace(/\s+/g, '');
  if (compact.length < 25) return false;
  const mrzChars = compact.replace(/[^A-Z0-9<«]/g, '').length;
  return mrzChars / compact.length >= 0.9 && (/[<«]/.test(compact) || /[KL]{4,}/.test(compact));
}

export function printedLines(ocrText: string): string[] {
  return ocrText.split(/\r?\n/).filter((l) => l.trim() !== '' && !isMrzLike(l.trim()));
}

/**
 * A name key with the ICAO digraphs of umlauts folded (MAENNIK → MANNIK): OCR often reads the
 * printed Ä as A, which the domain's keys only cover when the MRZ itself dropped the accent.
 */
function folded(key: string): string {
  return key.replace(/AE/g, 'A').replace(/OE/g, 'O').replace(/UE/g, 'U').replace(/AA/g, 'A');
}

/** Name keys of every run of 1 to `maxWords` consecutive words of each line. */
function nameCandidates(lines: string[], maxWords: number): Set<string> {
  const keys = new Set<string>();
  for (const line of lines) {
    const words = line.split(/[\s/]+/).filter((w) => /\p{L}/u.test(w));
    for (let i = 0; i < words.length; i++) {
      for (let n = 1; n <= maxWords && i + n <= words.length; n++) {
        for (const k of nameKeys(words.slice(i, i + n).join(' '))) {
          keys.add(k);
          keys.add(folded(k));
        }
      }
    }
  }
  return keys;
}

/**
 * Characters OCR confuses in document numbers (O/0/D/Q, I/1/L, S/5, B/8, Z/2, G/6) folded to one
 * each. The MRZ holds the number with check digits; the printed copy only has to show the same
 * number, and refusing it for an OCR confusion would send honest people to review.
 */
export function unconfused(text: string): string {
  return text.replace(/[O0DQ]/g, '0').replace(/[I1L]/g, '1').replace(/[S5]/g, '5').replace(/[B8]/g, '8').replace(/[Z2]/g, '2').replace(/[G6]/g, '6');
}

/**
 * OCR tolerance: one misread character is the commonest miss, so names of at least this many
 * letters and document numbers agree within one edit. Dates stay exact: a changed digit is what a
 * forger changes, and the MRZ's check digits already guard its numbers.
 */
const MIN_TOLERANT_LENGTH = 6;

/** Levenshtein distance of at most one (one substitution, insertion or deletion). */
export function withinOneEdit(a: string, b: string): boolean {
  if (a === b) return true;
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1);
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/**
 * `needle` in `text` within one edit (numbers of 6 or more characters): a substituted character
 * (8 read as 2), or one added or dropped (`YMO0597008` for `YM0597008`: a round letter read twice).
 */
export function containsWithinOneEdit(text: string, needle: string): boolean {
  if (!needle) return false;
  if (text.includes(needle)) return true;
  if (needle.length < MIN_TOLERANT_LENGTH) return false;
  for (let i = 0; i + needle.length - 1 <= text.length; i++) {
    for (const len of [needle.length - 1, needle.length, needle.length + 1]) {
      if (i + len <= text.length && withinOneEdit(text.slice(i, i + len), needle)) return true;
    }
  }
  return false;
}

/** A field agrees when either reading shows it; differs when a reading differs and none agrees. */
export function mergeAgreements(a: Record<PrintedField, Agreement>, b: Record<PrintedField, Agreement>): Record<PrintedField, Agreement> {
  const out = {} as Record<PrintedField, Agreement>;
  for (const f of PRINTED_FIELDS) out[f] = a[f] === 'agree' || b[f] === 'agree' ? 'agree' : a[f] === 'differ' || b[f] === 'differ' ? 'differ' : 'absent';
  return out;
}

export function agreementWithMrz(ocrText: string, mrz: DocumentFields | null): Record<PrintedField, Agreement> {
  const lines = printedLines(ocrText);
  const text = normaliseOcrText(lines.join('\n'));
  const compact = text.replace(/\s+/g, '');
  const words = new Set(text.split(/\s+/));
  const names = nameCandidates(lines, 4);
  const out = {} as Record<PrintedField, Agreement>;
  for (const field of PRINTED_FIELDS) {
    const value = mrz?.[field]?.trim();
    if (!value) {
      out[field] = 'absent';
      continue;
    }
    let found: boolean;
    switch (field) {
      case 'surname':
      case 'given_names':
        found = nameKeys(value).some((k) => names.has(k) || names.has(folded(k)) || (k.length >= MIN_TOLERANT_LENGTH && [...names].some((n) => withinOneEdit(n, k) || withinOneEdit(n, folded(k)))));
        break;
      case 'birth_date':
      case 'expiry_date':
        found = findDate(text, value);
        break;
      case 'document_number':
        found = containsWithinOneEdit(unconfused(compact), unconfused(value.replace(/[<\s]/g, '').toUpperCase()));
        break;
      case 'nationality':
        // The code itself (UTO, FRA) or a word starting with it (FRANCAISE, UTOPIAN, DEUTSCH for D).
        found = [...words].some((w) => w === value || (value.length === 3 && w.startsWith(value)));
        break;
      case 'sex':
        found = words.has(value) || (value === 'F' && words.has('W')) || (value === 'X' && words.has('X'));
        break;
    }
    out[field] = found ? 'agree' : DECISIVE.has(field) ? 'differ' : 'absent';
  }
  return out;
}
