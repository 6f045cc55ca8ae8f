import type { FaceAnalysis, FaceBox } from '../types.ts';
import { decodeForFaces, type RgbImage } from './decode-image.ts';
import { describeWithFaceApi } from './face-api-descriptor.ts';
import { describeWithFaceres } from './faceres-descriptor.ts';
import { fuseDescriptors } from './fused-descriptor.ts';
import { loadFaceModels, type FaceModels } from './models.ts';

/**
 * Faces in one image: human finds them (detector + 468-point mesh, which gives the head pose and
 * a tight face outline), then two models describe each one: face-api (68 landmarks to align the
 * face, then its 128-d descriptor) and human's faceres (1024-d, on human's upright crop), fused
 * into one descriptor (fused-descriptor.ts) compared by Euclidean distance. face-api's own
 * detector is not used: it misses faces that fill the frame (tight crops) and costs five times
 * human's detector here.
 */

/** A face as analysed, with the passive liveness scores (reported as measures only, never as reasons). */
export interface FaceFinding extends FaceAnalysis {
  /** human's antispoof model: 0..1, higher looks more like a real face than a screen or print. */
  antispoof: number;
  /** human's liveness model: 0..1, higher looks more live. */
  liveness: number;
}

/**
 * Which detections count as faces. human's overall score mixes its detector's box score with its
 * mesh's confidence. Measured on the fixtures: real faces score 1.00 except a strongly turned
 * head (0.55, box 0.74) and a few at 0.82–0.99; the false faces found on a baboon score
 * 0.62 / 0.44 with box scores under 0.5. So a face is kept when it is sure (score ≥ 0.9), or
 * plausible (score ≥ 0.5) and its box is too (box score ≥ 0.5). A real face with a low box score
 * but a confident mesh (box 0.36, score 1.00 in a group photo) is kept by the first rule.
 */
export const SURE_FACE_SCORE = 0.9;
export const MIN_FACE_SCORE = 0.5;
export const MIN_BOX_SCORE = 0.5;
const isFace = (f: HumanFace) =>
  f.mesh?.length > 0 && (f.score >= SURE_FACE_SCORE || (f.score >= MIN_FACE_SCORE && f.boxScore >= MIN_BOX_SCORE));

const RAD = 180 / Math.PI;

export interface AnalyseOptions {
  /** Longest side given to the models (default 640). A document photo may use more to keep its portrait large. */
  maxSide?: number;
}

/** Every face in the image, largest first. Throws if the bytes are not an image. */
export async function analyseFaces(image: Uint8Array, options: AnalyseOptions = {}): Promise<FaceFinding[]> {
  const rgb = await decodeForFaces(image, options.maxSide);
  const models = await loadFaceModels();
  return analyseRgb(models, rgb);
}

export async function analyseRgb(models: FaceModels, rgb: RgbImage): Promise<FaceFinding[]> {
  const { human, humanTf, faceTf } = models;
  const shape = [rgb.height, rgb.width, 3];
  const humanInput = humanTf.tensor3d(rgb.data, shape, 'int32');
  let result;
  try {
    result = await human.detect(humanInput);
  } finally {
    humanInput.dispose();
  }
  const detected = result.face as HumanFace[];
  // Every detection carries its crop (kept or not): all are freed at the end.
  const freeCrops = () => humanTf.dispose(detected.map((f) => f.tensor).filter(Boolean));
  const faces = detected.filter(isFace);
  if (faces.length === 0) {
    freeCrops();
    return [];
  }
  const faceInput = faceTf.tensor3d(rgb.data, shape, 'float32');
  try {
    const findings: FaceFinding[] = [];
    for (const face of faces) {
      const outline = meshBox(face.mesh, rgb);
      const faceApi = await describeWithFaceApi(models, faceInput, outline);
      if (!faceApi || !face.tensor) continue;
      const faceres = await describeWithFaceres(models, face.tensor);
      const angle = face.rotation?.angle ?? { yaw: 0, pitch: 0, roll: 0 };
      findings.push({
        box: outline,
        relativeSize: outline.height / rgb.height,
        // human's yaw is negative when the person turns to their own left (unmirrored image); the
        // engine's contract is the opposite. Its pitch is positive when the head tilts down.
        yaw: round(-angle.yaw * RAD),
        pitch: round(-angle.pitch * RAD),
        roll: round(angle.roll * RAD),
        descriptor: fuseDescriptors(faceApi, faceres),
        score: round(face.score, 3),
        antispoof: round(face.real ?? 0, 3),
        liveness: round(face.live ?? 0, 3),
      });
    }
    return findings.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  } finally {
    faceInput.dispose();
    freeCrops();
  }
}

interface HumanFace {
  score: number;
  boxScore: number;
  faceScore: number;
  mesh: Array<[number, number, number?]>;
  rotation?: { angle: { yaw: number; pitch: number; roll: number } } | null;
  real?: number;
  live?: number;
  /** The upright face crop (HUMAN_CONFIG's `detector.return`), a tensor of human's tfjs. */
  tensor?: unknown;
}

/** The mesh's extent: forehead to chin, ear to ear, close to what face-api's landmark net expects. */
function meshBox(mesh: HumanFace['mesh'], rgb: RgbImage): FaceBox {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const [x, y] of mesh) {
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
  }
  x0 = Math.max(0, x0);
  y0 = Math.max(0, y0);
  x1 = Math.min(rgb.width, x1);
  y1 = Math.min(rgb.height, y1);
  return { x: Math.round(x0), y: Math.round(y0), width: Math.round(x1 - x0), height: Math.round(y1 - y0) };
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
