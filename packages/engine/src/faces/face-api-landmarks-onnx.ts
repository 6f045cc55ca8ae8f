import { writeOnnxModel } from '../onnx/model-proto.ts';
import { hwioToOihw } from '../onnx/tf-layout.ts';
import { faceApiGraph, type NamedWeight } from './face-api-onnx.ts';

/**
 * face-api's 68-point landmark net (`FaceLandmark68Net`: 112 × 112 RGB in, 68 points out) as an
 * ONNX graph, so that onnxruntime runs it instead of tfjs's wasm backend, as the recognition net
 * already is (face-api-onnx.ts). face-api defines the net in code; this writes the same
 * computation from the weights face-api ships, at load. Its forward pass, in NCHW:
 * - the batch (made by face-api's own `toBatchTensor(112, true)`, 0..255) less the mean colour,
 *   divided by 255 (`faceApiGraph`, as the recognition net's);
 * - four dense blocks. Each starts with a convolution of stride 2 (the first block's a plain 3 × 3
 *   convolution, the others' depthwise-separable), then three depthwise-separable convolutions,
 *   each reading the ReLU of the sum of all the block's outputs so far; the block gives the ReLU
 *   of the sum of its four. Every convolution is "same" and adds its bias;
 * - a 7 × 7 average pool (the 7 × 7 map to one value per channel), then the 256 × 136 fully
 *   connected layer: x, y of each point, relative to the padded square input.
 */

export const LANDMARKS_SIZE = 112;
export const LANDMARKS_INPUT = 'face';
export const LANDMARKS_OUTPUT = 'landmarks';
const BLOCKS = ['dense0', 'dense1', 'dense2', 'dense3'];

/** The ONNX model of the landmark net (input `[n, 112, 112, 3]` NHWC, 0..255; output `[n, 136]`). */
export function faceLandmarksOnnx(weights: ReadonlyMap<string, NamedWeight>): Uint8Array {
  const { graph, weight, normalised } = faceApiGraph(weights, 'landmark net', LANDMARKS_INPUT);
  const { node, floats: constant } = graph;
  const bias = (name: string) => constant(name, [weight(name).values.length], weight(name).values);
  /** A convolution of `filter` ([h, w, in, out]); `depthwise` for a depthwise one. tfjs's "same" pads the extra pixel after, as SAME_UPPER does. */
  const conv = (x: string, filterName: string, stride: number, depthwise: boolean, biasName?: string) => {
    const filter = weight(filterName);
    const [kh, kw, cin, cout] = filter.shape as [number, number, number, number];
    const w = constant(filterName, depthwise ? [cin * cout, 1, kh, kw] : [cout, cin, kh, kw], hwioToOihw(filter, depthwise));
    return node('Conv', [x, w, ...(biasName ? [bias(biasName)] : [])], {
      kernel_shape: [kh, kw],
      strides: [stride, stride],
      group: depthwise ? cin : 1,
      auto_pad: 'SAME_UPPER',
    });
  };
  /** tfjs's separableConv2d (depthwise, then pointwise), then the bias, as face-api's `depthwiseSeparableConv`. */
  const separable = (x: string, name: string, stride: number) =>
    conv(conv(x, `${name}/depthwise_filter`, stride, true), `${name}/pointwise_filter`, 1, false, `${name}/bias`);

  let x = normalised;
  for (const [i, block] of BLOCKS.entries()) {
    const out1 = node('Relu', [i === 0 ? conv(x, `${block}/conv0/filters`, 2, false, `${block}/conv0/bias`) : separable(x, `${block}/conv0`, 2)]);
    const out2 = separable(out1, `${block}/conv1`, 1);
    const out3 = separable(node('Relu', [node('Add', [out1, out2])]), `${block}/conv2`, 1);
    // The sums associate as face-api's do: out1 + (out2 + out3), out1 + (out2 + (out3 + out4)).
    const out4 = separable(node('Relu', [node('Add', [out1, node('Add', [out2, out3])])]), `${block}/conv3`, 1);
    x = node('Relu', [node('Add', [out1, node('Add', [out2, node('Add', [out3, out4])])])]);
  }
  const pooled = node('AveragePool', [x], { kernel_shape: [7, 7], strides: [2, 2] });
  // One value per channel is left: flattening NCHW gives face-api's NHWC order.
  const flat = node('Flatten', [pooled], { axis: 1 });
  const fc = weight('fc/weights');
  node('Gemm', [flat, constant('fc/weights', fc.shape, fc.values), bias('fc/bias')], undefined, LANDMARKS_OUTPUT);
  return writeOnnxModel({
    nodes: graph.nodes,
    initializers: graph.initializers,
    inputs: [{ name: LANDMARKS_INPUT, dims: ['n', LANDMARKS_SIZE, LANDMARKS_SIZE, 3] }],
    outputs: [{ name: LANDMARKS_OUTPUT, dims: ['n', 136] }],
  });
}
