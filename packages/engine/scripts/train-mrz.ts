/**
 * Trains the MRZ character classifier (models/mrz-ocrb.json) on rendered lines degraded like
 * photos (mrz-training-lines.ts), cut by the reader's own segmenter; seeded, no fixture image.
 * Needs fonts-ocr-b, fonts-dejavu-core and fonts-liberation.
 *
 *   npm run train:mrz [-- --lines 4000 --epochs 10 --hidden 256 --garbage 0.3 --seed 1]
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { CELL_FEATURES, cellFeatures, findLineGrid } from '../src/mrz/segment.ts';
import { randomLine, renderLine, requireFonts, rng } from './mrz-training-lines.ts';
import {
  CLASS_COUNT,
  MODEL_CLASSES,
  MODEL_URL,
  NO_GLYPH,
  MRZ_ALPHABET,
  classifyCells,
  encodeModel,
  outputLayer,
  type MlpWeights,
} from '../src/mrz/classifier.ts';

function arg(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : fallback;
}

const LINES = arg('lines', 4000);
const EPOCHS = arg('epochs', 10);
const HIDDEN = arg('hidden', 256);
const SEED = arg('seed', 1);
/** Share of a line's cells also taken half a pitch off, as "no glyph" examples. */
const GARBAGE_SHARE = arg('garbage', 0.3);

interface Dataset {
  x: Float32Array;
  y: Uint8Array;
  n: number;
}

async function makeDataset(lines: number, seed: number, jitter: boolean): Promise<{ set: Dataset; texts: string[]; lineFeatures: Float32Array[] }> {
  const r = rng(seed);
  const xs: Float32Array[] = [];
  const ys: number[] = [];
  const texts: string[] = [];
  const lineFeatures: Float32Array[] = [];
  let skipped = 0;
  for (let i = 0; i < lines; i++) {
    const length = [30, 36, 44][Math.floor(r() * 3)]!;
    const text = randomLine(r, length);
    const img = await renderLine(text, r);
    const grid = findLineGrid(img, length);
    if (!grid) {
      skipped++;
      continue;
    }
    // Training jitter: the grid found is kept, cells moved a little, as read-time variants do.
    const f = cellFeatures(img, grid, jitter ? (r() - 0.5) * 0.12 : 0, jitter ? (r() - 0.5) * 0.08 : 0);
    xs.push(f);
    texts.push(text);
    lineFeatures.push(f);
    for (const ch of text) ys.push(MRZ_ALPHABET.indexOf(ch));
    // "No glyph" cells: the same line on a grid moved by about half a pitch, so every cell
    // straddles two glyphs (or holds the paper past either end). A share of them is kept.
    if (jitter) {
      const side = r() < 0.5 ? -1 : 1;
      const g = cellFeatures(img, grid, side * (0.36 + r() * 0.28), (r() - 0.5) * 0.1);
      for (let k = 0; k < length; k++) {
        if (r() >= GARBAGE_SHARE) continue;
        xs.push(g.subarray(k * CELL_FEATURES, (k + 1) * CELL_FEATURES));
        ys.push(NO_GLYPH);
      }
    }
    if ((i + 1) % 500 === 0) console.error(`rendered ${i + 1}/${lines} lines`);
  }
  const n = ys.length;
  const x = new Float32Array(n * CELL_FEATURES);
  let o = 0;
  for (const f of xs) {
    x.set(f, o);
    o += f.length;
  }
  if (skipped) console.error(`segmenter found no grid on ${skipped} of ${lines} lines`);
  return { set: { x, y: Uint8Array.from(ys), n }, texts, lineFeatures };
}

function initWeights(r: () => number, inputs: number, hidden: number, classes: number): MlpWeights {
  const gauss = () => Math.sqrt(-2 * Math.log(r() + 1e-12)) * Math.cos(2 * Math.PI * r());
  const w1 = new Float32Array(hidden * inputs).map(() => gauss() * Math.sqrt(2 / inputs));
  const w2 = new Float32Array(classes * hidden).map(() => gauss() * Math.sqrt(2 / hidden));
  return { inputs, hidden, classes, w1, b1: new Float32Array(hidden), w2, b2: new Float32Array(classes) };
}

/**
 * Minibatch SGD with momentum and weight decay on the cross-entropy. The first layer is trained
 * input-major (inputs × hidden) so that both passes skip the paper (zero) pixels, most of a cell:
 * the same arithmetic in a third of the time. It is turned back to the stored layout at the end.
 */
