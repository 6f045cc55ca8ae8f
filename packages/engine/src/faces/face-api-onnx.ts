import { graphBuilder, writeOnnxModel, type GraphBuilder } from '../onnx/model-proto.ts';
import { hwioToOihw } from '../onnx/tf-layout.ts';

/**
 * face-api's face recognition net (dlib's ResNet: 150 × 150 RGB in, 128 values out) as an ONNX
 * graph, so that onnxruntime runs it instead of tfjs's wasm backend, as faceres already is
 * (faceres-onnx.ts). face-api defines the net in code rather than as a graph file; this writes the
 * same computation, step for step, from the weights face-api ships (its weight map, read as it
 * reads it), at load: nothing is converted ahead, nothing else is stored.
 *
 * face-api's forward pass, written here in ONNX's NCHW layout:
 * - the batch (150 × 150, 0..255, made by face-api's own `toBatchTensor`) less the mean colour,
 *   divided by 255;
 * - a 7 × 7 convolution, stride 2, no padding, then a 3 × 3 max pool, stride 2;
 * - residual blocks: convolution, scale, ReLU, convolution, scale, plus the block's input, ReLU;
 *   the "down" blocks start with a 3 × 3 convolution of stride 2 without padding, and their input
 *   is averaged 2 × 2 to be added, padded with zero channels to the new depth; where the two sizes
 *   then differ by a pixel, face-api pads the convolution's output with a row and a column of zeros
 *   at the end, and so does this graph;
 * - the spatial mean, then the 256 × 128 fully connected layer.
 * Each convolution adds its bias, then a per-channel scale (`scale/weights`, `scale/biases`).
 */

/** The net's input side, in pixels. */
export const FACE_API_SIZE = 150;
/** face-api's mean colour, taken off every pixel (then divided by 255). */
const MEAN_RGB = [122.782, 117.001, 104.298];

/** A weight of face-api's map: its shape and values. */
export interface NamedWeight {
  shape: number[];
  values: Float32Array;
}

type Layer = { name: string; kernel: number; stride: 1 | 2; relu: boolean; pad: 'same' | 'valid' };

/** The blocks after the first convolution, in order: `down` blocks halve the size. */
const BLOCKS: [name: string, down: boolean][] = [
  ['conv32_1', false],
  ['conv32_2', false],
  ['conv32_3', false],
  ['conv64_down', true],
  ['conv64_1', false],
  ['conv64_2', false],
  ['conv64_3', false],
  ['conv128_down', true],
  ['conv128_1', false],
  ['conv128_2', false],
  ['conv256_down', true],
  ['conv256_1', false],
  ['conv256_2', false],
  ['conv256_down_out', true],
];

export const FACE_API_INPUT = 'face';
export const FACE_API_OUTPUT = 'descriptor';

/**
 * What both face-api graph writers start from (this one and face-api-landmarks-onnx.ts): a graph,
 * the net's weights by name, and face-api's normalisation of its input batch (NHWC, 0..255) into
 * NCHW, less face-api's mean colour, divided by 255.
 */
export function faceApiGraph(weights: ReadonlyMap<string, NamedWeight>, net: string, input: string): { graph: GraphBuilder; weight(name: string): NamedWeight; normalised: string } {
  const graph = graphBuilder();
  const weight = (name: string): NamedWeight => {
    const w = weights.get(name);
    if (!w) throw new Error(`face-api ${net}: no weight ${name}`);
    return w;
  };
  const nchw = graph.node('Transpose', [input], { perm: [0, 3, 1, 2] });
  const centred = graph.node('Sub', [nchw, graph.floats('mean_rgb', [3, 1, 1], Float32Array.from(MEAN_RGB))]);
  return { graph, weight, normalised: graph.node('Div', [centred, graph.floats('255', [], Float32Array.of(255))]) };
}

