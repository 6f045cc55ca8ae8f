import search from 'approx-string-match';
import { isMrzLike, unconfused, type PrintedField } from './printed-zone-match.ts';

/**
 * Which lines of the first OCR pass are read again: a misread decisive field is nearly always on a
 * line the first pass found, so the lines nearest the MRZ's value are cropped from the grey copy
 * and read alone; the page is read whole again only when that is not enough.
 */

/** A rectangle in the straightened document's pixels, right and bottom edges excluded. */
export interface Box {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A line of an OCR pass: its text and where it was found. */
export interface OcrLine {
  text: string;
  box: Box;
}

/** A decisive field the first pass missed, with the MRZ's value of it. */
export interface MissedField {
  field: PrintedField;
  value: string;
}

/**
 * Fewest edits turning `pattern` into some substring of `text` (approximate matching: the match
 * may start and end anywhere in the text), with approx-string-match (Myers' bit-parallel
 * algorithm): the pattern's length when nothing of it is there.
 */
export function substringDistance(pattern: string, text: string): number {
  if (!pattern) return 0;
  const matches = search(text, pattern, pattern.length);
  return matches.reduce((best, m) => Math.min(best, m.errors), pattern.length);
}

/** Upper-case letters only, accents removed (how a name is compared here). */
function letters(text: string): string {
  return text.normalize('NFD').replace(/\p{M}+/gu, '').toUpperCase().replace(/[^A-Z]/g, '');
}

/** Digits, with the letters OCR reads for them turned back (O, I, i, l, S, B, Z). */
function digits(text: string): string {
  return text.replace(/[Oo]/g, '0').replace(/[Iil|!]/g, '1').replace(/S/g, '5').replace(/B/g, '8').replace(/Z/g, '2').replace(/[^0-9]/g, '');
}

/** The MRZ's value and a line's text in the form they are compared in, per field. */
function comparable(field: PrintedField, value: string, line: string): [string, string] {
  switch (field) {
    case 'birth_date':
    case 'expiry_date': {
      // As printed most often, day month year (an ISO date in the MRZ reading).
      const [y, m, d] = value.split('-');
      return [`${d}${m}${y}`, digits(line)];
    }
    case 'document_number':
      return [unconfused(value.replace(/[<\s]/g, '').toUpperCase()), unconfused(line.toUpperCase().replace(/[^A-Z0-9]/g, ''))];
    default:
      return [letters(value.replace(/</g, ' ')), letters(line)];
  }
}

/** How far a line is from holding the value: edits per character of the value (0 = it is there). */
export function lineDistance(missed: MissedField, line: string): number {
  const [value, text] = comparable(missed.field, missed.value, line);
  if (!value || !text) return 1;
  return substringDistance(value, text) / value.length;
}

/** Lines further than this from every missed value are not read again. */
const MAX_LINE_DISTANCE = 0.65;
/** At most this many lines per missed field (the closest). */
const LINES_PER_FIELD = 2;

/** Lines of a row this many line heights apart or closer are read again together (a split value may have lost its middle). */
const ROW_GAP = 3;

/**
 * A line's box joined with the lines beside it on the same row (of a like height, overlapping by
 * half of it, at most ROW_GAP line heights apart): a value the first pass split (`06.0` and
 * `8.2031`, or `06` and `1965` without the month) is read again whole, and a block the first pass
 * took for one tall line stays alone.
 */
function withRow(line: OcrLine, lines: readonly OcrLine[]): Box {
  const b = { ...line.box };
  const h = b.y1 - b.y0;
  for (const other of lines) {
    const o = other.box;
    const oh = o.y1 - o.y0;
    const overlap = Math.min(b.y1, o.y1) - Math.max(b.y0, o.y0);
    const gap = Math.max(o.x0 - b.x1, b.x0 - o.x1);
    const sameSize = oh <= 1.5 * h && h <= 1.5 * oh;
    if (sameSize && overlap >= 0.5 * Math.min(h, oh) && gap < ROW_GAP * h && !isMrzLike(other.text.trim())) {
      b.x0 = Math.min(b.x0, o.x0);
      b.x1 = Math.max(b.x1, o.x1);
      b.y0 = Math.min(b.y0, o.y0);
      b.y1 = Math.max(b.y1, o.y1);
    }
  }
  return b;
}

/**
 * The boxes to read again for the missed fields: for each, the LINES_PER_FIELD lines closest to
 * its value (within MAX_LINE_DISTANCE; never an MRZ line), joined with their row, grown by a margin
 * (a third of the height above and below, where the first pass cut accents and descenders; 8 px
 * each side) and kept inside the page; a box inside another is dropped. Null when no line is
 * close: read the page instead.
 */
export function linesToReread(lines: readonly OcrLine[], missed: readonly MissedField[], page: { width: number; height: number }): Box[] | null {
  const chosen = new Set<OcrLine>();
  for (const m of missed) {
    const ranked = lines
      .filter((l) => !isMrzLike(l.text.trim()))
      .map((l) => ({ l, d: lineDistance(m, l.text) }))
      .filter((x) => x.d <= MAX_LINE_DISTANCE)
      .sort((a, b) => a.d - b.d);
    for (const { l } of ranked.slice(0, LINES_PER_FIELD)) chosen.add(l);
  }
  const boxes: Box[] = [];
  for (const line of chosen) {
    const row = withRow(line, lines);
    const my = Math.round((row.y1 - row.y0) / 3) + 2;
    const b = { x0: Math.max(0, row.x0 - 8), y0: Math.max(0, row.y0 - my), x1: Math.min(page.width, row.x1 + 8), y1: Math.min(page.height, row.y1 + my) };
    if (b.x1 - b.x0 >= 8 && b.y1 - b.y0 >= 8) boxes.push(b);
  }
  const inside = (a: Box, b: Box) => a !== b && a.x0 >= b.x0 && a.y0 >= b.y0 && a.x1 <= b.x1 && a.y1 <= b.y1;
  const kept = boxes.filter((a, i) => !boxes.some((b, j) => inside(a, b) && !(j > i && inside(b, a))));
  return kept.length > 0 ? kept : null;
}
