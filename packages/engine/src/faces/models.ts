import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { InferenceSession } from 'onnxruntime-node';
import { countModelLoad } from '../model-loads.ts';
import { createCpuSession, runFloat } from '../onnx/session.ts';
import { ALIGNED_SIDE } from './align.ts';
import { runHumanModelsOnOnnx, type MeshOutputs } from './human-onnx.ts';
import { RECOGNITION_MODEL } from './recognition-descriptor.ts';

/**
 * The face models, loaded once per thread (lazy singletons: the first call loads, later calls
 * share the promise; each worker thread has its own module instance and so its own models).
 *
 * Why human's browser bundle: `human.node-wasm.js` requires `@tensorflow/tfjs` and
 * `@tensorflow/tfjs-converter`, which are not installed (tfjs-node does not install here); the
 * ESM bundle carries its own complete tfjs. What makes it work in Node:
 *  - tfjs keeps one engine and one set of flags on the global object. The installed
 *    `@tensorflow/tfjs-core` (the wasm backend's peer) creates it first, with IS_BROWSER set, so
 *    that the bundle takes tfjs's browser platform (its Node platform is stubbed out and throws);
 *  - while the wasm backend starts, `__dirname` is defined (emscripten's Node branch reads it);
 *  - the platform's `fetch` serves `file://` URLs from disk and a load router gives human's
 *    models from `node_modules`: nothing is downloaded.
 */

const require = createRequire(import.meta.url);
const WASM_DIR = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')) + '/dist/';
// The package resolves to its Node build by name; the bundle is taken by path beside it.
const HUMAN_DIST = dirname(require.resolve('@vladmandic/human'));
const HUMAN_MODELS = join(HUMAN_DIST, '..', 'models') + '/';

// The bundle's types are wide and partly browser-only; the engine uses a narrow surface.
type Tf = any; // eslint-disable-line @typescript-eslint/no-explicit-any
type HumanInstance = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface FaceModels {
  human: HumanInstance;
  humanTf: Tf;
  /** The recognition model on onnxruntime (recognition-descriptor.ts). */
  recognition: InferenceSession;
  /** The mesh model's latest outputs, to undo human's truncation of the mesh (mesh-precision.ts). */
  meshOutputs: MeshOutputs;
}

/** Human's settings: the face pipeline only, no body/hand/object/gesture models. */
const HUMAN_CONFIG = {
  backend: 'wasm',
  wasmPath: pathToFileURL(WASM_DIR).href,
  wasmPlatformFetch: true,
  modelBasePath: pathToFileURL(HUMAN_MODELS).href,
  cacheModels: false,
  cacheSensitivity: 0, // every image is analysed afresh: no reuse of a previous frame's results
  debug: false,
  async: false,
  warmup: 'none',
  filter: { enabled: false },
  gesture: { enabled: false },
  body: { enabled: false },
  hand: { enabled: false },
  object: { enabled: false },
  segmentation: { enabled: false },
  face: {
    enabled: true,
    // return: each face's upright crop comes back as `tensor` (the caller disposes it), for faceres.
    detector: { rotation: true, maxDetected: 10, minConfidence: 0.3, return: false, skipFrames: 0, skipTime: 0 },
    mesh: { enabled: true },
    attention: { enabled: false },
    iris: { enabled: false },
    emotion: { enabled: false },
    // The descriptor is the engine's own (recognition-descriptor.ts), not human's.
    description: { enabled: false },
    antispoof: { enabled: true, skipFrames: 0, skipTime: 0 },
    liveness: { enabled: true, skipFrames: 0, skipTime: 0 },
  },
} as const;

let loading: Promise<FaceModels> | null = null;

/** The models of this thread, loaded on first use. */
export function loadFaceModels(): Promise<FaceModels> {
  loading ??= load().catch((err) => {
    loading = null; // a failed load may be retried (e.g. after a transient file error)
    throw err;
  });
  return loading;
}

