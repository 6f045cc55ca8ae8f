import type { MediumFeature } from '../../packages/engine/src/faces/medium/index.ts';
import { againstTarget, errorRate, judgedNeededWithoutError, type ErrorRate, type Verdict } from './error-rate.ts';
import { BONA_FIDE_SPECIES, type PadRow, type Species } from './pad-set.ts';

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

/** APCER (attacks) or BPCER (bona fide) of one species over its stills with a face (`judged`). */
export interface SpeciesRate extends ErrorRate {
  species: Species;
  /** Stills of the species in the half. */
  stills: number;
  /** Of which no single face was found (a retake is asked: neither accepted nor judged). */
  no_face: number;
  /** The people (or subjects, or clips) the judged stills come from: stills of one are not independent. */
  people: number;
}

/** Per species: for attacks the share not flagged (APCER), for bona fide the share flagged (BPCER). */
export function speciesRates(rows: PadRow[], flagged: (r: PadRow) => boolean): SpeciesRate[] {
  const counts = new Map<Species, { stills: number; no_face: number; errors: number; people: Set<string> }>();
  for (const r of rows) {
    const s = counts.get(r.species) ?? { stills: 0, no_face: 0, errors: 0, people: new Set<string>() };
    s.stills++;
    if (!r.face) s.no_face++;
    else {
      s.people.add(r.person);
      if (r.attack !== flagged(r)) s.errors++;
    }
    counts.set(r.species, s);
  }
  return [...counts].map(([species, s]) => ({ species, stills: s.stills, no_face: s.no_face, people: s.people.size, ...errorRate(s.errors, s.stills - s.no_face) }));
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
export function ratesByBand(rows: PadRow[], value: (r: PadRow) => number | undefined, cuts: number[], flagged: (r: PadRow) => boolean): Record<string, ErrorRate> {
  const label = (k: number) => (k === 0 ? `<${cuts[0]}` : k === cuts.length ? `>=${cuts[k - 1]}` : `${cuts[k - 1]}-${cuts[k]}`);
  const bands = Array.from({ length: cuts.length + 1 }, () => ({ errors: 0, judged: 0 }));
  for (const r of rows) {
    const v = value(r);
    if (v === undefined || !r.face) continue;
    const band = bands[cuts.filter((c) => v >= c).length]!;
    band.judged++;
    if (r.attack !== flagged(r)) band.errors++;
  }
  return Object.fromEntries(bands.map((b, k) => [label(k), errorRate(b.errors, b.judged)]));
}

/**
 * The targets for the stills (docs/liveness.md, "How sure the rates are"): APCER ≤ 5% on
 * every generated attack species, ≤ 10% on pad-dev's real prints, BPCER ≤ 3% on every bona fide
 * species. The real screen replays and the news photos that are recaptures have none.
 */
function speciesTarget(species: Species): number | null {
  if (BONA_FIDE_SPECIES.includes(species)) return 0.03;
  if (species === 'pad_dev_print') return 0.1;
  return species.startsWith('generated') ? 0.05 : null;
}

/**
 * Per species with a target: the target, the verdict of its rate's 95% interval against it, and
 * how many stills judged without an error would show it met.
 */
export function againstTargets(rates: SpeciesRate[]): Record<string, { target: number; rate: number | null; ci95: [number, number] | null; verdict: Verdict; judged: number; judged_needed_without_error: number }> {
  const out: ReturnType<typeof againstTargets> = {};
  for (const r of rates) {
    const target = speciesTarget(r.species);
    if (target === null) continue;
    out[r.species] = { target, rate: r.rate, ci95: r.ci95, verdict: againstTarget(r, target), judged: r.judged, judged_needed_without_error: judgedNeededWithoutError(target) };
  }
  return out;
}
