/**
 * On-device hints before a photo is sent, computed on a small grey copy of the frame (about 160
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

export const THRESHOLDS = { dark: 55, bright: 0.3, blurry: 35, far: 0.45 };

export function grey(rgba: Uint8ClampedArray, width: number, height: number): Float32Array {
  const out = new Float32Array(width * height);
  for (let i = 0, p = 0; i < out.length; i++, p += 4) out[i] = 0.299 * rgba[p] + 0.587 * rgba[p + 1] + 0.114 * rgba[p + 2];
  return out;
}

export function measure(g: Float32Array, width: number, height: number, region: Region): Measures {
  const x0 = Math.max(1, Math.floor(region.x * width));
  const y0 = Math.max(1, Math.floor(region.y * height));
  const x1 = Math.min(width - 1, Math.ceil((region.x + region.w) * width));
  const y1 = Math.min(height - 1, Math.ceil((region.y + region.h) * height));
  let sum = 0;
  let saturated = 0;
  let lapSum = 0;
  let lapSq = 0;
  let n = 0;
  const cols = new Uint32Array(x1 - x0);
  const rows = new Uint32Array(y1 - y0);
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const i = y * width + x;
      const v = g[i];
      sum += v;
      if (v >= 250) saturated++;
      const lap = g[i - 1] + g[i + 1] + g[i - width] + g[i + width] - 4 * v;
      lapSum += lap;
      lapSq += lap * lap;
      n++;
      if (Math.abs(lap) > 24) {
        cols[x - x0]++;
        rows[y - y0]++;
      }
    }
  }
  if (n === 0) return { mean: 0, saturated: 0, sharpness: 0, fill: 0 };
  const lapMean = lapSum / n;
  // Detailed part: the span of rows and columns that carry edges (ignores a few isolated specks).
  const span = (counts: Uint32Array, length: number) => {
    const min = Math.max(2, length * 0.03);
    let first = -1;
    let last = -1;
    counts.forEach((c, i) => {
      if (c >= min) {
        if (first < 0) first = i;
        last = i;
      }
    });
    return first < 0 ? 0 : (last - first + 1) / counts.length;
  };
  return {
    mean: sum / n,
    saturated: saturated / n,
    sharpness: lapSq / n - lapMean * lapMean,
    fill: span(cols, rows.length) * span(rows, cols.length),
  };
}

export function hintOf(m: Measures): Hint {
  if (m.mean < THRESHOLDS.dark) return 'dark';
  if (m.saturated > THRESHOLDS.bright) return 'bright';
  if (m.fill < THRESHOLDS.far) return 'far';
  if (m.sharpness < THRESHOLDS.blurry) return 'blurry';
  return 'ok';
}

/** Measures a video frame or an image, drawn small on a canvas. */
export function analyse(source: CanvasImageSource, sourceWidth: number, sourceHeight: number, region: Region, canvas: HTMLCanvasElement): { hint: Hint; measures: Measures } {
  const width = 160;
  const height = Math.max(1, Math.round((sourceHeight / sourceWidth) * width));
  canvas.width = width;
  canvas.height = height;
  const ctx = canvas.getContext('2d', { willReadFrequently: true })!;
  ctx.drawImage(source, 0, 0, width, height);
  const data = ctx.getImageData(0, 0, width, height).data;
  const measures = measure(grey(data, width, height), width, height, region);
  return { hint: hintOf(measures), measures };
}
