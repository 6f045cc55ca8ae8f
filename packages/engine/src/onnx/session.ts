// First: on import it sets ORT_DISABLE_TELEMETRY (main thread) or checks it is set (a worker
// thread), before onnxruntime loads; a session needs nothing more.
import './telemetry.ts';
import { readFile } from 'node:fs/promises';
import { InferenceSession, Tensor } from 'onnxruntime-node';

/**
 * onnxruntime sessions for the engine's models, on the CPU (the binaries ship inside the
 * `onnxruntime-node` package; `allowScripts` in the root package.json keeps its install script from fetching
 * GPU ones). One thread per session: the checks pool already runs one task per core, so a
 * session that spread over the cores would only take them from the other tasks.
 */
export const CPU_SESSION_OPTIONS: InferenceSession.SessionOptions = {
  executionProviders: ['cpu'],
  intraOpNumThreads: 1,
  interOpNumThreads: 1,
  executionMode: 'sequential',
  graphOptimizationLevel: 'all',
};

export function createCpuSession(model: Uint8Array): Promise<InferenceSession> {
  return InferenceSession.create(model, CPU_SESSION_OPTIONS);
}

/**
 * A loader of the model file at `path` as this thread's CPU session: read and created on the
 * first call, the same session after; a failed load is forgotten, so that the next call tries again.
 */
export function lazyCpuSession(path: string): () => Promise<InferenceSession> {
  let loading: Promise<InferenceSession> | null = null;
  return () => {
    loading ??= readFile(path).then((bytes) => createCpuSession(bytes)).catch((err) => {
      loading = null;
      throw err;
    });
    return loading;
  };
}

/** Runs a session on one float32 input and returns its one float32 output's values. */
export async function runFloat(session: InferenceSession, input: Float32Array, dims: number[]): Promise<Float32Array> {
  const feeds = { [session.inputNames[0]!]: new Tensor('float32', input, dims) };
  const out = await session.run(feeds);
  const t = out[session.outputNames[0]!]!;
  return t.data as Float32Array;
}
