import type { DecodedImage } from '../decode.ts';
import type { Point } from '../locate.ts';

/**
 * Where to look inside a located document without straightening it: a point at fractions (u, v)
 * of its width and height, interpolated between its four corners (top-left, top-right,
 * bottom-right, bottom-left). Measures that must see the photo's own pixels (spectra) read square
 * windows around such points; the camera's pixel grid stays the grid they measure on.
 */
export function pointInDocument(corners: readonly Point[], u: number, v: number): Point {
  const [tl, tr, br, bl] = corners as [Point, Point, Point, Point];
  const x = (1 - u) * (1 - v) * tl[0] + u * (1 - v) * tr[0] + u * v * br[0] + (1 - u) * v * bl[0];
  const y = (1 - u) * (1 - v) * tl[1] + u * (1 - v) * tr[1] + u * v * br[1] + (1 - u) * v * bl[1];
  return [x, y];
}

/**
 * The top-left corners of square windows of `side` pixels centred on the points at fractions
 * (u, v) of the document, every v for every u, row by row; those not wholly inside the image are
 * left out.
 */
export function windowOrigins(image: { width: number; height: number }, corners: readonly Point[], side: number, us: readonly number[], vs: readonly number[]): Point[] {
  const origins: Point[] = [];
  for (const v of vs) {
    for (const u of us) {
      const [cx, cy] = pointInDocument(corners, u, v);
      const x0 = Math.round(cx - side / 2);
      const y0 = Math.round(cy - side / 2);
      if (x0 >= 0 && y0 >= 0 && x0 + side <= image.width && y0 + side <= image.height) origins.push([x0, y0]);
    }
  }
  return origins;
}

/** The document's shorter side in pixels (mean of its two shorter edges). */
export function documentShortSide(corners: readonly Point[]): number {
  const [tl, tr, br, bl] = corners as [Point, Point, Point, Point];
  const d = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  return Math.min((d(tl, tr) + d(bl, br)) / 2, (d(tl, bl) + d(tr, br)) / 2);
}

/** RGB of the pixel nearest to (x, y) (grey images give three equal values). */
export function rgbAt(image: DecodedImage, x: number, y: number): [number, number, number] {
  const px = Math.min(image.width - 1, Math.max(0, Math.round(x)));
  const py = Math.min(image.height - 1, Math.max(0, Math.round(y)));
  const i = (py * image.width + px) * image.channels;
  const d = image.data;
  return image.channels === 3 ? [d[i]!, d[i + 1]!, d[i + 2]!] : [d[i]!, d[i]!, d[i]!];
}