async function load(): Promise<FaceModels> {
  countModelLoad('faces');
  await presetTfjsEnvironment();
  const humanModule = await import(pathToFileURL(join(HUMAN_DIST, 'human.esm.js')).href);

  const human = new humanModule.Human(HUMAN_CONFIG);
  const humanTf = human.tf;
  prepareTf(humanTf);
  humanTf.io.registerLoadRouter((url: unknown) => (typeof url === 'string' && url.startsWith('file://') ? fileModelHandler(humanTf, url) : null));
  await withDirname(() => human.init());
  if (humanTf.getBackend() !== 'wasm') throw new Error(`face models: wasm backend did not start (got ${humanTf.getBackend()})`);
  await human.load();
  // human's detector, mesh and liveness nets run on onnxruntime behind human's own pipeline.
  const meshOutputs = await runHumanModelsOnOnnx(human.models.models ?? {}, humanTf);
  const recognition = await createCpuSession(await readFile(RECOGNITION_MODEL));
  const models = { human, humanTf, recognition, meshOutputs };
  await warmUp(models);
  return models;
}

/**
 * One pass of every model on blank input, so that the first real image does not pay for the
 * backend's first execution of each graph (about 350 ms here); part of loading, once per thread.
 */
async function warmUp({ human, humanTf, recognition }: FaceModels): Promise<void> {
  for (const model of Object.values(human.models.models as Record<string, Tf>)) {
    if (!model?.inputs?.[0]?.shape) continue;
    const shape = (model.inputs[0].shape as number[]).map((d) => (d > 0 ? d : 1));
    const input = humanTf.zeros(shape);
    const output = model.execute(input);
    for (const t of Array.isArray(output) ? output : [output]) await t.data();
    humanTf.dispose([input, output]);
  }
  await runFloat(recognition, new Float32Array(3 * ALIGNED_SIDE * ALIGNED_SIDE), [1, 3, ALIGNED_SIDE, ALIGNED_SIDE]);
}

/**
 * Creates tfjs's shared engine with the installed core and marks it as a browser (see the
 * header). PROD: no warning for each kernel registered twice or for the platform replaced.
 */
async function presetTfjsEnvironment(): Promise<void> {
  const core = await import('@tensorflow/tfjs-core');
  core.env().set('PROD', true);
  core.env().set('IS_BROWSER', true);
}

async function withDirname<T>(run: () => Promise<T>): Promise<T> {
  const g = globalThis as Record<string, unknown>;
  const had = '__dirname' in g;
  if (!had) g.__dirname = WASM_DIR.replace(/\/$/, '');
  try {
    return await run();
  } finally {
    if (!had) delete g.__dirname;
  }
}

/** Single-threaded wasm (one inference per worker thread), and a platform fetch that reads files. */
function prepareTf(tf: Tf): void {
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  const platform = tf.env().platform;
  const baseFetch = platform.fetch.bind(platform);
  platform.fetch = async (path: string, init?: unknown) => {
    if (typeof path === 'string' && path.startsWith('file://')) {
      const bytes = await readFile(fileURLToPath(path));
      return new Response(bytes, { headers: { 'content-type': path.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream' } });
    }
    return baseFetch(path, init);
  };
}

/** A tfjs load handler for a graph model's `model.json` and its weight files on disk. */
function fileModelHandler(tf: Tf, url: string) {
  return {
    load: async () => {
      const path = fileURLToPath(url);
      const json = JSON.parse(await readFile(path, 'utf8'));
      return tf.io.getModelArtifactsForJSON(json, async (manifest: Array<{ paths: string[]; weights: unknown[] }>) => {
        const specs = manifest.flatMap((group) => group.weights);
        const buffers = await Promise.all(manifest.flatMap((group) => group.paths.map((p) => readFile(join(dirname(path), p)))));
        const all = Buffer.concat(buffers);
        return [specs, all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength)];
      });
    },
  };
}
