/**
 * Cuts one MRZ line into exactly N character cells on its monospaced grid and turns each into the
 * classifier's input; training and reading share this code. The grid's pitch and phase are those
 * that put the fewest ink pixels on cell boundaries (dividing the ink's extent would drift: `<` is narrow).
 */

export interface GreyImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/** A line's grid: cell k spans [boundary(k), boundary(k+1)]; the text band is centred on centre(x). */
export interface LineGrid {
  count: number;
  x0: number;
  pitch: number;
  /** Linear change of the pitch along the line (perspective): see cellBoundary. */
  curve: number;
  /** Text band centre at column x: centreA + centreB·x (a small residual slope is allowed). */
  centreA: number;
  centreB: number;
  /** Height of the text band (cap height of the glyphs), in pixels. */
  bandHeight: number;
  /** Grey level of ink and of paper, for contrast normalisation. */
  ink: number;
  paper: number;
  /** Mean ink on cell boundaries, relative to the band height (lower is a cleaner cut). */
  boundaryInk: number;
  /** First and last columns of the line's ink (the first glyph's left edge, the last's right). */
  inkStart: number;
  inkEnd: number;
}

const CELL_W = 16;
const CELL_H = 24;
export const CELL_FEATURES = CELL_W * CELL_H;

/** Otsu's threshold of a grey histogram. */
function otsuThreshold(data: Uint8Array): number {
  const hist = new Float64Array(256);
  for (let i = 0; i < data.length; i++) hist[data[i]!]++;
  const total = data.length;
  let sumAll = 0;
  for (let t = 0; t < 256; t++) sumAll += t * hist[t]!;
  let sumB = 0;
  let wB = 0;
  let best = 0;
  let bestT = 127;
  for (let t = 0; t < 256; t++) {
    wB += hist[t]!;
    if (wB === 0) continue;
    const wF = total - wB;
    if (wF === 0) break;
    sumB += t * hist[t]!;
    const mB = sumB / wB;
    const mF = (sumAll - sumB) / wF;
    const between = wB * wF * (mB - mF) * (mB - mF);
    if (between > best) {
      best = between;
      bestT = t;
    }
  }
  return bestT;
}

/** Longest run of indices where `values[i] >= min`, tolerating gaps of `gap` entries. */
function longestRun(values: ArrayLike<number>, min: number, gap: number): [number, number] | null {
  let best: [number, number] | null = null;
  let start = -1;
  let last = -1;
  for (let i = 0; i <= values.length; i++) {
    const on = i < values.length && values[i]! >= min;
    if (on) {
      if (start < 0) start = i;
      last = i;
    } else if (start >= 0 && (i - last > gap || i === values.length)) {
      if (!best || last - start > best[1] - best[0]) best = [start, last];
      start = -1;
    }
  }
  return best;
}

/** Vertical extent [top, bottom] of the main text band among columns [xa, xb). */
function bandOf(ink: Uint8Array, width: number, height: number, xa: number, xb: number): [number, number] | null {
  const rows = new Float64Array(height);
  let max = 0;
  for (let y = 0; y < height; y++) {
    let n = 0;
    for (let x = xa; x < xb; x++) n += ink[y * width + x]!;
    rows[y] = n;
    if (n > max) max = n;
  }
  if (max === 0) return null;
  return longestRun(rows, max * 0.12, 1);
}

/**
 * The grid of `count` cells on `line`, or null when the crop holds no plausible text line. The
 * crop may be loose (paper, parts of neighbouring lines): the longest ink band is the line.
 */
export interface GridOptions {
  /** Allow the pitch to change along the line (perspective). Default true. */
  curved?: boolean;
  /** Ignore a narrow mark standing apart at either end of the ink (a speck, a border). */
  trim?: boolean;
  /** Only ink between these columns counts (where the locator saw the line). */
  within?: [number, number];
}

/** What findLineGrid finds in a line crop whatever the count and options: its band, ink levels, column profile. */
interface LineBandScan {
  centreA: number;
  centreB: number;
  bandHeight: number;
  inkLevel: number;
  paperLevel: number;
  /** Ink per column inside the band, crop edges zeroed. */
  profile: Float64Array;
  /** Columns that are crop edges (dark through the whole crop height). */
  edge: Uint8Array;
  /** Ink a column needs to count (thinner is a speck). */
  minInk: number;
}