function train(w: MlpWeights, data: Dataset, epochs: number, r: () => number): void {
  const { inputs, hidden, classes } = w;
  const batch = 32;
  const momentum = 0.9;
  const decay = 1e-5;
  const t1 = new Float32Array(inputs * hidden);
  for (let h = 0; h < hidden; h++) for (let i = 0; i < inputs; i++) t1[i * hidden + h] = w.w1[h * inputs + i]!;
  const g1 = new Float32Array(t1.length);
  const gb1 = new Float32Array(hidden);
  const g2 = new Float32Array(w.w2.length);
  const gb2 = new Float32Array(classes);
  const v1 = new Float32Array(t1.length);
  const vb1 = new Float32Array(hidden);
  const v2 = new Float32Array(w.w2.length);
  const vb2 = new Float32Array(classes);
  const act = new Float32Array(hidden);
  const probs = new Float32Array(classes);
  const dh = new Float32Array(hidden);
  const nonZero = new Uint16Array(inputs);
  const order = Uint32Array.from({ length: data.n }, (_, i) => i);
  for (let epoch = 0; epoch < epochs; epoch++) {
    const lr = 0.02 * (epoch < epochs * 0.6 ? 1 : epoch < epochs * 0.85 ? 0.3 : 0.1);
    for (let i = order.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      const t = order[i]!;
      order[i] = order[j]!;
      order[j] = t;
    }
    let loss = 0;
    let correct = 0;
    for (let start = 0; start < data.n; start += batch) {
      g1.fill(0);
      gb1.fill(0);
      g2.fill(0);
      gb2.fill(0);
      const end = Math.min(data.n, start + batch);
      for (let b = start; b < end; b++) {
        const s = order[b]!;
        const off = s * inputs;
        let nz = 0;
        act.set(w.b1);
        for (let i = 0; i < inputs; i++) {
          const v = data.x[off + i]!;
          if (v === 0) continue;
          nonZero[nz++] = i;
          const row = i * hidden;
          for (let h = 0; h < hidden; h++) act[h]! += v * t1[row + h]!;
        }
        for (let h = 0; h < hidden; h++) if (act[h]! < 0) act[h] = 0;
        outputLayer(w, act, probs, 0);
        const label = data.y[s]!;
        loss -= Math.log(probs[label]! + 1e-9);
        let arg = 0;
        for (let c = 1; c < classes; c++) if (probs[c]! > probs[arg]!) arg = c;
        if (arg === label) correct++;
        dh.fill(0);
        for (let c = 0; c < classes; c++) {
          const d = probs[c]! - (c === label ? 1 : 0);
          gb2[c]! += d;
          const row = c * hidden;
          for (let h = 0; h < hidden; h++) {
            g2[row + h]! += d * act[h]!;
            dh[h]! += d * w.w2[row + h]!;
          }
        }
        for (let h = 0; h < hidden; h++) {
          if (act[h]! <= 0) dh[h] = 0;
          gb1[h]! += dh[h]!;
        }
        for (let j = 0; j < nz; j++) {
          const i = nonZero[j]!;
          const v = data.x[off + i]!;
          const row = i * hidden;
          for (let h = 0; h < hidden; h++) g1[row + h]! += v * dh[h]!;
        }
      }
      const scale = lr / (end - start);
      const step = (wt: Float32Array, g: Float32Array, v: Float32Array, wd: number) => {
        for (let i = 0; i < wt.length; i++) {
          v[i] = momentum * v[i]! - scale * g[i]! - lr * wd * wt[i]!;
          wt[i]! += v[i]!;
        }
      };
      step(t1, g1, v1, decay);
      step(w.b1, gb1, vb1, 0);
      step(w.w2, g2, v2, decay);
      step(w.b2, gb2, vb2, 0);
    }
    console.error(`epoch ${epoch + 1}/${epochs}: loss ${(loss / data.n).toFixed(4)}, train accuracy ${((100 * correct) / data.n).toFixed(2)}%`);
  }
  for (let h = 0; h < hidden; h++) for (let i = 0; i < inputs; i++) w.w1[h * inputs + i] = t1[i * hidden + h]!;
}

function evaluate(w: MlpWeights, texts: string[], lineFeatures: Float32Array[]): { chars: number; lines: number } {
  let ok = 0;
  let total = 0;
  let linesOk = 0;
  for (let i = 0; i < texts.length; i++) {
    const text = texts[i]!;
    const probs = classifyCells(w, lineFeatures[i]!, text.length);
    let all = true;
    for (let k = 0; k < text.length; k++) {
      let best = 0;
      for (let c = 1; c < CLASS_COUNT; c++) if (probs[k * CLASS_COUNT + c]! > probs[k * CLASS_COUNT + best]!) best = c;
      total++;
      if (MRZ_ALPHABET[best] === text[k]) ok++;
      else all = false;
    }
    if (all) linesOk++;
  }
  return { chars: ok / total, lines: linesOk / texts.length };
}

requireFonts();
const started = Date.now();
const train_ = await makeDataset(LINES, SEED, true);
const held = await makeDataset(Math.max(100, Math.round(LINES / 10)), SEED + 1000, false);
console.error(`${train_.set.n} training cells, ${held.set.n} held-out cells, rendered in ${((Date.now() - started) / 1000).toFixed(1)} s`);
const weights = initWeights(rng(SEED + 7), CELL_FEATURES, HIDDEN, MODEL_CLASSES);
train(weights, train_.set, EPOCHS, rng(SEED + 13));
const score = evaluate(weights, held.texts, held.lineFeatures);
const training = {
  seed: SEED,
  lines: LINES,
  epochs: EPOCHS,
  cells: train_.set.n,
  heldOutCharAccuracy: Number(score.chars.toFixed(5)),
  heldOutLineAccuracy: Number(score.lines.toFixed(4)),
};
await writeFile(fileURLToPath(MODEL_URL), JSON.stringify(encodeModel(weights, training)) + '\n');
console.log(JSON.stringify({ ...training, seconds: Math.round((Date.now() - started) / 1000), model: fileURLToPath(MODEL_URL) }));
