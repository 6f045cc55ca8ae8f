/**
 * How many times this thread has loaded each model. Every loader counts inside its once-only
 * initialiser, so the counts prove what the pool promises: a thread loads its models once and
 * reuses them for every case (a count above 1 would mean a load per case).
 */
const loads: Record<string, number> = {};

export function countModelLoad(name: 'faces' | 'mrz_classifier' | 'opencv' | 'ocr'): void {
  loads[name] = (loads[name] ?? 0) + 1;
}

/** A copy of this thread's counts, by model. */
export function modelLoads(): Record<string, number> {
  return { ...loads };
}