/**
 * The reader asks for grids of one crop several times (line lengths, grid searches): this part
 * depends on the crop alone, so it is worked out once per crop (a pure function of its pixels).
 */
const bandScans = new WeakMap<GreyImage, LineBandScan | null>();

function lineBand(line: GreyImage): LineBandScan | null {
  if (bandScans.has(line)) return bandScans.get(line)!;
  const scan = scanBand(line);
  bandScans.set(line, scan);
  return scan;
}

function scanBand(line: GreyImage): LineBandScan | null {
  const { data, width, height } = line;
  const threshold = otsuThreshold(data);
  const ink = new Uint8Array(data.length);
  for (let i = 0; i < data.length; i++) ink[i] = data[i]! <= threshold ? 1 : 0;

  // Band over the whole width, then the band's centre in four chunks for a residual slope.
  const whole = bandOf(ink, width, height, 0, width);
  if (!whole) return null;
  const chunks = 4;
  const xs: number[] = [];
  const cs: number[] = [];
  for (let c = 0; c < chunks; c++) {
    const xa = Math.floor((c * width) / chunks);
    const xb = Math.floor(((c + 1) * width) / chunks);
    const pad = Math.round((whole[1] - whole[0] + 1) * 0.6);
    const b = bandOf(ink, width, height, xa, xb);
    if (!b || b[1] < whole[0] - pad || b[0] > whole[1] + pad) continue;
    xs.push((xa + xb) / 2);
    cs.push((b[0] + b[1]) / 2);
  }
  let centreA = (whole[0] + whole[1]) / 2;
  let centreB = 0;
  if (xs.length >= 2) {
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = cs.reduce((a, b) => a + b, 0) / cs.length;
    let sxy = 0;
    let sxx = 0;
    for (let i = 0; i < xs.length; i++) {
      sxy += (xs[i]! - mx) * (cs[i]! - my);
      sxx += (xs[i]! - mx) ** 2;
    }
    const slope = sxx > 0 ? sxy / sxx : 0;
    // A deskewed line keeps only a small residual slope; larger ones are chunk noise.
    if (Math.abs(slope) < 0.05) {
      centreB = slope;
      centreA = my - slope * mx;
    }
  }

  // Band height on the straightened rows.
  const half = Math.ceil((whole[1] - whole[0] + 1) * 0.9);
  const rows = new Float64Array(2 * half + 1);
  for (let x = 0; x < width; x++) {
    const c = centreA + centreB * x;
    for (let d = -half; d <= half; d++) {
      const y = Math.round(c + d);
      if (y >= 0 && y < height) rows[d + half] += ink[y * width + x]!;
    }
  }
  let rmax = 0;
  for (const v of rows) rmax = Math.max(rmax, v);
  const run = longestRun(rows, rmax * 0.12, 1);
  if (!run) return null;
  const bandHeight = run[1] - run[0] + 1;
  centreA += (run[0] + run[1]) / 2 - half;
  if (bandHeight < 5) return null;

  // Column profile inside the band, and the ink and paper levels there.
  const profile = new Float64Array(width);
  let inkSum = 0;
  let inkN = 0;
  let paperSum = 0;
  let paperN = 0;
  for (let x = 0; x < width; x++) {
    const c = centreA + centreB * x;
    const ya = Math.max(0, Math.round(c - bandHeight / 2));
    const yb = Math.min(height - 1, Math.round(c + bandHeight / 2));
    let n = 0;
    for (let y = ya; y <= yb; y++) {
      const i = y * width + x;
      if (ink[i]) {
        n++;
        inkSum += data[i]!;
        inkN++;
      } else {
        paperSum += data[i]!;
        paperN++;
      }
    }
    profile[x] = n;
  }
  if (inkN === 0 || paperN === 0) return null;
  const inkLevel = inkSum / inkN;
  const paperLevel = paperSum / paperN;

  // Ink extent: ignore specks thinner than a stroke, and crop edges (dark columns through the
  // whole crop height, which no glyph makes).
  const minInk = Math.max(1, bandHeight * 0.08);
  const edge = new Uint8Array(width);
  for (let x = 0; x < width; x++) {
    let n = 0;
    for (let y = 0; y < height; y++) n += ink[y * width + x]!;
    if (n >= height * 0.9 && height > bandHeight * 1.3) {
      edge[x] = 1;
      profile[x] = 0;
    }
  }
  return { centreA, centreB, bandHeight, inkLevel, paperLevel, profile, edge, minInk };
}

