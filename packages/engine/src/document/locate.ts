import { loadOpenCv } from '../opencv.ts';
import type { DecodedImage } from './decode.ts';

/**
 * Finds the document in a photo: the largest convex, rectangular outline (a card or a passport
 * page seen a little askew), from the edges of a downscaled grey image with opencv.js. A scan or
 * a tight crop has no outline inside the frame: then the frame itself is the document, when it
 * carries text-like strokes (a landscape photo does not).
 */
export type Point = [number, number];

export interface DocumentLocation {
  /** Corners in the image's pixels: top-left, top-right, bottom-right, bottom-left. */
  corners: Point[];
  /**
   * `outline`: a whole document inside the frame; `cut`: an outline that runs out of the frame;
   * `frame`: the document fills the frame (a scan or a tight crop).
   */
  source: 'outline' | 'cut' | 'frame';
  /** Area of the document over the image's area, 0..1. */
  areaFraction: number;
  /** Image borders the outline runs along (0..4); a card cut by the frame runs along them. */
  bordersTouched: number;
  /** Long side over short side of the outline (perspective included). */
  aspect: number;
  /** Share of the frame covered by dark text-like strokes (black-hat response). */
  textDensity: number;
}

/** Work size: outlines need no more, and edges of fine print stay below it. */
const WORK_SIDE = 640;
/** Smallest outline considered a document, as a share of the frame. */
const MIN_OUTLINE_AREA = 0.12;
/** An outline this large is the frame itself (a scan cropped to the document)… */
const FRAME_FILLING = 0.85;
/** …unless it runs out of the frame on two adjacent sides only, up to this share (cut at a corner). */
const CORNER_CUT_MAX_AREA = 0.97;
/** Documents are 1.42 (passport page, ID-2) to 1.59 (ID-1) long over wide; perspective adds a little. */
const ASPECT_RANGE: [number, number] = [1.25, 1.8];
/** Least share of the frame's text strokes inside an outline for it to be the document. */
const MIN_TEXT_INSIDE = 0.6;
const MIN_TEXT_INSIDE_CUT = 0.9;
/** Least share of text-like strokes for a frame-filling document (calibrated on the specimens). */
const MIN_TEXT_DENSITY = 0.01;

export async function locateDocument(grey: DecodedImage): Promise<DocumentLocation | null> {
  if (grey.channels !== 1) throw new Error('locateDocument needs a grey image');
  const { cv } = await loadOpenCv();
  const scale = Math.min(1, WORK_SIDE / Math.max(grey.width, grey.height));
  const w = Math.max(1, Math.round(grey.width * scale));
  const h = Math.max(1, Math.round(grey.height * scale));
  const mats: { delete(): void }[] = [];
  const mat = <T extends { delete(): void }>(m: T): T => (mats.push(m), m);
  try {
    const src = mat(cv.matFromArray(grey.height, grey.width, cv.CV_8UC1, grey.data));
    const small = mat(new cv.Mat());
    cv.resize(src, small, new cv.Size(w, h), 0, 0, cv.INTER_AREA);
    const blurred = mat(new cv.Mat());
    cv.GaussianBlur(small, blurred, new cv.Size(5, 5), 0);

    const strokes = strokeMask(cv, small, mat);
    const textDensity = cv.countNonZero(strokes) / (w * h);
    const outline = largestOutline(cv, blurred, w, h, mat);
    // The document holds the text: an outline with most strokes outside it is a portrait or a
    // box printed on a frame-filling scan, not the document.
    const inside = outline === null ? 0 : strokeShareInside(cv, strokes, outline.corners, mat);
    const holdsText = inside >= MIN_TEXT_INSIDE;
    const frame: DocumentLocation = {
      corners: [[0, 0], [grey.width, 0], [grey.width, grey.height], [0, grey.height]],
      source: 'frame',
      areaFraction: 1,
      bordersTouched: 4,
      aspect: Math.max(w, h) / Math.min(w, h),
      textDensity,
    };
    if (!outline || !holdsText) return textDensity >= MIN_TEXT_DENSITY ? frame : null;
    const found: DocumentLocation = {
      corners: orderCorners(outline.corners).map(([x, y]) => [x / scale, y / scale] as Point),
      source: 'outline',
      areaFraction: outline.area / (w * h),
      bordersTouched: outline.borders.count,
      aspect: outline.aspect,
      textDensity,
    };
    let framing = judgeFraming(found.areaFraction, outline.borders, outline.aspect);
    // A cut card lies on a background that carries no print; an outline with print around it
    // is a shape inside a scan (a fold, a printed frame), not a card leaving the photo.
    if (framing === 'cut' && inside < MIN_TEXT_INSIDE_CUT) framing = 'frame';
    if (framing === 'frame') return textDensity >= MIN_TEXT_DENSITY ? frame : null;
    return { ...found, source: framing };
  } finally {
    for (const m of mats) m.delete();
  }
}

