import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { graphBuilder, writeOnnxModel, type OnnxNode } from './model-proto.ts';
import { hwioToOihw } from './tf-layout.ts';

/**
 * A tfjs graph model written as an ONNX graph at load, so onnxruntime runs it instead of tfjs's
 * wasm backend. Four-dimensional values are kept NCHW inside (weights reordered once) and turned
 * back to NHWC only where the graph flattens or outputs them. Unknown operations are refused, so a
 * changed model fails at load rather than computing something else.
 */

interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, { s?: string; b?: boolean; list?: { i?: string[]; s?: string[] }; shape?: { dim?: { size?: string }[] } } | undefined>;
}

interface TfWeightSpec {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32';
  quantization?: { dtype: 'float16' | string };
}

export interface TfGraphModel {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: TfWeightSpec[] }[];
  /** Names a model gives its outputs (tfjs's `outputNodes`), each for a node's value (`name`). */
  signature?: TfSignature;
  userDefinedMetadata?: { signature?: TfSignature };
}

interface TfSignature {
  outputs?: Record<string, { name: string }>;
}

/** The graph node whose value a model's named output is (tfjs names outputs by its signature where it has one). */
export function outputNode(model: TfGraphModel, output: string): string {
  const signature = model.signature ?? model.userDefinedMetadata?.signature;
  return (signature?.outputs?.[output]?.name ?? output).replace(/:0$/, '');
}

export interface Weight {
  shape: number[];
  values: Float32Array | Int32Array;
}

export interface ConvertOptions {
  /** Used in error messages ("human facemesh: operation X is not converted"). */
  label: string;
  /** The nodes whose values the ONNX graph outputs, in this order (a `:0` suffix is ignored). */
  outputs: string[];
}

/** The model's JSON and its weights, float16 ones widened to float32 as tfjs does when it loads them. */
export async function readTfGraphModel(modelJson: string): Promise<{ model: TfGraphModel; weights: Map<string, Weight> }> {
  const model = JSON.parse(await readFile(modelJson, 'utf8')) as TfGraphModel;
  return { model, weights: await readWeights(model, dirname(modelJson)) };
}

