/**
 * The per-character classifier of MRZ cells: a one-hidden-layer perceptron over the 37 MRZ
 * characters plus "no glyph centred here", trained by scripts/train-mrz.ts (weights in
 * models/mrz-ocrb.json). The extra class says how well a grid fits, which the reader uses to pick
 * a line's length and grid: without it the classifier is as sure on a straddling cell as on a good one.
 */
import { readFile } from 'node:fs/promises';
import type { InferenceSession } from 'onnxruntime-node';
import { CELL_FEATURES } from './segment.ts';
import { countModelLoad } from '../model-loads.ts';
import { writeOnnxModel } from '../onnx/model-proto.ts';
import { createCpuSession, runFloat } from '../onnx/session.ts';

export const MRZ_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<';
export const CLASS_COUNT = MRZ_ALPHABET.length;
/** The model's last output: the cell is not centred on one glyph (straddling, empty). */
const NO_GLYPH = CLASS_COUNT;
export const MODEL_CLASSES = CLASS_COUNT + 1;

export interface MlpWeights {
  inputs: number;
  hidden: number;
  classes: number;
  /** hidden × inputs, row-major. */
  w1: Float32Array;
  b1: Float32Array;
  /** classes × hidden, row-major. */
  w2: Float32Array;
  b2: Float32Array;
}

export interface StoredModel {
  format: 'mrz-ocrb-mlp-2';
  alphabet: string;
  cell: { width: number; height: number };
  inputs: number;
  hidden: number;
  classes: number;
  /** Little-endian float32 of w1, b1, w2, b2 in that order, base64. */
  weights: string;
  training?: Record<string, unknown>;
}

export const MODEL_URL = new URL('../../models/mrz-ocrb.json', import.meta.url);

export function encodeModel(w: MlpWeights, training?: Record<string, unknown>): StoredModel {
  const all = new Float32Array(w.w1.length + w.b1.length + w.w2.length + w.b2.length);
  all.set(w.w1, 0);
  all.set(w.b1, w.w1.length);
  all.set(w.w2, w.w1.length + w.b1.length);
  all.set(w.b2, w.w1.length + w.b1.length + w.w2.length);
  return {
    format: 'mrz-ocrb-mlp-2',
    alphabet: MRZ_ALPHABET,
    cell: { width: 16, height: 24 },
    inputs: w.inputs,
    hidden: w.hidden,
    classes: w.classes,
    weights: Buffer.from(all.buffer, all.byteOffset, all.byteLength).toString('base64'),
    ...(training ? { training } : {}),
  };
}

function decodeModel(m: StoredModel): MlpWeights {
  if (m.format !== 'mrz-ocrb-mlp-2' || m.alphabet !== MRZ_ALPHABET || m.inputs !== CELL_FEATURES || m.classes !== MODEL_CLASSES) {
    throw new Error('MRZ model does not match this reader (format, alphabet, classes or cell size)');
  }
  const bytes = Buffer.from(m.weights, 'base64');
  const all = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength));
  const n1 = m.hidden * m.inputs;
  const n2 = m.classes * m.hidden;
  if (all.length !== n1 + m.hidden + n2 + m.classes) throw new Error('MRZ model weights have the wrong size');
  return {
    inputs: m.inputs,
    hidden: m.hidden,
    classes: m.classes,
    w1: all.subarray(0, n1),
    b1: all.subarray(n1, n1 + m.hidden),
    w2: all.subarray(n1 + m.hidden, n1 + m.hidden + n2),
    b2: all.subarray(n1 + m.hidden + n2),
  };
}

/**
 * The classifier as the reader runs it: its weights and the same network in an onnxruntime session
 * (much faster on batches of cells); `classifyCells` stays the reference for training and tests.
 */
export interface MrzClassifier {
  weights: MlpWeights;
  session: InferenceSession;
}

let loaded: Promise<MrzClassifier> | null = null;

/** The committed classifier, read once per thread, with its runtime session. */
export function loadMrzClassifier(): Promise<MrzClassifier> {
  loaded ??= (async () => {
    countModelLoad('mrz_classifier');
    const weights = decodeModel(JSON.parse(await readFile(MODEL_URL, 'utf8')) as StoredModel);
    return { weights, session: await createCpuSession(classifierGraph(weights)) };
  })().catch((err) => {
    loaded = null; // a failed load may be retried
    throw err;
  });
  return loaded;
}

/** The network up to the output layer's scores (hidden ReLU layer, then the output layer): the softmax stays in `softmaxAt`. */
function classifierGraph(w: MlpWeights): Uint8Array {
  return writeOnnxModel({
    nodes: [
      { op: 'Gemm', inputs: ['cells', 'w1', 'b1'], outputs: ['hidden'], attributes: { transB: 1 } },
      { op: 'Relu', inputs: ['hidden'], outputs: ['active'] },
      { op: 'Gemm', inputs: ['active', 'w2', 'b2'], outputs: ['scores'], attributes: { transB: 1 } },
    ],
    initializers: [
      { name: 'w1', dims: [w.hidden, w.inputs], data: w.w1 },
      { name: 'b1', dims: [w.hidden], data: w.b1 },
      { name: 'w2', dims: [w.classes, w.hidden], data: w.w2 },
      { name: 'b2', dims: [w.classes], data: w.b2 },
    ],
    inputs: [{ name: 'cells', dims: ['cells', w.inputs] }],
    outputs: [{ name: 'scores', dims: ['cells', w.classes] }],
  });
}