export function findLineGrid(line: GreyImage, count: number, opts: GridOptions = {}): LineGrid | null {
  const { width, height } = line;
  if (width < count * 3 || height < 6) return null;
  const band = lineBand(line);
  if (!band) return null;
  const { centreA, centreB, bandHeight, inkLevel, paperLevel, minInk, edge } = band;
  // Copied: the columns outside `within` are zeroed below, for this call only.
  const profile = band.profile.slice();
  let xFirst = -1;
  let xLast = -1;
  const lo = opts.within ? Math.max(0, Math.floor(opts.within[0])) : 0;
  const hi = opts.within ? Math.min(width, Math.ceil(opts.within[1])) : width;
  for (let x = 0; x < width; x++) {
    if (x < lo || x >= hi) profile[x] = 0;
    else if (!edge[x] && profile[x]! >= minInk) {
      if (xFirst < 0) xFirst = x;
      xLast = x;
    }
  }
  if (xFirst < 0 || xLast - xFirst < count * 2) return null;
  if (opts.trim) {
    // An ink run at an end narrower than a stroke-heavy glyph and a glyph gap away from the rest.
    const runEnd = (from: number, dir: 1 | -1): { width: number; gap: number } => {
      let x = from;
      while (x >= 0 && x < width && profile[x]! >= minInk) x += dir;
      const w = Math.abs(x - from);
      let g = 0;
      while (x >= 0 && x < width && profile[x]! < minInk) {
        x += dir;
        g++;
      }
      return { width: w, gap: g };
    };
    const l = runEnd(xFirst, 1);
    if (l.width < bandHeight * 0.25 && l.gap > bandHeight * 0.6) xFirst += l.width + l.gap;
    const r = runEnd(xLast, -1);
    if (r.width < bandHeight * 0.25 && r.gap > bandHeight * 0.6) xLast -= r.width + r.gap;
    if (xLast - xFirst < count * 2) return null;
  }

  // Smoothed profile, sampled at fractional positions.
  const smooth = new Float64Array(width);
  for (let x = 0; x < width; x++) {
    smooth[x] = (profile[Math.max(0, x - 1)]! + 2 * profile[x]! + profile[Math.min(width - 1, x + 1)]!) / 4;
  }
  const at = (x: number): number => {
    if (x < 0 || x >= width - 1) return 0;
    const i = Math.floor(x);
    const f = x - i;
    return smooth[i]! * (1 - f) + smooth[i + 1]! * f;
  };
  // The ink runs from the first glyph's left edge to the last glyph's right edge, and the empty
  // margins of the first and last cells are each between 0 and 0.65 of a pitch. A photo taken at
  // an angle foreshortens one end: the pitch may change linearly along the line (boundary k at
  // x0 + pitch·k·(1 + curve·k/N)). Among those grids, the one whose boundaries cross the least ink.
  const extent = xLast - xFirst + 1;
  const p1 = extent / (count - 0.35);
  const unit = (k: number, curve: number) => k * (1 + (curve * k) / count);
  let best = { score: Infinity, x0: xFirst, pitch: p1, curve: 0 };
  const step = Math.max(0.5, p1 / 30);
  const curveMax = opts.curved === false ? 0 : 0.1;
  const units = new Float64Array(count);
  for (let curve = -curveMax; curve <= curveMax + 1e-9; curve += 0.01) {
    const uN = unit(count, curve);
    for (let k = 1; k < count; k++) units[k] = unit(k, curve);
    for (let left = 0; left <= p1 * 0.65; left += step) {
      for (let right = 0; right <= p1 * 0.65; right += step) {
        const pitch = (left + extent + right) / uN;
        const x0 = xFirst - left;
        let sc = 0;
        // Every term is ≥ 0, so a partial sum already past the best can only end past it: the
        // grid is dropped without its other boundaries (the same choice as summing them all).
        for (let k = 1; k < count && sc < best.score; k++) sc += at(x0 + pitch * units[k]!);
        if (sc >= best.score) continue;
        // Mildly prefer balanced margins (glyphs sit centred in their cells) and no curve.
        sc += (Math.abs(left - right) / pitch) * bandHeight * 0.5 + Math.abs(curve) * bandHeight * 2;
        if (sc < best.score) best = { score: sc, x0, pitch, curve };
      }
    }
  }
  return {
    count,
    x0: best.x0,
    pitch: best.pitch,
    curve: best.curve,
    centreA,
    centreB,
    bandHeight,
    ink: inkLevel,
    paper: paperLevel,
    boundaryInk: best.score / (count - 1) / bandHeight,
    inkStart: xFirst,
    inkEnd: xLast,
  };
}

