/**
 * Fits the still-medium model (packages/engine/src/faces/medium/model.ts) on the TRAINING half of
 * the presentation-attack set (bench/checks/pad-set.ts: people whose name hashes to half 0,
 * pad-dev's odd subjects; never the reported half, never the clips, never NUAA's subjects
 * 0001-0008, which are not in the fixtures) and writes the file. Run: `npx tsx scripts/fit-pad-model.ts`.
 *
 * The model: a logistic regression over the standardised measures, each species weighted alike
 * (every attack species together as much as every bona fide species together), L2-regularised.
 * A measure is kept only if it carries weight: after a first fit of the measures alone, those
 * whose weight is under 0.15 in absolute value are dropped ("proved or dropped"); the model is
 * then fitted over the kept measures and their pairwise products. The threshold keeps 98% of
 * every bona fide species of the training half under it (below: why both). The document-as-selfie
 * distance is set halfway between the training half's 95th percentile of same-photo distances
 * and its smallest distance between two different photos of one person, but never above three
 * quarters of the latter (a margin for two photos of one sitting, nearer than these).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { mediumScore, standardised } from '../packages/engine/src/faces/medium/judge.ts';
import type { MediumFeature, MediumModel } from '../packages/engine/src/faces/medium/model.ts';
import { auc, quantile, thresholdForBpcer } from '../bench/checks/pad-rates.ts';
import { buildPadSet, readPadSet, withTextureScores, type PadRow, type PadSet } from '../bench/checks/pad-set.ts';

/**
 * The candidates. Saturation is measured and reported but not offered to the model: it separates
 * the document as the selfie (grey portraits) and nothing else, and the model then took every
 * black-and-white bona fide photo for an attack; the portrait distance catches that species.
 *
 * The micro-texture measures (lbp_edges, lbp_irregular: local binary patterns of the face at
 * 64×64) are measured and reported but offered only with PAD_TEXTURE=1: they separate NUAA's
 * prints from NUAA's live frames (one webcam), but a phone's video frames are smoother than both
 * and generated prints grainier than photos, so a linear model over them moved the threshold and
 * raised the reported half's BPCER (docs/liveness.md gives the run). With PAD_TEXTURE=1 the L2
 * penalty is 0.1 (0.02 and 0.3 did worse when leaving one training subject out).
 * The face's mean red difference (YCbCr Cr), tried with them, flagged grey photos like saturation
 * and is not measured.
 */
const TEXTURE = process.env.PAD_TEXTURE === '1';
/**
 * The trained anti-spoofing network's live log-odds (network_live, faces/medium/anti-spoof-net.ts)
 * is offered since the set grew to 200 lfw-dev people (2026-11-30). On the earlier set of 20 it
 * took a webcam clip's bona fide frames for attacks once refitted (9.3% of the reported clip
 * frames), and was left out. Refitted on the larger training half it still does (the same 9.3%,
 * five frames of p02's webcam), but every other rate improves, NUAA's prints on the selfie from
 * 97.5% let through to 2.5%: it is in, and docs/liveness.md says the price.
 * The grain measures (grain, grain_to_detail: faces/medium/grain.ts) are offered with it. The
 * generated bona fide control (the same photos filmed by the same simulated camera) is a bona
 * fide species of the fit like the others, so that the model cannot lean on the simulated
 * camera's noise alone. PAD_NETWORK=0 leaves the network out (for comparison: without it, the
 * grain measures took 20% of NUAA's reported live frames for prints).
 */
const NETWORK = process.env.PAD_NETWORK !== '0';
/**
 * This project's texture network's logit (texture_net: faces/medium/texture-net.ts, trained by
 * scripts/train-texture-net.py on the training half) is offered with its cross-fitted scores
 * only (PAD_TEXTURE_SCORES=scores.json; pad-set.ts withTextureScores says why); PAD_TEXTURE_NET=0
 * leaves it out.
 */