/** The ONNX model of the recognition net (input `[n, 150, 150, 3]` NHWC, 0..255; output `[n, 128]`). */
export function faceRecognitionOnnx(weights: ReadonlyMap<string, NamedWeight>): Uint8Array {
  const { graph, weight, normalised } = faceApiGraph(weights, 'recognition net', FACE_API_INPUT);
  const { node, floats: constant } = graph;
  const perChannel = (name: string) => {
    const w = weight(name);
    return constant(name, [w.values.length, 1, 1], w.values);
  };

  /** Convolution, bias, scale, ReLU. */
  const convLayer = (x: string, layer: Layer): string => {
    const filter = weight(`${layer.name}/conv/filters`);
    const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
    if (kh !== layer.kernel || kw !== layer.kernel) throw new Error(`face-api recognition net: ${layer.name} is ${kh} × ${kw}`);
    const w = constant(`${layer.name}/conv/filters`, [cout, cin, kh, kw], hwioToOihw(filter, false));
    const bias = weight(`${layer.name}/conv/bias`);
    const conv = node('Conv', [x, w, constant(`${layer.name}/conv/bias`, [bias.values.length], bias.values)], {
      kernel_shape: [kh, kw],
      strides: [layer.stride, layer.stride],
      // tfjs's "same" with stride 1 and an odd kernel pads evenly, as SAME_UPPER does.
      auto_pad: layer.pad === 'same' ? 'SAME_UPPER' : 'VALID',
    });
    const scaled = node('Add', [node('Mul', [conv, perChannel(`${layer.name}/scale/weights`)]), perChannel(`${layer.name}/scale/biases`)]);
    return layer.relu ? node('Relu', [scaled]) : scaled;
  };
  const pads = graph.int64s;

  let x = normalised;
  x = convLayer(x, { name: 'conv32_down', kernel: 7, stride: 2, relu: true, pad: 'valid' });
  x = node('MaxPool', [x], { kernel_shape: [3, 3], strides: [2, 2] });
  // The tensor's spatial side and depth, followed through the blocks (the graph is static past the
  // batch): where a down block's two branches differ in size or depth, the padding is decided here.
  let size = Math.floor((Math.floor((FACE_API_SIZE - 7) / 2) + 1 - 3) / 2) + 1;
  let channels = weight('conv32_down/conv/filters').shape[3]!;

  for (const [name, down] of BLOCKS) {
    const depth = weight(`${name}/conv2/conv/filters`).shape[3]!;
    if (!down) {
      const a = convLayer(x, { name: `${name}/conv1`, kernel: 3, stride: 1, relu: true, pad: 'same' });
      const b = convLayer(a, { name: `${name}/conv2`, kernel: 3, stride: 1, relu: false, pad: 'same' });
      x = node('Relu', [node('Add', [b, x])]);
      continue;
    }
    const a = convLayer(x, { name: `${name}/conv1`, kernel: 3, stride: 2, relu: true, pad: 'valid' });
    let b = convLayer(a, { name: `${name}/conv2`, kernel: 3, stride: 1, relu: false, pad: 'same' });
    const convSize = Math.floor((size - 3) / 2) + 1;
    const poolSize = Math.floor(size / 2);
    let pooled = node('AveragePool', [x], { kernel_shape: [2, 2], strides: [2, 2] });
    if (convSize !== poolSize) {
      if (poolSize !== convSize + 1) throw new Error(`face-api recognition net: ${name} sizes ${convSize} and ${poolSize}`);
      b = node('Pad', [b, pads(`${name}/pad_size`, [0, 0, 0, 0, 0, 0, 1, 1])]);
    }
    if (depth !== channels) pooled = node('Pad', [pooled, pads(`${name}/pad_depth`, [0, 0, 0, 0, 0, depth - channels, 0, 0])]);
    x = node('Relu', [node('Add', [pooled, b])]);
    size = poolSize;
    channels = depth;
  }
  const mean = node('ReduceMean', [x], { axes: [2, 3], keepdims: 0 });
  const fc = weight('fc');
  node('MatMul', [mean, constant('fc', fc.shape, fc.values)], undefined, FACE_API_OUTPUT);
  return writeOnnxModel({ nodes: graph.nodes, initializers: graph.initializers, inputs: [{ name: FACE_API_INPUT, dims: ['n', FACE_API_SIZE, FACE_API_SIZE, 3] }], outputs: [{ name: FACE_API_OUTPUT, dims: ['n', 128] }] });
}
