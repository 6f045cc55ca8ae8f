/**
 * On-device hints before a photo is sent, computed on a small grey copy of the frame (320
 * pixels wide, a few milliseconds on a phone): too dark or too bright from the luminance, blurry
 * from the variance of the Laplacian, too far from how much of the guide the detailed part of
 * the image fills. They advise; they never block the person.
 */
export type Hint = 'dark' | 'bright' | 'blurry' | 'far' | 'ok';

export interface Measures {
  mean: number;
  saturated: number;
  sharpness: number;
  fill: number;
}

/** The guide area as fractions of the frame (x, y, width, height). */
export interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

const THRESHOLDS = { dark: 55, bright: 0.3, blurry: 0.3, far: 0.3 };

export function grey(rgba: Uint8ClampedArray, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  for (let i = 0, p = 0; i < out.length; i++, p += 4) out[i] = 0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2];
  return out;
}

function measure(g: Float32Array, width: number, height: number, region: Region): Measures {
  const x0 = Math.max(1, Math.floor(region.x * width));
  const y0 = Math.max(1, Math.floor(region.y * height));
  const x1 = Math.min(width - 1, Math.ceil((region.x + region.w) * width));
  const y1 = Math.min(height - 1, Math.ceil((region.y + region.h) * height));
  if (x1 - x0 < 4 || y1 - y0 < 4) return { mean: 0, saturated: 0, sharpness: 0, fill: 0 };
  // 1. Where the detail is: rows and columns carrying enough gradient (isolated specks ignored).
  const cols = new Uint32Array(x1 - x0);
  const rows = new Uint32Array(y1 - y0);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * width + x;
      if (Math.abs(g[i + 1] - g[i - 1]) + Math.abs(g[i + width] - g[i - width]) > 40) {
        cols[x - x0]++;
        rows[y - y0]++;
      }
    }
  }
  const span = (counts: Uint32Array, across: number): [number, number] | null => {
    const min = Math.max(2, across * 0.02);
    let first = -1;
    let last = -1;
    counts.forEach((c, i) => {
      if (c >= min) {
        if (first < 0) first = i;
        last = i;
      }
    });
    return first < 0 ? null : [first, last];
  };
  const xs = span(cols, y1 - y0);
  const ys = span(rows, x1 - x0);
  const fill = xs && ys ? ((xs[1] - xs[0] + 1) / cols.length) * ((ys[1] - ys[0] + 1) / rows.length) : 0;
  // 2. Light and sharpness of that part (the whole guide when nothing stands out).
  const bx0 = xs ? x0 + xs[0] : x0;
  const bx1 = xs ? x0 + xs[1] + 1 : x1;
  const by0 = ys ? y0 + ys[0] : y0;
  const by1 = ys ? y0 + ys[1] + 1 : y1;
  let n = 0;
  let sum = 0;
  let sq = 0;
  let saturated = 0;
  let lapSum = 0;
  let lapSq = 0;
  for (let y = Math.max(1, by0); y < Math.min(height - 1, by1); y++) {
    for (let x = Math.max(1, bx0); x < Math.min(width - 1, bx1); x++) {
      const i = y * width + x;
      const v = g[i];
      sum += v;
      sq += v * v;
      if (v >= 250) saturated++;
      const lap = g[i - 1] + g[i + 1] + g[i - width] + g[i + width] - 4 * v;
      lapSum += lap;
      lapSq += lap * lap;
      n++;
    }
  }
  if (n === 0) return { mean: 0, saturated: 0, sharpness: 0, fill };
  const mean = sum / n;
  const variance = sq / n - mean * mean;
  const lapVariance = lapSq / n - (lapSum / n) ** 2;
  // Variance of the Laplacian relative to the contrast: blur lowers the first much more than the second.
  return { mean, saturated: saturated / n, sharpness: lapVariance / (variance + 1), fill };
}

function hintOf(m: Measures): Hint {
  if (m.mean < THRESHOLDS.dark) return 'dark';
  if (m.saturated > THRESHOLDS.bright) return 'bright';
  if (m.fill < THRESHOLDS.far) return 'far';
  if (m.sharpness < THRESHOLDS.blurry) return 'blurry';
  return 'ok';
}

/** Measures a video frame or an image, drawn small on a canvas. */
export function analyse(source: CanvasImageSource, sourceWidth: number, sourceHeight: number, region: Region, canvas: HTMLCanvasElement): { hint: Hint; measures: Measures } {
  const width = 320;
  const height = Math.max(1, Math.round((sourceHeight / sourceWidth) * width));
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(source, 0, 0, width, height);
  const data = ctx.getImageData(0, 0, width, height).data;
  const measures = measure(grey(data, width, height), width, height, region);
  return { hint: hintOf(measures), measures };
}