interface BordersTouched {
  left: boolean;
  right: boolean;
  top: boolean;
  bottom: boolean;
  count: number;
}

/**
 * Whole, cut, or the frame itself, from an outline's size, the borders it runs along and its
 * shape. A whole card inside the frame touches no border (or one, keeping a document's shape);
 * a card running along two borders, or along one with a shape no document has, is cut off; an
 * outline filling the frame is a scan, unless it leaves the frame on two adjacent sides only.
 */
function judgeFraming(area: number, borders: BordersTouched, aspect: number): 'outline' | 'cut' | 'frame' {
  const adjacentPair = borders.count === 2 && (borders.left || borders.right) && (borders.top || borders.bottom);
  if (area >= FRAME_FILLING) return adjacentPair && area < CORNER_CUT_MAX_AREA ? 'cut' : 'frame';
  if (borders.count >= 2) return 'cut';
  if (borders.count === 1 && (aspect < ASPECT_RANGE[0] || aspect > ASPECT_RANGE[1])) return 'cut';
  return 'outline';
}

interface Outline {
  corners: Point[];
  area: number;
  borders: BordersTouched;
  aspect: number;
}

/** Edges → closed outlines → the largest convex quadrilateral (or near-rectangular hull). */
function largestOutline(cv: any, blurred: any, w: number, h: number, mat: <T extends { delete(): void }>(m: T) => T): Outline | null {
  const edges = mat(new cv.Mat());
  cv.Canny(blurred, edges, 40, 120);
  const kernel = mat(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(5, 5)));
  cv.morphologyEx(edges, edges, cv.MORPH_CLOSE, kernel);
  const contours = mat(new cv.MatVector());
  const hierarchy = mat(new cv.Mat());
  cv.findContours(edges, contours, hierarchy, cv.RETR_EXTERNAL, cv.CHAIN_APPROX_SIMPLE);
  let best: Outline | null = null;
  for (let i = 0; i < contours.size(); i++) {
    const contour = withFrameCorners(cv, contours.get(i), w, h);
    const hull = new cv.Mat();
    const approx = new cv.Mat();
    try {
      cv.convexHull(contour, hull, false, true);
      const area = cv.contourArea(hull);
      if (area < MIN_OUTLINE_AREA * w * h || (best && area <= best.area)) continue;
      const perimeter = cv.arcLength(hull, true);
      cv.approxPolyDP(hull, approx, 0.02 * perimeter, true);
      let corners: Point[];
      if (approx.rows === 4) {
        corners = points(approx);
      } else {
        // Rounded card corners or a shadow make 5–8 vertices: accept the hull when it fills its
        // rotated bounding rectangle (a rectangle seen nearly straight on).
        const rect = cv.minAreaRect(hull);
        if (area < 0.85 * rect.size.width * rect.size.height) continue;
        corners = (cv.RotatedRect.points(rect) as { x: number; y: number }[]).map((p) => [p.x, p.y] as Point);
      }
      const sides = sideLengths(orderCorners(corners));
      const aspect = Math.max(sides[0] + sides[2], sides[1] + sides[3]) / Math.max(1, Math.min(sides[0] + sides[2], sides[1] + sides[3]));
      best = { corners, area, borders: bordersAlong(points(hull), w, h), aspect };
    } finally {
      contour.delete();
      hull.delete();
      approx.delete();
    }
  }
  return best;
}

/**
 * A card cut at a corner of the frame leaves an L of edges whose hull is a triangle: when a
 * contour reaches two adjacent borders, the frame's corner between them closes the outline.
 */
function withFrameCorners(cv: any, contour: any, w: number, h: number): any {
  const pts = points(contour);
  const margin = 3;
  const left = pts.some(([x]) => x <= margin);
  const right = pts.some(([x]) => x >= w - 1 - margin);
  const top = pts.some(([, y]) => y <= margin);
  const bottom = pts.some(([, y]) => y >= h - 1 - margin);
  const extra: Point[] = [];
  if (left && top) extra.push([0, 0]);
  if (right && top) extra.push([w - 1, 0]);
  if (right && bottom) extra.push([w - 1, h - 1]);
  if (left && bottom) extra.push([0, h - 1]);
  if (extra.length === 0) return contour;
  contour.delete();
  const all = [...pts, ...extra];
  return cv.matFromArray(all.length, 1, cv.CV_32SC2, all.flat());
}

function points(m: any): Point[] {
  const out: Point[] = [];
  for (let i = 0; i < m.rows; i++) out.push([m.data32S[i * 2], m.data32S[i * 2 + 1]]);
  return out;
}

