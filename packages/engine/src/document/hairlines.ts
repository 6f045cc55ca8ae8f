import type { DecodedImage } from './decode.ts';
import { withInk } from './ink-mat.ts';

/**
 * Ink left by the local threshold that cannot be print, removed before the first OCR pass:
 * tesseract takes each guilloche hairline for a line of text. By its box, a piece is a hairline
 * (long and thin: removed), a speck (tiny: removed) or a tangle (longer than any character: only
 * its one-pixel strokes are opened away, which frees the print it runs through). bench/README.md
 * gives what it saves.
 */
const HAIRLINE_MIN_LENGTH = 12;
const HAIRLINE_MAX_THICKNESS = 1.5;
const SPECK_MAX_AREA = 2;
const TANGLE_MIN_LENGTH = 60;

const PAPER = 255;

/** A copy of a binary image (ink 0, paper 255) without its hairlines and specks, its tangles thinned. */
export function dropHairlines(binary: DecodedImage): Promise<DecodedImage> {
  return withInk(binary, 'dropHairlines', (cv, ink, mat) => {
    const labels = mat(new cv.Mat());
    const stats = mat(new cv.Mat());
    const count: number = cv.connectedComponentsWithStats(ink, labels, stats, mat(new cv.Mat()), 8, cv.CV_32S);
    const kind = pieceKinds(stats.data32S as Int32Array, count, cv);

    const out = Buffer.from(binary.data);
    const tangled = mat(new cv.Mat(binary.height, binary.width, cv.CV_8UC1, new cv.Scalar(0)));
    const tangledPixels = tangled.data as Uint8Array;
    const label = labels.data32S as Int32Array;
    for (let p = 0; p < label.length; p++) {
      const k = kind[label[p]!];
      if (k === REMOVE) out[p] = PAPER;
      else if (k === THIN_OUT) tangledPixels[p] = 255;
    }
    // An opening by a 2 × 2 square, written as its two halves: with an even kernel opencv's own
    // opening anchors both at the same corner, and what it keeps comes back shifted by a pixel.
    const square = mat(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(2, 2)));
    const eroded = mat(new cv.Mat());
    const kept = mat(new cv.Mat());
    cv.erode(tangled, eroded, square, new cv.Point(0, 0));
    cv.dilate(eroded, kept, square, new cv.Point(1, 1));
    const keptPixels = kept.data as Uint8Array;
    for (let p = 0; p < keptPixels.length; p++) if (tangledPixels[p] && !keptPixels[p]) out[p] = PAPER;
    return { data: out, width: binary.width, height: binary.height, channels: 1 };
  });
}

const KEEP = 0;
const REMOVE = 1;
const THIN_OUT = 2;

/** What to do with each piece (index 0 is the paper), from opencv's per-piece statistics. */
function pieceKinds(stats: Int32Array, count: number, cv: { CC_STAT_WIDTH: number; CC_STAT_HEIGHT: number; CC_STAT_AREA: number }): Uint8Array {
  const kind = new Uint8Array(count);
  for (let i = 1; i < count; i++) {
    const w = stats[i * 5 + cv.CC_STAT_WIDTH]!;
    const h = stats[i * 5 + cv.CC_STAT_HEIGHT]!;
    const area = stats[i * 5 + cv.CC_STAT_AREA]!;
    const length = Math.max(w, h);
    if (area <= SPECK_MAX_AREA || (length >= HAIRLINE_MIN_LENGTH && area / (w + h) < HAIRLINE_MAX_THICKNESS)) kind[i] = REMOVE;
    else if (length >= TANGLE_MIN_LENGTH) kind[i] = THIN_OUT;
    else kind[i] = KEEP;
  }
  return kind;
}
