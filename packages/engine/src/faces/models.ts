import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { InferenceSession } from 'onnxruntime-node';
import { countModelLoad } from '../model-loads.ts';
import { createCpuSession, runFloat } from '../onnx/session.ts';
import { faceLandmarksOnnx, LANDMARKS_SIZE } from './face-api-landmarks-onnx.ts';
import { faceRecognitionOnnx, FACE_API_SIZE, type NamedWeight } from './face-api-onnx.ts';
import { faceresOnnx } from './faceres-onnx.ts';
import { runHumanModelsOnOnnx } from './human-onnx.ts';

/**
 * The face models, loaded once per thread (lazy singletons: the first call loads, later calls
 * share the promise; each worker thread has its own module instance and so its own models).
 *
 * Why the browser bundles: `human.node-wasm.js` and `face-api.node-wasm.js` require
 * `@tensorflow/tfjs` and `@tensorflow/tfjs-converter`, which are not installed (the packages
 * declare no dependency, and tfjs-node does not install here). The ESM bundles carry their own
 * complete tfjs (core, converter, wasm backend), so they are self-sufficient. What makes them
 * work in Node:
 *  - tfjs keeps one engine and one set of flags on the global object, shared by every copy of
 *    tfjs in the thread. The installed `@tensorflow/tfjs-core` (the wasm backend's peer) creates
 *    it first, and IS_BROWSER is set on it, so that the bundles take tfjs's browser platform
 *    (their Node platform is stubbed out and throws at import). Nothing global but tfjs's own
 *    state is touched.
 *  - while the wasm backend starts, `__dirname` is defined (emscripten's Node branch reads it);
 *  - the platform's `fetch` serves `file://` URLs from disk (wasm binaries and model files), and
 *    a load router gives human's models from `node_modules`: nothing is downloaded.
 * Both bundles carry tfjs 4.22 like the installed core, so they share one engine and one wasm
 * instance per thread; each library still builds its own input tensors with its own `tf`.
 */

const require = createRequire(import.meta.url);
const WASM_DIR = dirname(require.resolve('@tensorflow/tfjs-backend-wasm/package.json')) + '/dist/';
// Both packages resolve to their Node builds by name; the bundles are taken by path beside them.
const HUMAN_DIST = dirname(require.resolve('@vladmandic/human'));
const FACE_API_DIST = dirname(require.resolve('@vladmandic/face-api'));
const HUMAN_MODELS = join(HUMAN_DIST, '..', 'models') + '/';
const FACE_API_MODELS = join(FACE_API_DIST, '..', 'model') + '/';

// The two bundles' types are wide and partly browser-only; the engine uses a narrow surface.
type Tf = any; // eslint-disable-line @typescript-eslint/no-explicit-any
export type HumanInstance = any; // eslint-disable-line @typescript-eslint/no-explicit-any
export type FaceApi = any; // eslint-disable-line @typescript-eslint/no-explicit-any

export interface FaceModels {
  human: HumanInstance;
  humanTf: Tf;
  faceapi: FaceApi;
  faceTf: Tf;
  /**
   * human's face descriptor model (faceres), run by the engine itself on human's face crops
   * (faceres-descriptor.ts), on onnxruntime (faceres-onnx.ts): the heaviest of the face models,
   * it took 220 ms of CPU per image on tfjs's wasm backend and takes 30 on the runtime.
   */
  faceres: InferenceSession;
  /**
   * face-api's recognition net (its 128-d descriptor), on onnxruntime (face-api-onnx.ts): face-api
   * runs it on tfjs's wasm backend, 185 ms of CPU for a face and its mirror; the same computation
   * from the same weights takes 30 here (values within 4e-7).
   */
  faceRecognition: InferenceSession;
  /**
   * face-api's 68-point landmark net, on onnxruntime (face-api-landmarks-onnx.ts): run twice per
   * face to align it, about 20 ms of CPU a call on tfjs's wasm backend, 4 here.
   */
  faceLandmarks: InferenceSession;
}

