import { readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { writeOnnxModel, type OnnxInitializer, type OnnxNode } from '../onnx/model-proto.ts';
import { hwioToOihw } from '../onnx/tf-layout.ts';

/**
 * human's face descriptor model (`faceres.json`, a MobileNet: convolutions, depthwise
 * convolutions, batch norms folded into multiplications and additions, ReLU6, a global mean) as
 * an ONNX graph, so that onnxruntime runs it instead of tfjs's wasm backend: about four times
 * less CPU for the same 1024 values (within float32 rounding; bench/checks/faces.ts measures both).
 * Written from the very files human ships (the graph in TensorFlow's NHWC layout and its float16
 * weights), at load, into the NCHW layout onnxruntime's convolutions take: nothing is converted
 * ahead, nothing else is stored. Only the descriptor is kept (the graph up to
 * `global_pooling/Mean`; the age and gender heads after it are not used). Any operation outside
 * the few this model has is refused, so a changed model file fails loudly at load.
 */

/** The descriptor's node: the graph is cut there. */
export const FACERES_OUTPUT = 'global_pooling/Mean';

interface TfNode {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, { s?: string; list?: { i?: string[] } } | undefined>;
}

interface TfWeight {
  name: string;
  shape: number[];
  dtype: 'float32' | 'int32';
  quantization?: { dtype: 'float16' | string };
}

interface TfGraphModel {
  modelTopology: { node: TfNode[] };
  weightsManifest: { paths: string[]; weights: TfWeight[] }[];
}

interface Weight {
  shape: number[];
  values: Float32Array | Int32Array;
}

/** The model's input side: human's crop is resized to it. */
export const FACERES_SIDE = 224;
/** The graph's input: human's face crop, `[1, h, w, 3]` NHWC, values 0..1. */
export const FACERES_INPUT = 'crop';

/**
 * The ONNX model of `faceres.json`, from human's face crop (`[1, h, w, 3]`, 0..1) to the
 * descriptors of the crop and of its mirror image (`[2, 1024]`): the resize, the mirror and the
 * scale to 0..255 are in the graph, where tfjs's wasm backend took about as long for them as
 * onnxruntime for the whole model.
 */
export async function faceresOnnx(modelJson: string): Promise<Uint8Array> {
  const model = JSON.parse(await readFile(modelJson, 'utf8')) as TfGraphModel;
  const weights = await readWeights(model, dirname(modelJson));
  const byName = new Map(model.modelTopology.node.map((n) => [n.name, n]));
  const needed = ancestors(byName, FACERES_OUTPUT);

  const nodes: OnnxNode[] = [];
  const initializers: OnnxInitializer[] = [];
  /** The model's placeholder, which the graph's nodes read as the input made from the crop. */
  let placeholder: { name: string } | null = null;
  const constant = (name: string, dims: number[], data: Float32Array | BigInt64Array) => {
    if (!initializers.some((i) => i.name === name)) initializers.push({ name, dims, data });
    return name;
  };
  const int64s = (name: string, values: bigint[]) => constant(name, [values.length], BigInt64Array.from(values));
  /** A Mul or Add operand: per-channel vectors become [C, 1, 1] (NCHW broadcast), scalars stay. */
  const operand = (name: string): string => {
    const w = weights.get(name);
    if (!w) return name;
    if (w.shape.length === 0) return constant(name, [], Float32Array.from(w.values));
    if (w.shape.length === 1) return constant(name, [w.shape[0]!, 1, 1], Float32Array.from(w.values));
    throw new Error(`faceres: operand ${name} of shape ${w.shape} is not per channel`);
  };

  for (const n of model.modelTopology.node) {
    if (!needed.has(n.name) || n.op === 'Const') continue;
    const inputs = n.input ?? [];
    switch (n.op) {
      case 'Placeholder': {
        // The model's input is made here from human's crop, as tfjs made it before: resized to the
        // model's side (bilinear, tfjs's default corners: ONNX's `asymmetric`), then its mirror
        // image beside it (reversed after the resize, as tfjs did), scaled to 0..255.
        placeholder = { name: n.name };
        const step = (op: string, inputs: string[], out: string, attributes?: OnnxNode['attributes']) =>
          nodes.push({ op, inputs, outputs: [out], ...(attributes ? { attributes } : {}) });
        step('Transpose', [FACERES_INPUT], 'crop:nchw', { perm: [0, 3, 1, 2] });
        step('Resize', ['crop:nchw', '', '', int64s('crop:size', [1n, 3n, BigInt(FACERES_SIDE), BigInt(FACERES_SIDE)])], 'crop:resized', {
          mode: 'linear',
          coordinate_transformation_mode: 'asymmetric',
        });
        step('Slice', ['crop:resized', int64s('mirror:starts', [-1n]), int64s('mirror:ends', [-(2n ** 63n)]), int64s('mirror:axes', [3n]), int64s('mirror:steps', [-1n])], 'crop:mirror');
        step('Concat', ['crop:resized', 'crop:mirror'], 'crop:pair', { axis: 0 });
        step('Mul', ['crop:pair', constant('crop:255', [], Float32Array.of(255))], `${n.name}:nchw`);
        break;
      }
      case 'Conv2D':
      case 'DepthwiseConv2dNative': {
        const filter = weights.get(inputs[1]!);
        if (!filter || filter.shape.length !== 4) throw new Error(`faceres: ${n.name} has no constant filter`);
        const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
        const depthwise = n.op === 'DepthwiseConv2dNative';
        const w = constant(`${n.name}/weight`, depthwise ? [cin * cout, 1, kh, kw] : [cout, cin, kh, kw], hwioToOihw(filter, depthwise));
        nodes.push({
          op: 'Conv',
          inputs: [tensorName(inputs[0]!, placeholder), w],
          outputs: [n.name],
          attributes: {
            kernel_shape: [kh, kw],
            strides: nhwcPair(n, 'strides'),
            dilations: nhwcPair(n, 'dilations'),
            group: depthwise ? cin : 1,
            // TensorFlow's SAME pads the extra pixel after, as ONNX's SAME_UPPER.
            auto_pad: padding(n) === 'SAME' ? 'SAME_UPPER' : 'VALID',
          },
        });
        break;
      }
      case 'Add':
      case 'Mul':
      case 'Minimum':
      case 'Maximum': {
        const op = { Add: 'Add', Mul: 'Mul', Minimum: 'Min', Maximum: 'Max' }[n.op];
        nodes.push({ op, inputs: inputs.map((i) => operand(tensorName(i, placeholder))), outputs: [n.name] });
        break;
      }
      case 'Relu':
        nodes.push({ op: 'Relu', inputs: [tensorName(inputs[0]!, placeholder)], outputs: [n.name] });
        break;
      case 'Mean': {
        const axes = weights.get(inputs[1]!);
        if (!axes || [...axes.values].join() !== '1,2') throw new Error(`faceres: ${n.name} is not a spatial mean`);
        nodes.push({ op: 'ReduceMean', inputs: [tensorName(inputs[0]!, placeholder)], outputs: [n.name], attributes: { axes: [2, 3], keepdims: 0 } });
        break;
      }
      default:
        throw new Error(`faceres: operation ${n.op} (${n.name}) is not converted`);
    }
  }
  if (!placeholder) throw new Error('faceres: no input');
  return writeOnnxModel({ nodes, initializers, inputs: [{ name: FACERES_INPUT, dims: [1, 'h', 'w', 3] }], outputs: [{ name: FACERES_OUTPUT, dims: [2, 1024] }] });
}

/** The placeholder is read as the NCHW pair made from the crop (`<placeholder>:nchw`). */
function tensorName(name: string, input: { name: string } | null): string {
  const base = name.replace(/:0$/, '');
  return input && base === input.name ? `${base}:nchw` : base;
}

function ancestors(byName: Map<string, TfNode>, output: string): Set<string> {
  const seen = new Set<string>();
  const stack = [output];
  while (stack.length) {
    const name = stack.pop()!.replace(/:\d+$/, '');
    if (seen.has(name)) continue;
    seen.add(name);
    for (const i of byName.get(name)?.input ?? []) stack.push(i);
  }
  return seen;
}

function nhwcPair(n: TfNode, attr: 'strides' | 'dilations'): [number, number] {
  const v = (n.attr?.[attr]?.list?.i ?? ['1', '1', '1', '1']).map(Number);
  return [v[1]!, v[2]!];
}

function padding(n: TfNode): string {
  const s = n.attr?.padding?.s;
  const p = s ? Buffer.from(s, 'base64').toString('utf8') : 'VALID';
  if (p !== 'SAME' && p !== 'VALID') throw new Error(`faceres: ${n.name} has padding ${p}`);
  return p;
}

/** Every weight of the manifest, float16 ones widened to float32 as tfjs does when it loads them. */
async function readWeights(model: TfGraphModel, dir: string): Promise<Map<string, Weight>> {
  const out = new Map<string, Weight>();
  for (const group of model.weightsManifest) {
    const bytes = Buffer.concat(await Promise.all(group.paths.map((p) => readFile(join(dir, p)))));
    let offset = 0;
    for (const w of group.weights) {
      const count = w.shape.reduce((a, b) => a * b, 1);
      if (w.quantization) {
        if (w.quantization.dtype !== 'float16') throw new Error(`faceres: ${w.name} is quantized as ${w.quantization.dtype}`);
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
