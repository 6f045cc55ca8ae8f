import { fileURLToPath } from 'node:url';
import type { InferenceSession } from 'onnxruntime-node';
import { runFloat } from '../onnx/session.ts';
import { ALIGNED_POINTS, ALIGNED_SIDE, fitSimilarity, fivePointsFromMesh, warpAligned, type Mesh } from './align.ts';
import type { RgbImage } from './decode-image.ts';
import { unitVector, vectorLength } from './distance.ts';

/**
 * The face recognition model (an ArcFace-style network: five-point aligned 112 × 112 RGB crop in,
 * 512 values out), kept in the repository with its licence and provenance
 * (packages/engine/models/face-recognition/README.md).
 */
export const RECOGNITION_MODEL = fileURLToPath(new URL('../../models/face-recognition/recognition-512.onnx', import.meta.url));
export const RECOGNITION_LENGTH = 512;

const PLANE = ALIGNED_SIDE * ALIGNED_SIDE;

export interface FaceDescription {
  /** Unit vector; compare with `faceDistance`. */
  descriptor: number[];
  /**
   * The length of the model's output before it is scaled to unit length. Networks trained with
   * ArcFace's margin give short outputs for faces they cannot describe well (blurred, dark,
   * turned, partly hidden): a face image quality measure, used to ask for a retake rather than
   * compare a poor capture (face-check.ts).
   */
  quality: number;
}

/**
 * The descriptor of one face: the five points from human's mesh, the aligned crop and its mirror
 * image each described (the model takes one image a run), each output scaled to unit length,
 * the two averaged and scaled to unit length again, so that a mirrored selfie compares like an
 * unmirrored one.
 */
export async function describeFace(recognition: InferenceSession, rgb: RgbImage, mesh: Mesh): Promise<FaceDescription> {
  const transform = fitSimilarity(fivePointsFromMesh(mesh), ALIGNED_POINTS);
  const both = warpAligned(rgb, transform, ALIGNED_SIDE, true);
  const direct = await runFloat(recognition, modelInput(both, 0), [1, 3, ALIGNED_SIDE, ALIGNED_SIDE]);
  const mirrored = await runFloat(recognition, modelInput(both, 1), [1, 3, ALIGNED_SIDE, ALIGNED_SIDE]);
  const [lengthA, lengthB] = [vectorLength(direct), vectorLength(mirrored)];
  const a = unitVector(direct, lengthA), b = unitVector(mirrored, lengthB);
  return {
    descriptor: unitVector(a.map((v, i) => v + b[i]!)),
    quality: Math.round(((lengthA + lengthB) / 2) * 1000) / 1000,
  };
}

/** One crop of the batch, NHWC 0..255, as the model's NCHW input scaled to about -1..1. */
function modelInput(batch: Float32Array, index: number): Float32Array {
  const out = new Float32Array(3 * PLANE);
  const base = index * PLANE * 3;
  for (let i = 0; i < PLANE; i++) {
    for (let c = 0; c < 3; c++) out[c * PLANE + i] = (batch[base + i * 3 + c]! - 127) / 128;
  }
  return out;
}