/** Left boundary of cell k (k = count is the right end of the last cell); k may be fractional. */
function cellBoundary(grid: LineGrid, k: number): number {
  return grid.x0 + grid.pitch * k * (1 + (grid.curve * k) / grid.count);
}

/**
 * The window cut around each cell centre, in band heights: as wide as the widest glyph plus a
 * little, whatever the pitch (MRZ printers space the same glyphs 0.85 to 1.45 cap heights apart),
 * so the classifier sees glyphs at one scale.
 */
const WINDOW_W = 0.95;
const MARGIN_Y = 0.15;

/**
 * Classifier input for each cell: a window around the cell centre resampled to CELL_W×CELL_H (area
 * average of 3×3 bilinear samples per output pixel), ink 1 and paper 0 by the line's levels.
 * `shiftX` moves every cell by a fraction of the pitch (read-time variants, training jitter).
 */
export function cellFeatures(line: GreyImage, grid: LineGrid, shiftX = 0, shiftY = 0): Float32Array {
  const centres = Array.from({ length: grid.count }, (_, k) => cellBoundary(grid, k + 0.5 + shiftX));
  return windowFeatures(line, grid, centres, shiftY);
}

/** The text band of a line: where its glyphs stand and how dark they are. */
export type LineBand = Pick<LineGrid, 'centreA' | 'centreB' | 'bandHeight' | 'ink' | 'paper'>;

/** Sub-samples per output pixel along each axis (3×3 bilinear samples averaged). */
const SUB = 3;

/**
 * Classifier input for windows centred at the given columns of the band (see cellFeatures). The
 * 3×3 bilinear samples are blended down each column first, then across: the same mean with a
 * quarter of the multiplications (equal within float32 precision), as this runs for hundreds of windows a line.
 */
