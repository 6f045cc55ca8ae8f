import { isMrzLike, type PrintedField } from './printed-zone-match.ts';

/**
 * Which lines of the first OCR pass the second pass reads again, as pure functions. The first
 * pass (on a thresholded copy) finds the page's lines; when it misreads a decisive field (a date
 * `19.12.2080` for `2030`, a number with two digits wrong), the value is nearly always on a line
 * it found. Reading again only the lines that could hold the missed field, each cropped from the
 * grey copy, costs a fraction of reading the whole page again (measured on the document bench:
 * about a third of a page's CPU, five of six misses found), and the page is still read whole when
 * the lines are not enough (`secondOcrPass`).
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

const DIGITS = /[0-9]/g;
/** What a date's digits are read as when misread (O, o, I, l, S, B, Z). */
const DIGIT_LIKE = /[0-9OoIlSBZ]/g;
const LETTERS = /\p{L}/gu;
const count = (text: string, re: RegExp) => text.match(re)?.length ?? 0;

/** Whether a line of the first pass could hold a value of `field`, misread or not. */
export function couldHold(field: PrintedField, text: string): boolean {
  switch (field) {
    case 'birth_date':
    case 'expiry_date':
      return count(text, DIGITS) >= 2 && count(text, DIGIT_LIKE) >= 4;
    case 'document_number':
      return count(text, DIGITS) >= 3;
    default:
      return count(text, LETTERS) >= 3;
  }
}

/**
 * Above this share of the page, the lines are read as the whole page: cropping saves nothing then
 * (names missed on a page of names ask for nearly every line).
 */
export const MAX_REREAD_SHARE = 0.4;

/**
 * The boxes to read again for the `missed` fields, each line's box grown by a margin (a third of
 * its height above and below, where the first pass cut accents and descenders; 8 px each side)
 * and kept inside the page; MRZ lines never (the zone is read by its own reader). Null when they
 * cover more than MAX_REREAD_SHARE of the page or there is none: read the page instead.
 */
export function linesToReread(lines: readonly OcrLine[], missed: readonly PrintedField[], page: { width: number; height: number }): Box[] | null {
  const boxes: Box[] = [];
  let area = 0;
  for (const { text, box } of lines) {
    const t = text.trim();
    if (isMrzLike(t) || !missed.some((f) => couldHold(f, t))) continue;
    const my = Math.round((box.y1 - box.y0) / 3) + 2;
    const b = { x0: Math.max(0, box.x0 - 8), y0: Math.max(0, box.y0 - my), x1: Math.min(page.width, box.x1 + 8), y1: Math.min(page.height, box.y1 + my) };
    if (b.x1 - b.x0 < 8 || b.y1 - b.y0 < 8) continue;
    boxes.push(b);
    area += (b.x1 - b.x0) * (b.y1 - b.y0);
  }
  if (boxes.length === 0 || area > MAX_REREAD_SHARE * page.width * page.height) return null;
  return boxes;
}
