import { powerSpectrum } from '../../fft.ts';
import { upperMedian } from '../../middle.ts';

/**
 * What a screen or a print leaves in the spectrum of the face: a display's pixel grid seen by a
 * camera aliases into moiré, and a halftone screen or an inkjet dither is a fine periodic (or
 * blue-noise) texture. Both put energy into a few isolated frequencies, or into the highest band,
 * that a live face's skin does not have: its spectrum falls smoothly with frequency.
 *
 *  - `peaks`: how far the strongest isolated peaks rise above the spectrum's own level at their
 *    distance from the centre (log10 units: 1 = ten times the typical power at that frequency).
 *  - `highFrequency`: share of the power in the top half of the band (0.25 to 0.5 cycles per
 *    pixel) against the whole band from 0.06 (log10).
 *
 * JPEG's 8-pixel blocks put peaks at multiples of 1/8 cycle per pixel along each axis in every
 * photo, bona fide or not: those rows and columns of the spectrum are left out, as are the axes
 * themselves (a window's borders and horizontal/vertical edges streak along them).
 */
export interface SpectrumMeasures {
  peaks: number;
  highFrequency: number;
}

const LOW_CUT = 0.06;
const HIGH_BAND = 0.25;

/** `lum`: an n×n window of luminance (0..255), n a power of two. */
export function spectrumMeasures(lum: Float64Array, n: number): SpectrumMeasures {
  // Mean removed and a Hann window: the window's borders would otherwise spread power everywhere.
  let mean = 0;
  for (let i = 0; i < lum.length; i++) mean += lum[i]!;
  mean /= lum.length;
  const hann = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / n));
  const windowed = new Float64Array(n * n);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) windowed[y * n + x] = (lum[y * n + x]! - mean) * hann[x]! * hann[y]!;
  const power = powerSpectrum(windowed, n);

  const freq = (k: number) => (k < n / 2 ? k : k - n);
  const block = n / 8; // bins between JPEG block harmonics
  const masked = (k: number) => {
    const f = freq(k);
    const off = Math.abs(f - Math.round(f / block) * block);
    return off <= 1;
  };
  const logP = new Float64Array(n * n);
  const radius = new Int32Array(n * n);
  const rings: number[][] = Array.from({ length: n / 2 + 1 }, () => []);
  let band = 0;
  let high = 0;
  for (let ky = 0; ky < n; ky++) {
    for (let kx = 0; kx < n; kx++) {
      const i = ky * n + kx;
      const fx = freq(kx) / n;
      const fy = freq(ky) / n;
      const r = Math.hypot(fx, fy);
      const ring = Math.round(r * n);
      radius[i] = -1;
      if (r < LOW_CUT || r > 0.5) continue;
      band += power[i]!;
      if (r >= HIGH_BAND) high += power[i]!;
      if (masked(kx) || masked(ky)) continue;
      logP[i] = Math.log10(power[i]! + 1e-9);
      radius[i] = ring;
      rings[ring]!.push(logP[i]!);
    }
  }
  const level = rings.map((values) => upperMedian(values));

  // Local maxima of the excess over the ring's median, the four strongest (a real image's peak
  // comes with its mirror at −f: four is two distinct peaks).
  const excess: number[] = [];
  for (let ky = 0; ky < n; ky++) {
    for (let kx = 0; kx < n; kx++) {
      const i = ky * n + kx;
      if (radius[i]! < 0) continue;
      const e = logP[i]! - level[radius[i]!]!;
      if (e < 0.5) continue;
      let isMax = true;
      for (let dy = -1; dy <= 1 && isMax; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          if (!dx && !dy) continue;
          const j = ((ky + dy + n) % n) * n + ((kx + dx + n) % n);
          if (radius[j]! >= 0 && logP[j]! > logP[i]!) {
            isMax = false;
            break;
          }
        }
      }
      if (isMax) excess.push(e);
    }
  }
  excess.sort((a, b) => b - a);
  const top = excess.slice(0, 4);
  const peaks = top.length ? top.reduce((s, v) => s + v, 0) / 4 : 0;
  return { peaks, highFrequency: Math.log10((high + 1e-9) / (band + 1e-9)) };
}
