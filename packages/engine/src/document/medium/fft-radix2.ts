/**
 * A radix-2 fast Fourier transform, in place, and the power spectrum of a square tile: all the
 * spectral measures of the document's medium need (tiles of 2^k pixels). Short on purpose; the
 * face side's still-image measures may carry their own: one of the two can replace the other.
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

/**
 * The power spectrum of a real n×n tile (row-major), after removing its mean and weighting it by a
 * Hann window (so the tile's edges make no spectral lines of their own). Index (v * n + u), the
 * zero frequency at (0, 0).
 */
export function powerSpectrum(tile: Float64Array, n: number): Float64Array {
  let mean = 0;
  for (let i = 0; i < n * n; i++) mean += tile[i]!;
  mean /= n * n;
  const hann = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)));
  const re = new Float64Array(n * n);
  const im = new Float64Array(n * n);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) re[y * n + x] = (tile[y * n + x]! - mean) * hann[x]! * hann[y]!;
  const rowRe = new Float64Array(n);
  const rowIm = new Float64Array(n);
  for (let y = 0; y < n; y++) {
    rowRe.set(re.subarray(y * n, y * n + n));
    rowIm.set(im.subarray(y * n, y * n + n));
    fftRadix2(rowRe, rowIm);
    re.set(rowRe, y * n);
    im.set(rowIm, y * n);
  }
  for (let x = 0; x < n; x++) {
    for (let y = 0; y < n; y++) {
      rowRe[y] = re[y * n + x]!;
      rowIm[y] = im[y * n + x]!;
    }
    fftRadix2(rowRe, rowIm);
    for (let y = 0; y < n; y++) {
      re[y * n + x] = rowRe[y]!;
      im[y * n + x] = rowIm[y]!;
    }
  }
  const power = new Float64Array(n * n);
  for (let i = 0; i < n * n; i++) power[i] = re[i]! * re[i]! + im[i]! * im[i]!;
  return power;
}
