import type { DecodedImage } from '../decode.ts';
import type { Point } from '../locate.ts';
import { documentShortSide, windowOrigins } from './document-pixels.ts';
import { windowedSpectrum } from './windowed-spectrum.ts';
import { upperMedian } from '../../middle.ts';

/**
 * Periodic patterns a paper document does not make: the pixel grid of a screen and its moiré
 * (colour bands: the red, green and blue sub-pixels alias with different phases), the dots of a
 * halftone screen or a toner dither. Square windows of the photo inside the document are
 * transformed (fftRadix2); in a band of frequencies, the strongest bin is compared with the median
 * of the bins at the same radius (the spectrum of text and paper falls off smoothly with
 * frequency; a periodic pattern stands above it as a peak). The axes are left out: text lines,
 * borders and JPEG's 8-pixel blocks put their energy there. The document's score is the median
 * over its windows (one periodic area, a barcode or a guilloche, is not the whole document).
 */
export interface PeriodicityMeasures {
  /** log10 of the peak over its radius's median, luminance, periods of 2 to 6 pixels (halftone, screen grid). */
  lumaPeak: number;
  /** The same on the red-minus-blue channel, periods of 3 to 40 pixels (colour moiré). */
  chromaPeak: number;
  /** Windows measured (0 when the document is too small to hold one). */
  windows: number;
}

const US = [0.22, 0.4, 0.6, 0.78];
const VS = [0.3, 0.5, 0.7];

export function periodicity(image: DecodedImage, corners: readonly Point[]): PeriodicityMeasures {
  const short = documentShortSide(corners);
  const n = short >= 520 ? 128 : short >= 260 ? 64 : 0;
  if (!n) return { lumaPeak: 0, chromaPeak: 0, windows: 0 };
  const luma: number[] = [];
  const chroma: number[] = [];
  const yTile = new Float64Array(n * n);
  const cTile = new Float64Array(n * n);
  const d = image.data;
  const c = image.channels;
  for (const [x0, y0] of windowOrigins(image, corners, n, US, VS)) {
    for (let y = 0; y < n; y++) {
      for (let x = 0; x < n; x++) {
        const i = ((y0 + y) * image.width + x0 + x) * c;
        const r = d[i]!;
        const g = c === 3 ? d[i + 1]! : r;
        const b = c === 3 ? d[i + 2]! : r;
        yTile[y * n + x] = 0.299 * r + 0.587 * g + 0.114 * b;
        cTile[y * n + x] = r - b;
      }
    }
    luma.push(peakScore(windowedSpectrum(yTile, n), n, n / 6, n / 2));
    chroma.push(c === 3 ? peakScore(windowedSpectrum(cTile, n), n, n / 40, n / 3) : 0);
  }
  if (!luma.length) return { lumaPeak: 0, chromaPeak: 0, windows: 0 };
  return { lumaPeak: upperMedian(luma), chromaPeak: upperMedian(chroma), windows: luma.length };
}

/** log10 of the largest bin over the median bin of its ring, within radii [rMin, rMax], off the axes. */
function peakScore(power: Float64Array, n: number, rMin: number, rMax: number): number {
  const rings: number[][] = [];
  const bins: { r: number; p: number }[] = [];
  // Half the plane: a real tile's spectrum is symmetric.
  for (let v = 0; v <= n / 2; v++) {
    for (let u = -n / 2 + 1; u <= n / 2; u++) {
      if (Math.abs(u) <= 1 || v <= 1) continue;
      const r = Math.round(Math.hypot(u, v));
      if (r < rMin || r > rMax) continue;
      const p = power[v * n + ((u + n) % n)]!;
      (rings[r] ??= []).push(p);
      bins.push({ r, p });
    }
  }
  const medians = rings.map((ring) => (ring ? upperMedian(ring) : 0));
  let best = 0;
  for (const { r, p } of bins) {
    const m = medians[r]!;
    if (m > 0 && p / m > best) best = p / m;
  }
  return best > 0 ? Math.log10(best) : 0;
}
