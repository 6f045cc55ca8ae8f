import type { DecodedImage } from './decode.ts';
import type { Box } from './printed-zone-reread.ts';
import { cropImage } from './crop.ts';
import { withInk } from './ink-mat.ts';

/**
 * Where a page is cut in two so that two tesseract workers read its halves at once (tesseract reads
 * a page on one thread). A cut runs between lines of print, found by smearing ink sideways and
 * opening it upright; of the possible rows, the one sharing the reading most evenly is chosen. A
 * page with no fair cut is read whole; a line cut anyway is read again by the second pass.
 */

/**
 * Letters and words of a line are at most this far apart at OCR_WIDTH (1000 px). At 25 px a date
 * joined the portrait through the dash between them.
 */
const JOIN_WIDTH = 15;
/** Ink thinner than this, upright, after the smear: a dash, not print. */
const BRIDGE_HEIGHT = 7;
/** A piece of ink at most this tall may be (part of) a line of print: the MRZ's letters are about 40 px. */
const LINE_MAX_HEIGHT = 64;
/**
 * Nor less tall: a label's smallest line is about 12 px. Lower pieces are the dashes a guilloche
 * leaves after the threshold, strewn over the page; cutting one leaves two shorter dashes.
 */
const LINE_MIN_HEIGHT = 8;
/** Neither half may hold less than this share of the page's lines (by their cost). */
export const MIN_SHARE = 0.2;
/** Rows kept free of ink on each side of a cut, so no descender or accent is shaved. */
const CLEARANCE = 2;

/** The boxes of the pieces of ink of a thresholded page that may be lines of print. */
function lineBoxes(binary: DecodedImage): Promise<Box[]> {
  return withInk(binary, 'lineBoxes', (cv, ink, mat) => {
    const smeared = mat(new cv.Mat());
    cv.dilate(ink, smeared, mat(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(JOIN_WIDTH, 1))));
    cv.morphologyEx(smeared, smeared, cv.MORPH_OPEN, mat(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(1, BRIDGE_HEIGHT))));
    const stats = mat(new cv.Mat());
    const count: number = cv.connectedComponentsWithStats(smeared, mat(new cv.Mat()), stats, mat(new cv.Mat()), 8, cv.CV_32S);
    const s = stats.data32S as Int32Array;
    const boxes: Box[] = [];
    // Piece 0 is the paper.
    for (let i = 1; i < count; i++) {
      const [left, top, width, height] = [s[i * 5]!, s[i * 5 + 1]!, s[i * 5 + 2]!, s[i * 5 + 3]!];
      if (height >= LINE_MIN_HEIGHT && height <= LINE_MAX_HEIGHT) boxes.push({ x0: left, y0: top, x1: left + width, y1: top + height });
    }
    return boxes;
  });
}

/** A line's share of the reading: its width once scaled to a fixed height. */
const cost = (b: Box): number => (b.x1 - b.x0) / Math.max(1, b.y1 - b.y0);

/**
 * The row to cut a page of `height` rows at, given its possible lines, or null when no row that
 * runs between them leaves MIN_SHARE of their cost on each side. Pure. Of the rows sharing the
 * best split, the middle one of their gap.
 */
export function chooseCut(boxes: readonly Box[], height: number): number | null {
  const blocked = new Uint8Array(height);
  // The cost of the lines ending before each row, by where they end.
  const endingAt = new Float64Array(height + 1);
  let total = 0;
  for (const b of boxes) {
    for (let y = Math.max(0, b.y0 - CLEARANCE); y < Math.min(height, b.y1 + CLEARANCE); y++) blocked[y] = 1;
    endingAt[Math.min(height, b.y1)] += cost(b);
    total += cost(b);
  }
  if (total === 0) return null;
  let above = 0;
  let best = -1;
  let bestStart = -1;
  let bestEnd = -1;
  for (let y = 0; y < height; y++) {
    above += endingAt[y]!;
    if (blocked[y]) continue;
    const share = Math.min(above, total - above) / total;
    if (share > best + 1e-9) [best, bestStart, bestEnd] = [share, y, y];
    else if (Math.abs(share - best) <= 1e-9 && bestEnd === y - 1) bestEnd = y;
  }
  if (best < MIN_SHARE) return null;
  return Math.round((bestStart + bestEnd) / 2);
}

/** A piece of a page read on its own: its pixels and its first row in the page. */
export interface PagePiece {
  image: DecodedImage;
  top: number;
}

/** A thresholded page in the pieces to read at once: its two halves when it has a cut (see above), else itself. */
export async function cutPage(binary: DecodedImage): Promise<PagePiece[]> {
  const cut = chooseCut(await lineBoxes(binary), binary.height);
  if (cut === null) return [{ image: binary, top: 0 }];
  const rows = (top: number, bottom: number): PagePiece => ({ image: cropImage(binary, { x0: 0, y0: top, x1: binary.width, y1: bottom }), top });
  return [rows(0, cut), rows(cut, binary.height)];
}