export function windowFeatures(line: GreyImage, band: LineBand, centres: ArrayLike<number>, shiftY = 0): Float32Array {
  const { data, width, height } = line;
  const out = new Float32Array(centres.length * CELL_FEATURES);
  const range = Math.max(8, band.paper - band.ink);
  const paper = band.paper;
  const cw = band.bandHeight * WINDOW_W;
  const ch = band.bandHeight * (1 + 2 * MARGIN_Y);
  const sx = cw / CELL_W;
  const sy = ch / CELL_H;
  const nx = CELL_W * SUB;
  const ny = CELL_H * SUB;
  // Per lattice column: pixel, fraction, inside; per lattice row: pixel row, fraction, inside.
  const colI = new Int32Array(nx);
  const colF = new Float64Array(nx);
  const colIn = new Uint8Array(nx);
  const rowI = new Int32Array(ny);
  const rowF = new Float64Array(ny);
  const rowIn = new Uint8Array(ny);
  const colX = new Int32Array(nx);
  const colG = new Float64Array(nx);
  const colsInside = new Int32Array(CELL_W);
  // An output row's lattice rows blended and summed, per image column (from the window's first).
  let columns = new Float64Array(Math.ceil(cw) + 4);
  for (let k = 0; k < centres.length; k++) {
    const cx = centres[k]!;
    const left = cx - cw / 2;
    const top = band.centreA + band.centreB * cx - ch / 2 + shiftY * band.bandHeight;
    latticeAxis(left, CELL_W, sx, width, colI, colF, colIn);
    latticeAxis(top, CELL_H, sy, height, rowI, rowF, rowIn);
    let x0 = width;
    let x1 = -1;
    for (let c = 0; c < nx; c++) {
      if (colIn[c] === 0) continue;
      if (colI[c]! < x0) x0 = colI[c]!;
      if (colI[c]! + 1 > x1) x1 = colI[c]! + 1;
    }
    const span = x1 - x0 + 1;
    if (span > columns.length) columns = new Float64Array(span);
    // Per lattice column: its pixel from x0 and its weight on that pixel; per output column: how
    // many of its lattice columns lie inside the image.
    for (let c = 0; c < nx; c++) {
      colX[c] = colI[c]! - x0;
      colG[c] = 1 - colF[c]!;
    }
    for (let ox = 0; ox < CELL_W; ox++) colsInside[ox] = colIn[ox * SUB]! + colIn[ox * SUB + 1]! + colIn[ox * SUB + 2]!;
    const base = k * CELL_FEATURES;
    for (let oy = 0; oy < CELL_H; oy++) {
      let rowsIn = 0;
      const r0 = oy * SUB;
      if (SUB === 3 && rowIn[r0] === 1 && rowIn[r0 + 1] === 1 && rowIn[r0 + 2] === 1) {
        // The three lattice rows inside the image (nearly always): blended in one pass, summed
        // in the order of the loop below.
        rowsIn = 3;
        const f0 = rowF[r0]!;
        const f1 = rowF[r0 + 1]!;
        const f2 = rowF[r0 + 2]!;
        const g0 = 1 - f0;
        const g1 = 1 - f1;
        const g2 = 1 - f2;
        const a0 = rowI[r0]! * width + x0;
        const a1 = rowI[r0 + 1]! * width + x0;
        const a2 = rowI[r0 + 2]! * width + x0;
        for (let x = 0; x < span; x++) {
          columns[x] = data[a0 + x]! * g0 + data[a0 + width + x]! * f0 + (data[a1 + x]! * g1 + data[a1 + width + x]! * f1) + (data[a2 + x]! * g2 + data[a2 + width + x]! * f2);
        }
      } else {
        if (span > 0) columns.fill(0, 0, span);
        for (let j = 0; j < SUB; j++) {
          const r = r0 + j;
          if (rowIn[r] === 0) continue;
          rowsIn++;
          const fy = rowF[r]!;
          const gy = 1 - fy;
          const a = rowI[r]! * width + x0;
          const b = a + width;
          for (let x = 0; x < span; x++) columns[x]! += data[a + x]! * gy + data[b + x]! * fy;
        }
      }
      for (let ox = 0; ox < CELL_W; ox++) {
        let sum = 0;
        const c0 = ox * SUB;
        if (SUB === 3 && rowsIn === 3 && colsInside[ox] === 3) {
          // Every sample inside the image: the loop below's sum, in its order, nothing read as paper.
          const x = colX[c0]!;
          const y = colX[c0 + 1]!;
          const z = colX[c0 + 2]!;
          sum = columns[x]! * colG[c0]! + columns[x + 1]! * colF[c0]! + (columns[y]! * colG[c0 + 1]! + columns[y + 1]! * colF[c0 + 1]!) + (columns[z]! * colG[c0 + 2]! + columns[z + 1]! * colF[c0 + 2]!);
        } else {
          let colsIn = 0;
          if (rowsIn > 0) {
            for (let i = 0; i < SUB; i++) {
              const c = c0 + i;
              if (colIn[c] === 0) continue;
              colsIn++;
              const fx = colF[c]!;
              const x = colI[c]! - x0;
              sum += columns[x]! * (1 - fx) + columns[x + 1]! * fx;
            }
          }
          // Samples outside the image read as paper.
          sum += paper * (SUB * SUB - rowsIn * colsIn);
        }
        const v = (paper - sum / 9) / range;
        out[base + oy * CELL_W + ox] = v < 0 ? 0 : v > 1.2 ? 1.2 : v;
      }
    }
  }
  return out;
}

/**
 * One axis of a window's sampling lattice (SUB samples per cell, from `start`, `step` pixels a
 * cell): for each sample, the pixel before it (a column or a row), the fraction past that pixel,
 * and whether the sample lies inside the image.
 */
function latticeAxis(start: number, cells: number, step: number, size: number, index: Int32Array, frac: Float64Array, inside: Uint8Array): void {
  for (let o = 0; o < cells; o++) {
    for (let i = 0; i < SUB; i++) {
      const p = start + (o + (i + 0.5) / 3) * step - 0.5;
      const sample = o * SUB + i;
      inside[sample] = p < 0 || p > size - 1 ? 0 : 1;
      const before = Math.min(size - 2, Math.floor(p));
      index[sample] = before;
      frac[sample] = p - before;
    }
  }
}
