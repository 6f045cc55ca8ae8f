// First: on import it sets ORT_DISABLE_TELEMETRY (main thread) or checks it is set (a worker
// thread), before onnxruntime loads.
import './telemetry.ts';
import { Tensor } from 'onnxruntime-node';
import { binding, initOrt } from 'onnxruntime-node/dist/binding.js';
import { CPU_SESSION_OPTIONS } from './session.ts';

/**
 * An onnxruntime session run synchronously, for human's `model.execute()` (faces/human-onnx.ts),
 * which must return tensors at once. It uses the native session onnxruntime-node exports as
 * `binding`, below its public API: the package's version is pinned, and a test loads a model through it.
 */
export interface SyncSession {
  /** The model on one float32 input: each output's values and dimensions, in the model's order of outputs. */
  run(input: Float32Array, dims: readonly number[]): { data: Float32Array; dims: number[] }[];
}

export function createSyncCpuSession(model: Uint8Array): SyncSession {
  initOrt();
  const session = new binding.InferenceSession();
  session.loadModel(model.buffer as ArrayBuffer, model.byteOffset, model.byteLength, CPU_SESSION_OPTIONS);
  const inputName = session.inputMetadata[0]!.name;
  const outputNames = session.outputMetadata.map((m) => m.name);
  const fetches = Object.fromEntries(outputNames.map((n) => [n, null]));
  return {
    run(input, dims) {
      const out = session.run({ [inputName]: new Tensor('float32', input, dims) }, fetches, {});
      return outputNames.map((n) => {
        const t = out[n] as Tensor;
        if (t.type !== 'float32') throw new Error(`onnx output ${n} is ${t.type}, not float32`);
        return { data: t.data as Float32Array, dims: [...t.dims] };
      });
    },
  };
}