const TEXTURE_NET = process.env.PAD_TEXTURE_NET !== '0';
const FEATURES: MediumFeature[] = ['spectrum_peaks', 'high_frequency', 'dynamic_range', 'glare', 'straight_edges', 'grain', 'grain_to_detail', ...(TEXTURE ? (['lbp_edges', 'lbp_irregular'] as const) : []), 'antispoof', 'liveness', ...(NETWORK ? (['network_live'] as const) : []), ...(TEXTURE_NET ? (['texture_net'] as const) : [])];
/**
 * The document-as-selfie distance is rewritten only with PAD_PORTRAIT=1. Its rule is printed
 * either way: the training half holds pairs of photos of one sitting (Mariana Pollack's, Eileen
 * Coparropa's and Edwina Currie's first two, 0.47 to 0.48 apart), which cap the rule at about
 * 0.35 and would let about three in ten of the portraits held up as the selfie through; a
 * selfie is not taken at the sitting of the document's photo. The constant stays as chosen on
 * the earlier set (docs/liveness.md).
 */
const PORTRAIT = process.env.PAD_PORTRAIT === '1';
const MIN_WEIGHT = 0.15;
const L2 = TEXTURE ? 0.1 : 0.02;
/**
 * The model over the kept features and their pairwise products (2026-11-30; PAD_PAIRS=0: the
 * features alone, as before), its L2 penalty and the share of every bona fide species of the
 * training half the threshold keeps under it (PAD_BPCER: 0.02, 98%, since the texture network
 * came in; 0.03 before) were chosen by
 * cross-validation inside the training half (PAD_CV=1 prints it: four folds by person, five
 * draws pooled; the features alone or with their products, L2 0.02 to 0.3, thresholds for 3%,
 * 2% and 1.5%): the configuration nearest the issue's targets at its worst, max(worst APCER / 5%,
 * worst BPCER / 3%) over generated screens, generated prints and NUAA's prints, and over the
 * photos, the generated control and NUAA's live frames. On the set of 450 people the products at
 * 97% let 18.2% through at 3.7% BPCER on the held-out folds, the features alone 20.3% at 3.2%;
 * with the texture network, the products at 98% let 4.3% through at 2.6% (docs/liveness.md has
 * the tables). The reported half plays no part.
 */
const PAIRS = process.env.PAD_PAIRS !== '0';
const BPCER_RULE = Number(process.env.PAD_BPCER ?? 0.02);

type Stats = { mean: number; scale: number };
type Fitted = MediumModel & { portraitMaxDistance: number; report: Record<string, unknown> };

function fitPadModel(set: PadSet): Fitted {
  const rows = set.rows.filter((r) => r.half === 0 && r.face && r.features);
  const { all, kept } = keptFeatures(rows);
  const model = fitModel(rows, kept, PAIRS);
  const threshold = Math.round(thresholdForBpcer(rows, (r) => mediumScore(r.features!, model), BPCER_RULE) * 10000) / 10000;

  const same = set.portraitPairs.filter((p) => p.half === 0 && p.samePhoto).map((p) => p.distance);
  const different = set.portraitPairs.filter((p) => p.half === 0 && !p.samePhoto).map((p) => p.distance);
  const minDifferent = Math.min(...different);
  const maxSame = quantile(same, 0.95);
  const portraitMaxDistance = Math.round(Math.min((maxSame + minDifferent) / 2, 0.75 * minDifferent) * 1000) / 1000;
  return {
    ...model,
    threshold,
    portraitMaxDistance,
    report: {
      training_stills: rows.length,
      auc_per_measure: Object.fromEntries(FEATURES.map((f) => [f, auc(rows, f)])),
      first_fit_weights: Object.fromEntries(all.features.map((f) => [f.name, round(f.weight)])),
      kept,
      dropped: FEATURES.filter((f) => !kept.includes(f)),
      pairs: model.pairs.length,
      bpcer_rule: BPCER_RULE,
      portrait_pairs: { same_photo: same.length, different_photo: different.length, same_p95: maxSame, different_min: minDifferent },
    },
  };
}

/** Proved or dropped: the candidates fitted alone, and those whose weight carries (at least MIN_WEIGHT). */
function keptFeatures(rows: PadRow[]) {
  const all = fitModel(rows, FEATURES, false);
  return { all, kept: all.features.filter((f) => Math.abs(f.weight) >= MIN_WEIGHT).map((f) => f.name) };
}

