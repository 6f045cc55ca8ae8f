import { fileURLToPath } from 'node:url';
import { createSyncCpuSession, type SyncSession } from '../onnx/sync-session.ts';
import { outputNode, readTfGraphModel, tfGraphToOnnx } from '../onnx/tf-graph.ts';
import { MESH_OUTPUT_LENGTH } from './mesh-precision.ts';

// human's models and tfjs are typed loosely by the bundle (models.ts).
type Tf = any; // eslint-disable-line @typescript-eslint/no-explicit-any
interface TfTensor {
  shape: number[];
  dtype: string;
  dataSync(): Float32Array | Int32Array | Uint8Array;
}
interface HumanGraphModel {
  modelUrl: string;
  outputNodes: string[];
  execute(inputs: unknown, outputs?: string | string[]): unknown;
}

/** human's models that run on onnxruntime: its detector, mesh and the two passive liveness nets. */
export const HUMAN_ONNX_MODELS = ['blazeface', 'facemesh', 'antispoof', 'liveness'] as const;

/**
 * Puts onnxruntime behind human's own face models, keeping human's pipeline (its crops, box
 * decoding, rotation and scores) as it is: each model's `execute`, which human calls with one
 * tensor and reads tensors back from, runs the same graph (written from the same files,
 * onnx/tf-graph.ts) on onnxruntime, synchronously (onnx/sync-session.ts). tfjs's wasm backend
 * took about 65 ms of CPU for these four on a portrait, onnxruntime about 20 (the calls, the
 * copies in and out included); the values agree within float32 rounding (a test compares every
 * output of each model on real faces).
 */
export async function runHumanModelsOnOnnx(models: Record<string, HumanGraphModel | undefined>, tf: Tf): Promise<MeshOutputs> {
  const meshOutputs: MeshOutputs = [];
  for (const name of HUMAN_ONNX_MODELS) {
    const model = models[name];
    if (!model) throw new Error(`face models: human model ${name} is not loaded`);
    const { model: graph, weights } = await readTfGraphModel(fileURLToPath(model.modelUrl));
    const session = createSyncCpuSession(tfGraphToOnnx(graph, weights, { label: `human ${name}`, outputs: model.outputNodes.map((o) => outputNode(graph, o)) }));
    model.execute = onnxExecute(name, session, model.outputNodes, tf, name === 'facemesh' ? keepMeshOutput(meshOutputs) : undefined);
  }
  return meshOutputs;
}

/**
 * The mesh model's latest outputs, newest last (at most MESH_OUTPUTS_KEPT): human gives its mesh
 * truncated to whole pixels, mesh-precision.ts recovers the fractions from these.
 */
export type MeshOutputs = Float32Array[];
/** More than the faces of one image human keeps (its detector's maxDetected, models.ts). */
const MESH_OUTPUTS_KEPT = 16;

function keepMeshOutput(kept: MeshOutputs) {
  return (data: Float32Array) => {
    if (data.length !== MESH_OUTPUT_LENGTH) return;
    kept.push(Float32Array.from(data));
    if (kept.length > MESH_OUTPUTS_KEPT) kept.shift();
  };
}

/** tfjs's `GraphModel.execute` for one input tensor and the model's own outputs, on `session`; `seen` is shown each output. */
function onnxExecute(name: string, session: SyncSession, outputs: string[], tf: Tf, seen?: (data: Float32Array) => void): HumanGraphModel['execute'] {
  return (inputs, asked) => {
    if (asked !== undefined && [asked].flat().join() !== outputs.join()) throw new Error(`human ${name}: outputs ${String(asked)} asked, only the model's own are run`);
    const input = inputs as TfTensor;
    if (!input || !Array.isArray(input.shape) || input.dtype !== 'float32') throw new Error(`human ${name}: one float32 tensor expected`);
    const results = session.run(input.dataSync() as Float32Array, input.shape);
    if (seen) for (const r of results) seen(r.data);
    const tensors = results.map((r) => tf.tensor(r.data, r.dims, 'float32'));
    return tensors.length === 1 ? tensors[0] : tensors;
  };
}