/** The ONNX model (bytes onnxruntime loads) of the graph up to `options.outputs`. */
export function tfGraphToOnnx(model: TfGraphModel, weights: Map<string, Weight>, options: ConvertOptions): Uint8Array {
  const { label } = options;
  const outputs = options.outputs.map((o) => o.replace(/:0$/, ''));
  const byName = new Map(model.modelTopology.node.map((n) => [n.name, n]));
  const needed = ancestors(byName, outputs);

  const graph = graphBuilder();
  /** Values that are four-dimensional, hence NCHW in this graph. */
  const nchw = new Set<string>();
  const weight = (name: string, what: string): Weight => {
    const w = weights.get(name.replace(/:0$/, ''));
    if (!w) throw new Error(`${label}: ${what} (${name}) is not a constant`);
    return w;
  };
  /** A value read by a node: a graph value by its name, or a constant (per channel, broadcast along C when the other side is NCHW). */
  const operand = (name: string, besideNchw: boolean): string => {
    const base = name.replace(/:0$/, '');
    const w = weights.get(base);
    if (!w) return base;
    const values = Float32Array.from(w.values);
    const count = values.length;
    if (w.shape.length === 0 || count === 1) return graph.floats(base, [], values.slice(0, 1));
    if (besideNchw) {
      if (w.shape.some((d, i) => i < w.shape.length - 1 && d !== 1)) throw new Error(`${label}: ${base} of shape ${w.shape} is not per channel`);
      return graph.floats(`${base}:c11`, [count, 1, 1], values);
    }
    return graph.floats(base, w.shape, values);
  };
  const input = (n: TfNode, i: number) => (n.input?.[i] ?? '').replace(/:0$/, '');
  const emit = (op: string, inputs: string[], output: string, attributes?: OnnxNode['attributes'], fourD = false) => {
    graph.node(op, inputs, attributes, output);
    if (fourD) nchw.add(output);
  };

  let placeholder: TfNode | null = null;
  for (const n of model.modelTopology.node) {
    if (!needed.has(n.name) || n.op === 'Const') continue;
    switch (n.op) {
      case 'Placeholder': {
        placeholder = n;
        emit('Transpose', [`${n.name}:nhwc`], n.name, { perm: [0, 3, 1, 2] });
        nchw.add(n.name);
        break;
      }
      case 'Conv2D':
      case 'DepthwiseConv2dNative':
      case '_FusedConv2D': {
        const filter = weight(input(n, 1), 'filter');
        if (filter.shape.length !== 4) throw new Error(`${label}: ${n.name} has no 4-d filter`);
        const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
        const depthwise = n.op === 'DepthwiseConv2dNative';
        const w = graph.floats(`${n.name}/weight`, depthwise ? [cin * cout, 1, kh, kw] : [cout, cin, kh, kw], hwioToOihw(filter, depthwise));
        const fused = n.op === '_FusedConv2D' ? fusedOps(n) : [];
        const bias = fused[0] === 'BiasAdd' ? [graph.floats(`${n.name}/bias`, [cout], Float32Array.from(weight(input(n, 2), 'bias').values))] : [];
        if (fused.length > 0 && fused[0] !== 'BiasAdd') throw new Error(`${label}: ${n.name} fuses ${fused.join('+')}`);
        const conv = fused.length > 1 ? `${n.name}:conv` : n.name;
        emit('Conv', [input(n, 0), w, ...bias], conv, {
          kernel_shape: [kh, kw],
          strides: nhwcPair(n, 'strides'),
          dilations: nhwcPair(n, 'dilations'),
          group: depthwise ? cin : 1,
          // TensorFlow's SAME pads the extra pixel after, as ONNX's SAME_UPPER.
          auto_pad: padding(n, label) === 'SAME' ? 'SAME_UPPER' : 'VALID',
        }, true);
        if (fused.length > 1) activation(fused.slice(1), conv, n, 3, true);
        break;
      }
      case '_FusedMatMul': {
        if (n.attr?.transpose_a?.b || n.attr?.transpose_b?.b) throw new Error(`${label}: ${n.name} transposes an operand`);
        const fused = fusedOps(n);
        if (fused[0] !== 'BiasAdd') throw new Error(`${label}: ${n.name} fuses ${fused.join('+')}`);
        const b = weight(input(n, 1), 'matrix');
        const bias = weight(input(n, 2), 'bias');
        const gemm = fused.length > 1 ? `${n.name}:gemm` : n.name;
        emit('Gemm', [input(n, 0), graph.floats(`${n.name}/matrix`, b.shape, Float32Array.from(b.values)), graph.floats(`${n.name}/bias`, bias.shape, Float32Array.from(bias.values))], gemm);
        if (fused.length > 1) activation(fused.slice(1), gemm, n, 3, false);
        break;
      }
      case 'Add':
      case 'AddV2':
      case 'Mul':
      case 'Minimum':
      case 'Maximum': {
        const op = { Add: 'Add', AddV2: 'Add', Mul: 'Mul', Minimum: 'Min', Maximum: 'Max' }[n.op]!;
        const fourD = (n.input ?? []).some((i) => nchw.has(i.replace(/:0$/, '')));
        emit(op, (n.input ?? []).map((i) => operand(i, fourD)), n.name, undefined, fourD);
        break;
      }
      case 'Relu':
      case 'Sigmoid':
      case 'Identity':
        emit(n.op, [input(n, 0)], n.name, undefined, nchw.has(input(n, 0)));
        break;
      case 'Prelu':
        activation(['Prelu'], input(n, 0), n, 1, nchw.has(input(n, 0)), n.name);
        break;
      case 'Softmax':
        if (nchw.has(input(n, 0))) throw new Error(`${label}: ${n.name} is a softmax over a 4-d value`);
        emit('Softmax', [input(n, 0)], n.name, { axis: -1 });
        break;
      case 'MaxPool': {
        const k = nhwcPair(n, 'ksize');
        emit('MaxPool', [input(n, 0)], n.name, {
          kernel_shape: k,
          strides: nhwcPair(n, 'strides'),
          auto_pad: padding(n, label) === 'SAME' ? 'SAME_UPPER' : 'VALID',
        }, true);
        break;
      }
      case 'Pad': {
        // TensorFlow's paddings are [[before, after]] per NHWC axis; ONNX's, all befores then all afters, NCHW.
        const p = Array.from(weight(input(n, 1), 'paddings').values, BigInt);
        const order = [0, 3, 1, 2];
        const pads = [...order.map((a) => p[2 * a]!), ...order.map((a) => p[2 * a + 1]!)];
        emit('Pad', [input(n, 0), graph.int64s(`${n.name}/pads`, pads)], n.name, { mode: 'constant' }, true);
        break;
      }
      case 'Reshape': {
        // The shape is TensorFlow's, over NHWC order: an NCHW value is turned back first.
        const shape = Array.from(weight(input(n, 1), 'shape').values, BigInt);
        let from = input(n, 0);
        if (nchw.has(from)) {
          emit('Transpose', [from], `${n.name}:nhwc`, { perm: [0, 2, 3, 1] });
          from = `${n.name}:nhwc`;
        }
        emit('Reshape', [from, graph.int64s(`${n.name}/shape`, shape)], n.name);
        break;
      }
      case 'Mean': {
        const axes = weight(input(n, 1), 'axes');
        if (!nchw.has(input(n, 0)) || [...axes.values].join() !== '1,2') throw new Error(`${label}: ${n.name} is not a spatial mean`);
        emit('ReduceMean', [input(n, 0)], n.name, { axes: [2, 3], keepdims: 0 });
        break;
      }
      default:
        throw new Error(`${label}: operation ${n.op} (${n.name}) is not converted`);
    }
  }
  if (!placeholder) throw new Error(`${label}: no input`);

  // Outputs still four-dimensional are handed out NHWC, as tfjs gives them.
  const outputNames = outputs.map((o) => {
    if (!nchw.has(o)) return o;
    emit('Transpose', [o], `${o}:out`, { perm: [0, 2, 3, 1] });
    return `${o}:out`;
  });
  const inputSpec = { name: `${placeholder.name}:nhwc`, dims: placeholderDims(placeholder) };
  return writeOnnxModel({
    nodes: graph.nodes,
    initializers: graph.initializers,
    inputs: [inputSpec],
    outputs: outputNames.map((name) => ({ name, dims: null })),
  });

  /** ReLU or PReLU after a fused convolution or product (PReLU's slopes are the node's `slopeInput`th input). */
  function activation(ops: string[], from: string, n: TfNode, slopeInput: number, fourD: boolean, out = n.name): void {
    if (ops.length !== 1) throw new Error(`${label}: ${n.name} fuses ${ops.join('+')}`);
    const [op] = ops;
    if (op === 'Relu') emit('Relu', [from], out, undefined, fourD);
    else if (op === 'Prelu') emit('PRelu', [from, operand(n.input?.[slopeInput] ?? '', fourD)], out, undefined, fourD);
    else throw new Error(`${label}: ${n.name} fuses ${op}`);
  }
}