/**
 * A logistic regression over the standardised features (held within ±Z_LIMIT, as the engine
 * scores them) and, with `pairs`, every product of two of them, each product standardised too.
 * Species weights: attacks and bona fide each half the total, shared equally among their species.
 */
function fitModel(rows: PadRow[], names: MediumFeature[], pairs: boolean, l2 = L2): Omit<MediumModel, 'threshold'> {
  const features = names.map((name) => ({ name, ...statsOf(rows.map((r) => r.features![name])) }));
  const z = rows.map((r) => standardised(r.features!, { features }));
  const products = pairs ? names.flatMap((a, i) => names.slice(i).map((b) => ({ a, b }))) : [];
  const pairStats = products.map(({ a, b }) => statsOf(z.map((v) => v.get(a)! * v.get(b)!)));
  const X = z.map((v) => [...names.map((n) => v.get(n)!), ...products.map(({ a, b }, k) => (v.get(a)! * v.get(b)! - pairStats[k]!.mean) / pairStats[k]!.scale)]);
  const { w, b } = logistic(rows, X, l2);
  return {
    features: features.map((f, k) => ({ name: f.name, mean: round(f.mean, 5), scale: round(f.scale, 5), weight: round(w[k]!, 4) })),
    pairs: products.map((p, k) => ({ ...p, mean: round(pairStats[k]!.mean, 5), scale: round(pairStats[k]!.scale, 5), weight: round(w[names.length + k]!, 4) })),
    bias: round(b, 4),
  };
}

function statsOf(v: number[]): Stats {
  const mean = v.reduce((s, x) => s + x, 0) / v.length;
  return { mean, scale: Math.sqrt(v.reduce((s, x) => s + (x - mean) ** 2, 0) / v.length) || 1 };
}

/** L2-regularised logistic regression by gradient descent, each row weighted by its species (above). */
function logistic(rows: PadRow[], X: number[][], l2: number): { w: number[]; b: number } {
  const count = new Map<string, number>();
  for (const r of rows) count.set(r.species, (count.get(r.species) ?? 0) + 1);
  const attackSpecies = new Set(rows.filter((r) => r.attack).map((r) => r.species)).size;
  const bonaSpecies = new Set(rows.filter((r) => !r.attack).map((r) => r.species)).size;
  const weight = rows.map((r) => 1 / (count.get(r.species)! * (r.attack ? attackSpecies : bonaSpecies)));
  const total = weight.reduce((s, x) => s + x, 0);
  const y = rows.map((r) => (r.attack ? 1 : 0));
  const w = new Array<number>(X[0]!.length).fill(0);
  let b = 0;
  for (let iter = 0; iter < 4000; iter++) {
    const gw = w.map((wi) => l2 * wi);
    let gb = 0;
    for (let i = 0; i < X.length; i++) {
      const z = b + X[i]!.reduce((s, x, k) => s + x * w[k]!, 0);
      const err = (1 / (1 + Math.exp(-z)) - y[i]!) * (weight[i]! / total);
      for (let k = 0; k < w.length; k++) gw[k]! += err * X[i]![k]!;
      gb += err;
    }
    for (let k = 0; k < w.length; k++) w[k] -= 0.5 * gw[k]!;
    b -= 0.5 * gb;
  }
  return { w, b };
}

const round = (v: number, digits = 3) => Math.round(v * 10 ** digits) / 10 ** digits;

/**
 * The choice of the rule above, inside the training half only: four folds by person (a hash of
 * the name, as the halves), each configuration fitted on three and judged on the fourth, over
 * five draws of the folds.
 */
