/**
 * The document's four edges on a small grey copy of the camera frame (320 pixels wide), found
 * near the sides of the guide: for each side, the straight line (a little tilted at most) along
 * which the most of the side shows a strong step of brightness across it. A document's border is
 * one unbroken line; printed text and pictures inside it give broken ones. Plain arithmetic, a
 * few milliseconds on a phone; the frame's corners are where adjacent lines cross.
 */
import type { Region } from '../quality.ts';

export type Point = [number, number];

export interface Quad {
  /** Corners in frame fractions: top-left, top-right, bottom-right, bottom-left. */
  corners: [Point, Point, Point, Point];
  /** Per side (top, right, bottom, left), the share of the side showing the edge (0..1). */
  scores: [number, number, number, number];
}

const EDGE_SEARCH = {
  /** How far outside the guide an edge may lie, as a share of the guide's size across that side. */
  outside: 0.08,
  /** How far inside the guide an edge is searched (a smaller document gives "move closer"). */
  inside: 0.4,
  /** The middle share of each side that is scored (the corners may be rounded or out of the guide). */
  span: 0.8,
  /** Largest tilt of an edge, as a share of its length. */
  tilt: 0.07,
  /** Brightness step across an edge (grey levels over two pixels). */
  step: 22,
  /** Least share of a side showing the edge for that edge to count as found. */
  minScore: 0.6,
};

interface Line {
  /** Offset across the side (rows for top/bottom, columns for left/right) at the span's two ends, in pixels. */
  a: number;
  b: number;
  score: number;
  /** The span scored along the side (columns for top/bottom, rows for left/right), in pixels. */
  from: number;
  to: number;
}

type Side = 'top' | 'right' | 'bottom' | 'left';
type Box = { x0: number; y0: number; x1: number; y1: number };

/**
 * The best edge line near one side of the guide. `along` runs over the span of the side,
 * `across` over the band searched; `inward` is +1 when moving into the guide increases the
 * across coordinate (top, left), -1 otherwise.
 */
function sideLine(g: Float32Array, width: number, height: number, side: Side, box: Box, span: [number, number], minScore: number, t = EDGE_SEARCH): Line | null {
  const horizontal = side === 'top' || side === 'bottom';
  const depth = horizontal ? box.y1 - box.y0 : box.x1 - box.x0;
  const start = Math.max(0, Math.round(span[0]));
  const count = Math.max(8, Math.round(span[1]) - start);
  const border = side === 'top' ? box.y0 : side === 'bottom' ? box.y1 : side === 'left' ? box.x0 : box.x1;
  const inward = side === 'top' || side === 'left' ? 1 : -1;
  const limit = (horizontal ? height : width) - 2;
  const from = Math.max(1, Math.min(limit, Math.round(border - inward * t.outside * depth)));
  const to = Math.max(1, Math.min(limit, Math.round(border + inward * t.inside * depth)));
  const lo = Math.min(from, to);
  const hi = Math.max(from, to);
  const rows = hi - lo + 1;
  if (rows < 3) return null;
  // edge[i * rows + k]: at step i along the side, offset lo + k across it, a strong step (dilated by one across).
  const raw = new Uint8Array(count * rows);
  for (let i = 0; i < count; i++) {
    const u = Math.min((horizontal ? width : height) - 1, start + i);
    for (let k = 0; k < rows; k++) {
      const v = lo + k;
      const diff = horizontal ? g[(v + 1) * width + u] - g[(v - 1) * width + u] : g[u * width + v + 1] - g[u * width + v - 1];
      if (Math.abs(diff) >= t.step) raw[i * rows + k] = 1;
    }
  }
  const edge = new Uint8Array(count * rows);
  for (let i = 0; i < count; i++) {
    for (let k = 0; k < rows; k++) {
      const j = i * rows + k;
      edge[j] = raw[j] | (k > 0 ? raw[j - 1] : 0) | (k < rows - 1 ? raw[j + 1] : 0);
    }
  }
  const maxTilt = Math.max(1, Math.round(count * t.tilt));
  let best: Line | null = null;
  const lines: Line[] = [];
  for (let a = 0; a < rows; a++) {
    for (let b = Math.max(0, a - maxTilt); b <= Math.min(rows - 1, a + maxTilt); b++) {
      let hits = 0;
      for (let i = 0; i < count; i++) hits += edge[i * rows + Math.round(a + ((b - a) * i) / (count - 1))];
      const line = { a: lo + a, b: lo + b, score: hits / count, from: start, to: start + count - 1 };
      lines.push(line);
      if (!best || line.score > best.score) best = line;
    }
  }
  if (!best || best.score < minScore) return null;
  // Among lines nearly as good as the best, the outermost: a border drawn inside the document
  // (a frame around the photo, the machine-readable zone) must not be taken for its edge.
  const outer = (l: Line) => -inward * (l.a + l.b);
  let chosen = best;
  for (const l of lines) if (l.score >= 0.9 * best.score && outer(l) > outer(chosen)) chosen = l;
  return chosen;
}