function placeholderDims(n: TfNode): (number | string)[] {
  const dims = n.attr?.shape?.shape?.dim ?? [];
  if (dims.length !== 4) throw new Error(`placeholder ${n.name} is not an image batch`);
  return dims.map((d, i) => (Number(d.size) > 0 ? Number(d.size) : `d${i}`));
}

function fusedOps(n: TfNode): string[] {
  return (n.attr?.fused_ops?.list?.s ?? []).map((s) => Buffer.from(s, 'base64').toString('utf8'));
}

function ancestors(byName: Map<string, TfNode>, outputs: string[]): Set<string> {
  const seen = new Set<string>();
  const stack = [...outputs];
  while (stack.length) {
    const name = stack.pop()!.replace(/:\d+$/, '');
    if (seen.has(name)) continue;
    seen.add(name);
    for (const i of byName.get(name)?.input ?? []) stack.push(i);
  }
  return seen;
}

function nhwcPair(n: TfNode, attr: 'strides' | 'dilations' | 'ksize'): [number, number] {
  const v = (n.attr?.[attr]?.list?.i ?? ['1', '1', '1', '1']).map(Number);
  return [v[1]!, v[2]!];
}

function padding(n: TfNode, label: string): 'SAME' | 'VALID' {
  const s = n.attr?.padding?.s;
  const p = s ? Buffer.from(s, 'base64').toString('utf8') : 'VALID';
  if (p !== 'SAME' && p !== 'VALID') throw new Error(`${label}: ${n.name} has padding ${p}`);
  return p;
}

async function readWeights(model: TfGraphModel, dir: string): Promise<Map<string, Weight>> {
  const out = new Map<string, Weight>();
  for (const group of model.weightsManifest) {
    const bytes = Buffer.concat(await Promise.all(group.paths.map((p) => readFile(join(dir, p)))));
    let offset = 0;
    for (const w of group.weights) {
      const count = w.shape.reduce((a, b) => a * b, 1);
      if (w.quantization) {
        if (w.quantization.dtype !== 'float16') throw new Error(`${w.name} is quantized as ${w.quantization.dtype}`);
        const halves = halfFloats();
        const values = new Float32Array(count);
        for (let i = 0; i < count; i++) values[i] = halves[bytes[offset + 2 * i]! | (bytes[offset + 2 * i + 1]! << 8)]!;
        out.set(w.name, { shape: w.shape, values });
        offset += 2 * count;
      } else {
        const copy = bytes.buffer.slice(bytes.byteOffset + offset, bytes.byteOffset + offset + 4 * count);
        out.set(w.name, { shape: w.shape, values: w.dtype === 'int32' ? new Int32Array(copy) : new Float32Array(copy) });
        offset += 4 * count;
      }
    }
  }
  return out;
}

let halfTable: Float32Array | null = null;

/** Every IEEE 754 half-precision value, by its 16 bits, as float32 (exact: every half is a float32). */
function halfFloats(): Float32Array {
  halfTable ??= Float32Array.from({ length: 65536 }, (_, h) => halfToFloat(h));
  return halfTable;
}

function halfToFloat(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exponent = (h >> 10) & 0x1f;
  const fraction = h & 0x3ff;
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024);
  if (exponent === 0x1f) return fraction ? Number.NaN : sign * Number.POSITIVE_INFINITY;
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024);
}