function crossValidate(set: PadSet): Array<Record<string, unknown>> {
  const rows = set.rows.filter((r) => r.half === 0 && r.face && r.features);
  // Five draws of the four folds, pooled: one draw's rates move by a few points with who falls where.
  const fold = (r: PadRow, draw: number) => createHash('sha256').update(`${draw}:${r.person}`).digest().readUInt32BE(0) % 4;
  const { kept } = keptFeatures(rows);
  const out: Array<Record<string, unknown>> = [];
  for (const pairs of [false, true]) for (const l2 of pairs ? [0.02, 0.1, 0.3] : [0.02]) for (const rule of [0.03, 0.02, 0.015]) {
    const errors = new Map<string, { n: number; wrong: number }>();
    for (let draw = 0; draw < 5; draw++) for (let k = 0; k < 4; k++) {
      const fitOn = rows.filter((r) => fold(r, draw) !== k);
      const model = fitModel(fitOn, kept, pairs, l2);
      const t = thresholdForBpcer(fitOn, (r) => mediumScore(r.features!, model), rule);
      for (const r of rows.filter((r) => fold(r, draw) === k)) {
        const e = errors.get(r.species) ?? { n: 0, wrong: 0 };
        e.n++;
        if (r.attack !== mediumScore(r.features!, model) >= t) e.wrong++;
        errors.set(r.species, e);
      }
    }
    const rate = Object.fromEntries([...errors].map(([s, e]) => [s, Math.round((e.wrong / e.n) * 1000) / 10]));
    const worst = (species: string[]) => Math.max(...species.map((s) => rate[s] ?? 0));
    const apcer = worst(['generated_screen', 'generated_print', 'pad_dev_print']);
    const bpcer = worst(['bona_fide_photos', 'generated_bona_fide', 'bona_fide_pad_dev']);
    out.push({ pairs, l2, bpcer_rule: rule, worst_apcer: apcer, worst_bpcer: bpcer, from_targets: Math.round(Math.max(apcer / 5, bpcer / 3) * 100) / 100, per_species: rate });
  }
  return out;
}

function modelFile(f: Fitted): string {
  const source = readFileSync(MODEL_PATH, 'utf8');
  const features = f.features.map((x) => `    { name: '${x.name}', mean: ${x.mean}, scale: ${x.scale}, weight: ${x.weight} },`).join('\n');
  const pairs = f.pairs.map((x) => `    { a: '${x.a}', b: '${x.b}', mean: ${x.mean}, scale: ${x.scale}, weight: ${x.weight} },`).join('\n');
  return source
    .replace(/export const MEDIUM_MODEL: MediumModel = \{[\s\S]*?\n\};/, `export const MEDIUM_MODEL: MediumModel = {\n  features: [\n${features}\n  ],\n  pairs: [${pairs ? `\n${pairs}\n  ` : ''}],\n  bias: ${f.bias},\n  threshold: ${f.threshold},\n};`)
    .replace(/export const SELFIE_IS_PORTRAIT_MAX_DISTANCE = [0-9.]+;/, (kept) => (PORTRAIT ? `export const SELFIE_IS_PORTRAIT_MAX_DISTANCE = ${f.portraitMaxDistance};` : kept));
}

const MODEL_PATH = fileURLToPath(new URL('../packages/engine/src/faces/medium/model.ts', import.meta.url));

if (import.meta.url === `file://${process.argv[1]}`) {
  // PAD_ROWS: a set saved by `bench:pad` (PAD_SAVE), to refit without re-reading the images; only its training half is used.
  if (TEXTURE_NET && !process.env.PAD_TEXTURE_SCORES) throw new Error('texture_net is fitted on its cross-fitted scores: set PAD_TEXTURE_SCORES=<scores.json of scripts/train-texture-net.py>, or PAD_TEXTURE_NET=0');
  const read: PadSet = process.env.PAD_ROWS
    ? readPadSet(process.env.PAD_ROWS)
    : await buildPadSet({ halves: [0], log: (l) => console.error(l) });
  const set = TEXTURE_NET ? withTextureScores(read, process.env.PAD_TEXTURE_SCORES!) : read;
  if (process.env.PAD_CV === '1') {
    // The choice of the rule, printed; the model file is left as it is.
    for (const line of crossValidate(set)) console.log(JSON.stringify(line));
    process.exit(0);
  }
  const fitted = fitPadModel(set);
  writeFileSync(MODEL_PATH, modelFile(fitted));
  console.log(JSON.stringify({ features: fitted.features, pairs: fitted.pairs, bias: fitted.bias, threshold: fitted.threshold, portrait_max_distance: fitted.portraitMaxDistance, ...fitted.report }));
  process.exit(0);
}
