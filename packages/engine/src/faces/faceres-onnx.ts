import { readTfGraphModel, tfGraphToOnnx } from '../onnx/tf-graph.ts';

/**
 * human's face descriptor model (`faceres.json`, a MobileNet: convolutions, depthwise
 * convolutions, batch norms folded into multiplications and additions, ReLU6, a global mean) as
 * an ONNX graph, so that onnxruntime runs it instead of tfjs's wasm backend: about four times
 * less CPU for the same 1024 values (within float32 rounding; bench/checks/faces.ts measures both).
 * Written from the very files human ships (onnx/tf-graph.ts), at load. Only the descriptor is
 * kept (the graph up to `global_pooling/Mean`; the age and gender heads after it are not used).
 */

/** The descriptor's node: the graph is cut there. */
export const FACERES_OUTPUT = 'global_pooling/Mean';

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
  const { model, weights } = await readTfGraphModel(modelJson);
  return tfGraphToOnnx(model, weights, {
    label: 'faceres',
    outputs: [FACERES_OUTPUT],
    outputDims: [[2, 1024]],
    input: {
      name: FACERES_INPUT,
      dims: [1, 'h', 'w', 3],
      // The model's input is made here from human's crop, as tfjs made it before: resized to the
      // model's side (bilinear, tfjs's default corners: ONNX's `asymmetric`), then its mirror
      // image beside it (reversed after the resize, as tfjs did), scaled to 0..255.
      prefix(nchw, graph) {
        graph.node('Transpose', [FACERES_INPUT], { perm: [0, 3, 1, 2] }, 'crop:nchw');
        graph.node('Resize', ['crop:nchw', '', '', graph.int64s('crop:size', [1, 3, FACERES_SIDE, FACERES_SIDE])], { mode: 'linear', coordinate_transformation_mode: 'asymmetric' }, 'crop:resized');
        graph.node('Slice', ['crop:resized', graph.int64s('mirror:starts', [-1n]), graph.int64s('mirror:ends', [-(2n ** 63n)]), graph.int64s('mirror:axes', [3n]), graph.int64s('mirror:steps', [-1n])], undefined, 'crop:mirror');
        graph.node('Concat', ['crop:resized', 'crop:mirror'], { axis: 0 }, 'crop:pair');
        graph.node('Mul', ['crop:pair', graph.floats('crop:255', [], Float32Array.of(255))], undefined, nchw);
      },
    },
  });
}
