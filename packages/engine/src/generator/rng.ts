/**
 * A small seeded generator (mulberry32): the same seed gives the same documents on every machine,
 * so tests and benchmarks can name their samples by seed.
 */
export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  range(min: number, max: number): number;
  /** Integer in [0, n). */
  int(n: number): number;
  pick<T>(items: ArrayLike<T>): T;
  /** Approximately normal, mean 0, deviation 1 (sum of uniforms). */
  gauss(): number;
}

export function createRng(seed: number): Rng {
  let state = (seed >>> 0) ^ 0x9e3779b9;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    range: (min, max) => min + (max - min) * next(),
    int: (n) => Math.floor(next() * n),
    pick: (items) => items[Math.floor(next() * items.length)]!,
    // Four uniforms sum to variance 1/3: scaled by √3 to deviation 1.
    gauss: () => (next() + next() + next() + next() - 2) * Math.sqrt(3),
  };
}
