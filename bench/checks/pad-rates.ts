import type { MediumFeature } from '../../packages/engine/src/faces/medium/index.ts';
import type { PadRow, Species } from './pad-set.ts';

/** Rates of the presentation-attack bench (ISO/IEC 30107-3 terms), pure. */

/** The q-quantile (0..1) of the values, by nearest rank. */
export function quantile(values: number[], q: number): number {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * The score threshold keeping at least 97% of each bona fide species of `rows` under it (BPCER ≤ 3%
 * on every one): the highest of their 97th percentiles, a little above it.
 */
export function thresholdForBpcer(rows: PadRow[], score: (r: PadRow) => number, bpcer = 0.03): number {
  const bySpecies = new Map<Species, number[]>();
  for (const r of rows) if (!r.attack && r.face) bySpecies.set(r.species, [...(bySpecies.get(r.species) ?? []), score(r)]);
  let t = -Infinity;
  for (const values of bySpecies.values()) t = Math.max(t, quantile(values, 1 - bpcer));
  return t + 1e-6;
}

export interface SpeciesRate {
  species: Species;
  /** Stills of the species in the half. */
  stills: number;
  /** Of which no single face was found (a retake is asked: neither accepted nor judged). */
  no_face: number;
  /** APCER (attacks) or BPCER (bona fide) over the stills with a face. */
  rate: number;
  errors: number;
}

/** Per species: for attacks the share not flagged (APCER), for bona fide the share flagged (BPCER). */
export function speciesRates(rows: PadRow[], flagged: (r: PadRow) => boolean): SpeciesRate[] {
  const out = new Map<Species, SpeciesRate>();
  for (const r of rows) {
    const s = out.get(r.species) ?? { species: r.species, stills: 0, no_face: 0, rate: 0, errors: 0 };
    s.stills++;
    if (!r.face) s.no_face++;
    else if (r.attack !== flagged(r)) s.errors++;
    out.set(r.species, s);
  }
  for (const s of out.values()) s.rate = errorRate(s.errors, s.stills - s.no_face);
  return [...out.values()];
}

/** Area under the ROC curve of one feature, attack against bona fide (0.5: no separation; under 0.5: higher on bona fide). */
export function auc(rows: PadRow[], feature: MediumFeature): number {
  const pos = rows.filter((r) => r.attack && r.features).map((r) => r.features![feature]);
  const neg = rows.filter((r) => !r.attack && r.features).map((r) => r.features![feature]);
  if (!pos.length || !neg.length) return NaN;
  let wins = 0;
  for (const p of pos) for (const n of neg) wins += p > n ? 1 : p === n ? 0.5 : 0;
  return Math.round((wins / (pos.length * neg.length)) * 1000) / 1000;
}

/**
 * The error rate of `rows` (APCER for attacks, BPCER for bona fide) in bands of one value, cut at
 * `cuts` (ascending): the rows without the value are left out. Keys name each band ("<0.55",
 * "0.55-0.8", ">=0.8").
 */
export function ratesByBand(rows: PadRow[], value: (r: PadRow) => number | undefined, cuts: number[], flagged: (r: PadRow) => boolean): Record<string, { rate: number; errors: number; judged: number }> {
  const label = (k: number) => (k === 0 ? `<${cuts[0]}` : k === cuts.length ? `>=${cuts[k - 1]}` : `${cuts[k - 1]}-${cuts[k]}`);
  const bands = Array.from({ length: cuts.length + 1 }, () => ({ errors: 0, judged: 0 }));
  for (const r of rows) {
    const v = value(r);
    if (v === undefined || !r.face) continue;
    const band = bands[cuts.filter((c) => v >= c).length]!;
    band.judged++;
    if (r.attack !== flagged(r)) band.errors++;
  }
  return Object.fromEntries(bands.map((b, k) => [label(k), { rate: errorRate(b.errors, b.judged), ...b }]));
}

/** errors / judged to four decimals (0 when nothing was judged). */
const errorRate = (errors: number, judged: number) => Math.round((errors / Math.max(1, judged)) * 10000) / 10000;
