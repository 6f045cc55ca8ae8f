/**
 * The on-device face detector, loaded only on the face step (a chunk of its own): face-api's tiny
 * face detector and 68-point landmark network on tfjs's WebAssembly backend, all served by the
 * journey itself. Why these over MediaPipe or human's BlazeFace: the download (docs/journey.md).
 */
import { FaceLandmark68TinyNet, TinyFaceDetector, TinyFaceDetectorOptions } from '@vladmandic/face-api/dist/face-api.esm-nobundle.js';
import { io, ready, setBackend } from '@tensorflow/tfjs-core';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import wasmPlain from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm.wasm';
import wasmSimd from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-simd.wasm';
import wasmThreaded from '@tensorflow/tfjs-backend-wasm/dist/tfjs-backend-wasm-threaded-simd.wasm';
import detectorWeights from '@vladmandic/face-api/model/tiny_face_detector_model.bin';
import detectorManifest from '@vladmandic/face-api/model/tiny_face_detector_model-weights_manifest.json' with { type: 'json' };
import landmarkWeights from '@vladmandic/face-api/model/face_landmark_68_tiny_model.bin';
import landmarkManifest from '@vladmandic/face-api/model/face_landmark_68_tiny_model-weights_manifest.json' with { type: 'json' };
import type { Point } from './document-edges.ts';

/** A face found in a frame: box and landmarks in frame fractions (the camera's own, unmirrored frame). */
export interface DetectedFace {
  score: number;
  box: { x: number; y: number; w: number; h: number };
  /** The 68 points of the iBUG scheme (jaw 0–16, nose 27–35, eyes 36–47, mouth 48–67). */
  landmarks: Point[];
}

export interface FaceModel {
  detect(source: HTMLVideoElement | HTMLCanvasElement): Promise<DetectedFace[]>;
}

/** Side of the square the detector looks at (the whole frame, padded): a face filling the oval is large in it. */
const DETECTOR_INPUT = 224;
const MIN_SCORE = 0.5;
/** Side of the face crop given to the landmark network (it works at 112). */
const CROP = 128;

type Manifest = { weights: Parameters<typeof io.decodeWeights>[1] }[];

async function weights(url: string, manifest: Manifest): Promise<ReturnType<typeof io.decodeWeights>> {
  const res = await fetch(url);
  if (!res.ok) throw new Error(`model ${res.status}`);
  return io.decodeWeights(await res.arrayBuffer(), manifest[0].weights);
}

let loading: Promise<FaceModel> | null = null;

/** Loads the networks once per page (a second face screen reuses them). */
export function loadFaceModel(): Promise<FaceModel> {
  loading ??= load().catch((err: unknown) => {
    loading = null;
    throw err;
  });
  return loading;
}

async function load(): Promise<FaceModel> {
  setWasmPaths({ 'tfjs-backend-wasm.wasm': wasmPlain, 'tfjs-backend-wasm-simd.wasm': wasmSimd, 'tfjs-backend-wasm-threaded-simd.wasm': wasmThreaded });
  if (!(await setBackend('wasm'))) throw new Error('no WebAssembly backend');
  await ready();
  const detector = new TinyFaceDetector();
  const landmarks = new FaceLandmark68TinyNet();
  const [d, l] = await Promise.all([weights(detectorWeights, detectorManifest as Manifest), weights(landmarkWeights, landmarkManifest as Manifest)]);
  // face-api's declarations carry their own copy of tfjs's types: the same tensors at run time.
  type WeightMap = Parameters<TinyFaceDetector['loadFromWeightMap']>[0];
  detector.loadFromWeightMap(d as unknown as WeightMap);
  landmarks.loadFromWeightMap(l as unknown as WeightMap);
  const options = new TinyFaceDetectorOptions({ inputSize: DETECTOR_INPUT, scoreThreshold: MIN_SCORE });
  const crop = document.createElement('canvas');
  crop.width = CROP;
  crop.height = CROP;
  const cropCtx = crop.getContext('2d', { willReadFrequently: true })!;
  return {
    async detect(source) {
      const width = source instanceof HTMLVideoElement ? source.videoWidth : source.width;
      const height = source instanceof HTMLVideoElement ? source.videoHeight : source.height;
      const found = await detector.locateFaces(source, options);
      const faces: DetectedFace[] = [];
      for (const f of found) {
        const b = f.box;
        // A square crop around the box, a little larger (the network was trained on such crops).
        const side = Math.max(b.width, b.height) * 1.1;
        const cx = b.x + b.width / 2;
        const cy = b.y + b.height / 2;
        const sx = cx - side / 2;
        const sy = cy - side / 2;
        cropCtx.clearRect(0, 0, CROP, CROP);
        cropCtx.drawImage(source, sx, sy, side, side, 0, 0, CROP, CROP);
        const marks = await landmarks.detectLandmarks(crop);
        const positions = (Array.isArray(marks) ? marks[0] : marks).positions;
        faces.push({
          score: f.score,
          box: { x: b.x / width, y: b.y / height, w: b.width / width, h: b.height / height },
          landmarks: positions.map((p) => [(sx + (p.x / CROP) * side) / width, (sy + (p.y / CROP) * side) / height]),
        });
      }
      return faces;
    },
  };
}