/** Where two lines cross, each given by two points. */
function cross(p1: Point, p2: Point, p3: Point, p4: Point): Point | null {
  const d = (p1[0] - p2[0]) * (p3[1] - p4[1]) - (p1[1] - p2[1]) * (p3[0] - p4[0]);
  if (Math.abs(d) < 1e-9) return null;
  const a = p1[0] * p2[1] - p1[1] * p2[0];
  const b = p3[0] * p4[1] - p3[1] * p4[0];
  return [(a * (p3[0] - p4[0]) - (p1[0] - p2[0]) * b) / d, (a * (p3[1] - p4[1]) - (p1[1] - p2[1]) * b) / d];
}

export interface EdgeSearch {
  quad: Quad | null;
  /** Which sides showed an edge (top, right, bottom, left). */
  found: [boolean, boolean, boolean, boolean];
}

/** The four corners where adjacent lines cross (pixels), or null. */
function corners(top: Line, right: Line, bottom: Line, left: Line): [Point, Point, Point, Point] | null {
  const h = (l: Line): [Point, Point] => [[l.from, l.a], [l.to, l.b]];
  const v = (l: Line): [Point, Point] => [[l.a, l.from], [l.b, l.to]];
  const c = [cross(...h(top), ...v(left)), cross(...h(top), ...v(right)), cross(...h(bottom), ...v(right)), cross(...h(bottom), ...v(left))];
  return c.every(Boolean) ? (c as [Point, Point, Point, Point]) : null;
}

/**
 * Finds the document's edges around the guide (`guide` in frame fractions) on a grey frame. Two
 * passes: the likeliest line near each side of the guide, scored over the guide's middle; then
 * each line scored again over the middle of the document those lines outline, so that a small
 * document (its edges shorter than the guide's) is found, and said to be too far.
 */
export function findDocumentEdges(g: Float32Array, width: number, height: number, guide: Region, t = EDGE_SEARCH): EdgeSearch {
  const box: Box = {
    x0: Math.round(guide.x * width),
    y0: Math.round(guide.y * height),
    x1: Math.round((guide.x + guide.w) * width),
    y1: Math.round((guide.y + guide.h) * height),
  };
  const sides: Side[] = ['top', 'right', 'bottom', 'left'];
  const middle = (from: number, to: number): [number, number] => [from + ((to - from) * (1 - t.span)) / 2, to - ((to - from) * (1 - t.span)) / 2];
  const guideSpan = (s: Side) => (s === 'top' || s === 'bottom' ? middle(box.x0, box.x1) : middle(box.y0, box.y1));
  // The first pass accepts short edges (half the score): the second decides.
  const rough = sides.map((s) => sideLine(g, width, height, s, box, guideSpan(s), t.minScore / 2, t));
  const none = { quad: null, found: rough.map(Boolean) as EdgeSearch['found'] };
  if (rough.some((l) => !l)) return none;
  const first = corners(...(rough as [Line, Line, Line, Line]));
  if (!first) return none;
  const [tl, tr, br, bl] = first;
  const spans: [number, number][] = [middle(tl[0], tr[0]), middle(tr[1], br[1]), middle(bl[0], br[0]), middle(tl[1], bl[1])];
  const lines = sides.map((s, i) => (spans[i][1] - spans[i][0] >= 8 ? sideLine(g, width, height, s, box, spans[i], t.minScore, t) : null));
  const found = lines.map(Boolean) as EdgeSearch['found'];
  if (lines.some((l) => !l)) return { quad: null, found };
  const final = corners(...(lines as [Line, Line, Line, Line]));
  if (!final) return { quad: null, found };
  return {
    quad: {
      corners: final.map((c) => [c[0] / width, c[1] / height]) as Quad['corners'],
      scores: lines.map((l) => l!.score) as Quad['scores'],
    },
    found,
  };
}

/** Area of a quad (shoelace), in the units of its corners squared. */
export function quadArea(c: readonly Point[]): number {
  let s = 0;
  for (let i = 0; i < c.length; i++) {
    const [x1, y1] = c[i];
    const [x2, y2] = c[(i + 1) % c.length];
    s += x1 * y2 - x2 * y1;
  }
  return Math.abs(s) / 2;
}

/** Largest distance a corner moved between two quads (frame fractions). */
export function cornerShift(a: Quad, b: Quad): number {
  let m = 0;
  for (let i = 0; i < 4; i++) m = Math.max(m, Math.hypot(a.corners[i][0] - b.corners[i][0], a.corners[i][1] - b.corners[i][1]));
  return m;
}