/** Image borders along which the outline runs for at least a tenth of the border's length. */
function bordersAlong(hull: Point[], w: number, h: number): BordersTouched {
  const margin = 3;
  const extent = (pts: number[]) => (pts.length < 2 ? 0 : Math.max(...pts) - Math.min(...pts));
  const left = extent(hull.filter(([x]) => x <= margin).map(([, y]) => y)) / h;
  const right = extent(hull.filter(([x]) => x >= w - 1 - margin).map(([, y]) => y)) / h;
  const top = extent(hull.filter(([, y]) => y <= margin).map(([x]) => x)) / w;
  const bottom = extent(hull.filter(([, y]) => y >= h - 1 - margin).map(([x]) => x)) / w;
  const b = { left: left >= 0.1, right: right >= 0.1, top: top >= 0.1, bottom: bottom >= 0.1 };
  return { ...b, count: [b.left, b.right, b.top, b.bottom].filter(Boolean).length };
}

/** Top-left, top-right, bottom-right, bottom-left (by sums and differences of coordinates). */
export function orderCorners(corners: Point[]): Point[] {
  const by = (f: (p: Point) => number, max: boolean) => corners.reduce((a, b) => ((max ? f(b) > f(a) : f(b) < f(a)) ? b : a));
  return [by(([x, y]) => x + y, false), by(([x, y]) => x - y, true), by(([x, y]) => x + y, true), by(([x, y]) => x - y, false)];
}

function sideLengths(c: Point[]): [number, number, number, number] {
  const d = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  return [d(c[0]!, c[1]!), d(c[1]!, c[2]!), d(c[2]!, c[3]!), d(c[3]!, c[0]!)];
}

/** Pixels where a black-hat filter finds dark strokes narrower than ~15 px: printed text. */
function strokeMask(cv: any, small: any, mat: <T extends { delete(): void }>(m: T) => T): any {
  const kernel = mat(cv.getStructuringElement(cv.MORPH_RECT, new cv.Size(15, 5)));
  const hat = mat(new cv.Mat());
  cv.morphologyEx(small, hat, cv.MORPH_BLACKHAT, kernel);
  const mask = mat(new cv.Mat());
  cv.threshold(hat, mask, 60, 255, cv.THRESH_BINARY);
  return mask;
}

function strokeShareInside(cv: any, strokes: any, corners: Point[], mat: <T extends { delete(): void }>(m: T) => T): number {
  const total = cv.countNonZero(strokes);
  if (total === 0) return 1;
  const polygon = mat(cv.Mat.zeros(strokes.rows, strokes.cols, cv.CV_8UC1));
  const pts = mat(cv.matFromArray(4, 1, cv.CV_32SC2, orderCorners(corners).flatMap(([x, y]) => [Math.round(x), Math.round(y)])));
  const list = mat(new cv.MatVector());
  list.push_back(pts);
  cv.fillPoly(polygon, list, new cv.Scalar(255));
  const inside = mat(new cv.Mat());
  cv.bitwise_and(strokes, polygon, inside);
  return cv.countNonZero(inside) / total;
}

/**
 * The document cut out of the photo and straightened: its quadrilateral warped to a rectangle
 * `width` pixels wide (height from the outline's own proportions). Grey or RGB as the input.
 */
export async function warpDocument(image: DecodedImage, corners: Point[], width: number): Promise<DecodedImage> {
  const { cv } = await loadOpenCv();
  const [tl, tr, br, bl] = orderCorners(corners) as [Point, Point, Point, Point];
  const d = (a: Point, b: Point) => Math.hypot(a[0] - b[0], a[1] - b[1]);
  const aspect = (d(tl, tr) + d(bl, br)) / Math.max(1, d(tl, bl) + d(tr, br));
  const height = Math.max(1, Math.round(width / aspect));
  const type = image.channels === 1 ? cv.CV_8UC1 : cv.CV_8UC3;
  const src = cv.matFromArray(image.height, image.width, type, image.data);
  const from = cv.matFromArray(4, 1, cv.CV_32FC2, [...tl, ...tr, ...br, ...bl]);
  const to = cv.matFromArray(4, 1, cv.CV_32FC2, [0, 0, width, 0, width, height, 0, height]);
  const m = cv.getPerspectiveTransform(from, to);
  const out = new cv.Mat();
  try {
    cv.warpPerspective(src, out, m, new cv.Size(width, height), cv.INTER_AREA, cv.BORDER_REPLICATE);
    return { data: Buffer.from(out.data), width, height, channels: image.channels };
  } finally {
    for (const x of [src, from, to, m, out]) x.delete();
  }
}
