import { powerSpectrum } from '../../fft.ts';

/**
 * The power spectrum of a real n×n tile (row-major), after removing its mean and weighting it by a
 * Hann window (so the tile's edges make no spectral lines of their own). Index (v * n + u), the
 * zero frequency at (0, 0).
 */
export function windowedSpectrum(tile: Float64Array, n: number): Float64Array {
  let mean = 0;
  for (let i = 0; i < n * n; i++) mean += tile[i]!;
  mean /= n * n;
  const hann = Float64Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / (n - 1)));
  const windowed = new Float64Array(n * n);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) windowed[y * n + x] = (tile[y * n + x]! - mean) * hann[x]! * hann[y]!;
  return powerSpectrum(windowed, n);
}
