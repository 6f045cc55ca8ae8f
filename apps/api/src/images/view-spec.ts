/**
 * The views of a piece the review station shows besides the image as received, pure: which
 * pixels and at which size. The pixels themselves are worked in worker threads (view-task.ts).
 */

export const PIECE_VIEWS = ['original', 'thumbnail', 'portrait'] as const;
export type PieceView = (typeof PIECE_VIEWS)[number];

/** Longest side of a list's thumbnail, in pixels (shown at about a third of it, sharp on dense screens). */
export const THUMBNAIL_SIDE = 320;
/** Longest side of a portrait cut from a document: a printed portrait rarely holds more. */
export const PORTRAIT_SIDE = 480;
/** A view is worked from at most this many pixels (the journey accepts no larger image). */
export const VIEW_MAX_INPUT_PIXELS = 40_000_000;

export interface RelativeBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

export interface PixelBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * The portrait to cut around a face found on a document: the face's outline (tight, brow to
 * chin) widened to the head and shoulders as a document prints it (ICAO 9303: the face is about
 * 70 to 80 % of the portrait's height), 4:5, clamped to the image. `face` is in fractions of the
 * oriented image, `width`×`height` its size in pixels.
 */
export function portraitFrame(face: RelativeBox, width: number, height: number): PixelBox {
  const faceW = face.width * width;
  const faceH = face.height * height;
  const cx = (face.left + face.width / 2) * width;
  // The outline starts at the brow: the head's top lies above it, so the centre moves up.
  const cy = (face.top + face.height / 2) * height - faceH * 0.12;
  let h = Math.max(faceH / 0.62, (faceW / 0.62) * 1.25);
  let w = h * 0.8;
  // Never larger than the image: shrink keeping the ratio, then slide inside.
  const scale = Math.min(1, width / w, height / h);
  w *= scale;
  h *= scale;
  const left = Math.min(Math.max(0, cx - w / 2), width - w);
  const top = Math.min(Math.max(0, cy - h / 2), height - h);
  const box = { left: Math.round(left), top: Math.round(top), width: Math.round(w), height: Math.round(h) };
  // Rounding may step one pixel over the edge.
  box.width = Math.max(1, Math.min(box.width, width - box.left));
  box.height = Math.max(1, Math.min(box.height, height - box.top));
  return box;
}
