/**
 * A radix-2 complex FFT in place (iterative Cooley–Tukey), and the 2-D power spectrum of a square
 * real image built from it (rows, then columns): what the passive measures of a face's and a
 * document's medium need (moiré of a pixel grid, halftone periodicity), on tiles of 2^k pixels,
 * a few milliseconds each. Short on purpose; each caller removes the mean and windows its tile.
 */

/** In-place complex FFT of length n = 2^k (re, im). */
export function fftRadix2(re: Float64Array, im: Float64Array): void {
  const n = re.length;
  if (n & (n - 1)) throw new Error('fftRadix2 needs a power-of-two length');
  for (let i = 1, j = 0; i < n; i++) {
    let bit = n >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      [re[i], re[j]] = [re[j]!, re[i]!];
      [im[i], im[j]] = [im[j]!, im[i]!];
    }
  }
  for (let len = 2; len <= n; len <<= 1) {
    const angle = (-2 * Math.PI) / len;
    const wr = Math.cos(angle);
    const wi = Math.sin(angle);
    for (let start = 0; start < n; start += len) {
      let cr = 1;
      let ci = 0;
      for (let k = 0; k < len / 2; k++) {
        const a = start + k;
        const b = a + len / 2;
        const tr = re[b]! * cr - im[b]! * ci;
        const ti = re[b]! * ci + im[b]! * cr;
        re[b] = re[a]! - tr;
        im[b] = im[a]! - ti;
        re[a] = re[a]! + tr;
        im[a] = im[a]! + ti;
        const next = cr * wr - ci * wi;
        ci = cr * wi + ci * wr;
        cr = next;
      }
    }
  }
}

/** |F|² of an n×n real image (row-major), zero frequency at [0]. */
export function powerSpectrum(values: Float64Array, n: number): Float64Array {
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  re.set(values);
  const rowRe = new Float64Array(n);
  const rowIm = new Float64Array(n);
  for (let pass = 0; pass < 2; pass++) {
    for (let a = 0; a < n; a++) {
      for (let b = 0; b < n; b++) {
        const i = pass === 0 ? a * n + b : b * n + a;
        rowRe[b] = re[i]!;
        rowIm[b] = im[i]!;
      }
      fftRadix2(rowRe, rowIm);
      for (let b = 0; b < n; b++) {
        const i = pass === 0 ? a * n + b : b * n + a;
        re[i] = rowRe[b]!;
        im[i] = rowIm[b]!;
      }
    }
  }
  const power = new Float64Array(n * n);
  for (let i = 0; i < power.length; i++) power[i] = re[i]! * re[i]! + im[i]! * im[i]!;
  return power;
}