/**
 * `classifyCells` on the runtime: the same outputs (character probabilities given a glyph, and
 * each cell's probability of a glyph), within float32 rounding of the summation order.
 */
export async function classifyCellsOnRuntime(c: MrzClassifier, features: Float32Array, count: number, glyph?: Float32Array): Promise<Float32Array> {
  const probs = new Float32Array(count * CLASS_COUNT);
  if (count === 0) return probs;
  const classes = c.weights.classes;
  const scores = await runFloat(c.session, features.subarray(0, count * c.weights.inputs), [count, c.weights.inputs]);
  const all = new Float32Array(classes);
  for (let k = 0; k < count; k++) {
    all.set(scores.subarray(k * classes, (k + 1) * classes));
    softmaxAt(all, 0, classes);
    glyphGiven(all, probs, k, glyph);
  }
  return probs;
}

/** From one cell's MODEL_CLASSES probabilities: its character probabilities given a glyph, and (in `glyph`) how likely a glyph is. */
function glyphGiven(all: Float32Array, probs: Float32Array, k: number, glyph?: Float32Array): void {
  const isGlyph = Math.max(1e-6, 1 - all[NO_GLYPH]!);
  if (glyph) glyph[k] = isGlyph;
  for (let c = 0; c < CLASS_COUNT; c++) probs[k * CLASS_COUNT + c] = all[c]! / isGlyph;
}

/** Indices of the non-zero hidden units of the cell being classified (outputLayer's scratch). */
let liveUnits = new Int32Array(0);

/** Class probabilities (softmax) from hidden activations, written to `probs` at `outOffset`. */
export function outputLayer(w: MlpWeights, hiddenAct: Float32Array, probs: Float32Array, outOffset: number): void {
  const { hidden, classes, w2, b2 } = w;
  // After the ReLU about half the hidden units are zero, and adding zero leaves a sum as it is:
  // summing over the others, in the same order, gives the same value for half the work.
  const live = liveUnits.length >= hidden ? liveUnits : (liveUnits = new Int32Array(hidden));
  let n = 0;
  for (let h = 0; h < hidden; h++) if (hiddenAct[h] !== 0) live[n++] = h;
  let max = -Infinity;
  for (let c = 0; c < classes; c++) {
    let s = b2[c]!;
    const row = c * hidden;
    for (let j = 0; j < n; j++) {
      const h = live[j]!;
      s += w2[row + h]! * hiddenAct[h]!;
    }
    probs[outOffset + c] = s;
    if (s > max) max = s;
  }
  softmaxAt(probs, outOffset, classes, max);
}

/** Softmax in place of `classes` scores from `offset`; `max`: the largest score, when the caller has it. */
function softmaxAt(values: Float32Array, offset: number, classes: number, max = -Infinity): void {
  if (max === -Infinity) for (let c = 0; c < classes; c++) if (values[offset + c]! > max) max = values[offset + c]!;
  let sum = 0;
  for (let c = 0; c < classes; c++) {
    const e = Math.exp(values[offset + c]! - max);
    values[offset + c] = e;
    sum += e;
  }
  for (let c = 0; c < classes; c++) values[offset + c]! /= sum;
}

/** w1 input-major (inputs × hidden), built once per model: see classifyCells. */
const transposed = new WeakMap<MlpWeights, Float32Array>();

function inputMajor(w: MlpWeights): Float32Array {
  let t = transposed.get(w);
  if (!t) {
    t = new Float32Array(w.w1.length);
    for (let h = 0; h < w.hidden; h++) for (let i = 0; i < w.inputs; i++) t[i * w.hidden + h] = w.w1[h * w.inputs + i]!;
    transposed.set(w, t);
  }
  return t;
}

/**
 * The most likely character of each of `count` positions (count × CLASS_COUNT probabilities), and
 * the summed log-probability of those characters.
 */
export function bestCharacters(probs: Float32Array, count: number): { text: string; logSum: number } {
  let text = '';
  let logSum = 0;
  for (let k = 0; k < count; k++) {
    let best = 0;
    for (let c = 1; c < CLASS_COUNT; c++) if (probs[k * CLASS_COUNT + c]! > probs[k * CLASS_COUNT + best]!) best = c;
    text += MRZ_ALPHABET[best];
    logSum += Math.log(probs[k * CLASS_COUNT + best]! + 1e-6);
  }
  return { text, logSum };
}

/**
 * Character probabilities (count × CLASS_COUNT, given that a glyph is there) for `count` cells of
 * features laid end to end, and in `glyph` (when given) each cell's probability of being centred
 * on a glyph at all. The hidden layer is summed input by input, skipping the paper (zero) pixels
 * that make most of a cell.
 */
export function classifyCells(w: MlpWeights, features: Float32Array, count: number, glyph?: Float32Array): Float32Array {
  const { inputs, hidden, b1 } = w;
  const t = inputMajor(w);
  const probs = new Float32Array(count * CLASS_COUNT);
  const all = new Float32Array(w.classes);
  const act = new Float32Array(hidden);
  for (let k = 0; k < count; k++) {
    act.set(b1);
    const off = k * inputs;
    for (let i = 0; i < inputs; i++) {
      const v = features[off + i]!;
      if (v === 0) continue;
      const row = i * hidden;
      for (let h = 0; h < hidden; h++) act[h]! += v * t[row + h]!;
    }
    for (let h = 0; h < hidden; h++) if (act[h]! < 0) act[h] = 0;
    outputLayer(w, act, all, 0);
    glyphGiven(all, probs, k, glyph);
  }
  return probs;
}