/** Human's settings: the face pipeline only, no body/hand/object/gesture models. */
export const HUMAN_CONFIG = {
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
    detector: { rotation: true, maxDetected: 10, minConfidence: 0.3, return: true, skipFrames: 0, skipTime: 0 },
    mesh: { enabled: true },
    attention: { enabled: false },
    iris: { enabled: false },
    emotion: { enabled: false },
    // faceres is loaded apart and run by the engine (on the crop and its mirror in one batch), not by human.
    description: { enabled: false },
    antispoof: { enabled: true, skipFrames: 0, skipTime: 0 },
    liveness: { enabled: true, skipFrames: 0, skipTime: 0 },
  },
} as const;

/** The side of human's face crop (`detector.return`), which faceres's graph resizes to its input. */
const FACERES_CROP = 192;

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
  await runHumanModelsOnOnnx(human.models.models ?? {}, humanTf);
  const faceres = await createCpuSession(await faceresOnnx(join(HUMAN_MODELS, 'faceres.json')));

  // face-api's kernels are already registered by human's (PROD keeps tfjs quiet about each one).
  const faceapi = await import(pathToFileURL(join(FACE_API_DIST, 'face-api.esm.js')).href);
  const faceTf = faceapi.tf;
  await faceTf.setBackend('wasm');
  if (faceTf.getBackend() !== 'wasm') throw new Error('face models: face-api did not get the wasm backend');
  const landmarks = await readWeightMap(faceTf, FACE_API_MODELS, 'face_landmark_68_model');
  const faceLandmarks = await createCpuSession(faceLandmarksOnnx(namedWeights(landmarks)));
  faceTf.dispose(Object.values(landmarks));
  const recognition = await readWeightMap(faceTf, FACE_API_MODELS, 'face_recognition_model');
  const faceRecognition = await createCpuSession(faceRecognitionOnnx(namedWeights(recognition)));
  faceTf.dispose(Object.values(recognition));
  const models = { human, humanTf, faceapi, faceTf, faceres, faceRecognition, faceLandmarks };
  await warmUp(models);
  return models;
}

/**
 * One pass of every model on blank input, so that the first real image does not pay for the
 * backend's first execution of each graph (about 350 ms here); part of loading, once per thread.
 */
async function warmUp({ human, humanTf, faceres, faceRecognition, faceLandmarks }: FaceModels): Promise<void> {
  for (const model of Object.values(human.models.models as Record<string, Tf>)) {
    if (!model?.inputs?.[0]?.shape) continue;
    const shape = (model.inputs[0].shape as number[]).map((d) => (d > 0 ? d : 1));
    const input = humanTf.zeros(shape);
    const output = model.execute(input);
    for (const t of Array.isArray(output) ? output : [output]) await t.data();
    humanTf.dispose([input, output]);
  }
  await runFloat(faceres, new Float32Array(FACERES_CROP * FACERES_CROP * 3), [1, FACERES_CROP, FACERES_CROP, 3]);
  await runFloat(faceRecognition, new Float32Array(2 * FACE_API_SIZE * FACE_API_SIZE * 3), [2, FACE_API_SIZE, FACE_API_SIZE, 3]);
  await runFloat(faceLandmarks, new Float32Array(LANDMARKS_SIZE * LANDMARKS_SIZE * 3), [1, LANDMARKS_SIZE, LANDMARKS_SIZE, 3]);
}

/** A weight map's tensors as shapes and values (read once, to write an ONNX graph). */
function namedWeights(map: Record<string, { shape: number[]; dataSync(): Float32Array }>): Map<string, NamedWeight> {
  return new Map(Object.entries(map).map(([name, t]) => [name, { shape: [...t.shape], values: Float32Array.from(t.dataSync()) }]));
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

/** face-api's weights: `<name>-weights_manifest.json` and its shards, decoded into named tensors. */
async function readWeightMap(tf: Tf, dir: string, name: string) {
  const manifest: Array<{ paths: string[]; weights: unknown[] }> = JSON.parse(await readFile(join(dir, `${name}-weights_manifest.json`), 'utf8'));
  const specs = manifest.flatMap((group) => group.weights);
  const buffers = await Promise.all(manifest.flatMap((group) => group.paths.map((p) => readFile(join(dir, p)))));
  const all = Buffer.concat(buffers);
  return tf.io.decodeWeights(all.buffer.slice(all.byteOffset, all.byteOffset + all.byteLength), specs);
}
