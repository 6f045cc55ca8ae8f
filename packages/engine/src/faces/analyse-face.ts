import type { FaceAnalysis, FaceBox } from '../types.ts';
import { decodeForFaces, type RgbImage } from './decode-image.ts';
import { loadFaceModels, type FaceModels } from './models.ts';

/**
 * Faces in one image: human finds them (detector + 468-point mesh, which gives the head pose and
 * a tight face outline), face-api describes each one (68 landmarks to align the face, then its
 * 128-d descriptor). face-api's own detector is not used: it misses faces that fill the frame
 * (tight crops) and costs five times human's detector here.
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
  const { human, humanTf, faceapi, faceTf } = models;
  const shape = [rgb.height, rgb.width, 3];
  const humanInput = humanTf.tensor3d(rgb.data, shape, 'int32');
  let result;
  try {
    result = await human.detect(humanInput);
  } finally {
    humanInput.dispose();
  }
  const faces = (result.face as HumanFace[]).filter(isFace);
  if (faces.length === 0) return [];

  const faceInput = faceTf.tensor3d(rgb.data, shape, 'float32');
  try {
    const findings: FaceFinding[] = [];
    for (const face of faces) {
      const outline = meshBox(face.mesh, rgb);
      const descriptor = await describe(faceapi, faceInput, outline);
      if (!descriptor) continue;
      const angle = face.rotation?.angle ?? { yaw: 0, pitch: 0, roll: 0 };
      findings.push({
        box: outline,
        relativeSize: outline.height / rgb.height,
        // human's yaw is negative when the person turns to their own left (unmirrored image); the
        // engine's contract is the opposite. Its pitch is positive when the head tilts down.
        yaw: round(-angle.yaw * RAD),
        pitch: round(-angle.pitch * RAD),
        roll: round(angle.roll * RAD),
        descriptor,
        score: round(face.score, 3),
        antispoof: round(face.real ?? 0, 3),
        liveness: round(face.live ?? 0, 3),
      });
    }
    return findings.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
  } finally {
    faceInput.dispose();
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

/** The mesh box is grown by this share before the first landmark pass (the 68-point net wants some margin). */
const LANDMARK_MARGIN = 0.2;

/**
 * face-api's alignment, refined: 68 landmarks on the mesh box (grown a little), the aligned box
 * they give, landmarks again on that box, its aligned box, then the descriptor of that crop and
 * of its mirror image, averaged. Measured on the fixtures' pairs (bench/checks/faces.ts), false
 * non-match at 0.1% false match: one landmark pass 10.8%, two passes 5.8%, two passes with the
 * mirror average 3.6% (without alignment 44%). The average also makes the descriptor blind to a
 * left-right flip, so a mirrored selfie compares like an unmirrored one.
 */
async function describe(faceapi: FaceModels['faceapi'], input: { shape: number[] }, box: FaceBox): Promise<number[] | null> {
  const [height, width] = input.shape as [number, number];
  const grown = new faceapi.Rect(
    box.x - (box.width * LANDMARK_MARGIN) / 2,
    box.y - (box.height * LANDMARK_MARGIN) / 2,
    box.width * (1 + LANDMARK_MARGIN),
    box.height * (1 + LANDMARK_MARGIN),
  );
  const first = await alignedBox(faceapi, input, grown.clipAtImageBorders(width, height));
  if (!first) return null;
  const second = await alignedBox(faceapi, input, first.clipAtImageBorders(width, height));
  if (!second) return null;
  const [face] = await faceapi.extractFaceTensors(input, [second]);
  if (!face) return null;
  try {
    const descriptor = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(face)) as Float32Array;
    const mirror = faceapi.tf.reverse(face, 1);
    const mirrored = (await faceapi.nets.faceRecognitionNet.computeFaceDescriptor(mirror)) as Float32Array;
    mirror.dispose();
    return Array.from(descriptor, (v, i) => round((v + mirrored[i]!) / 2, 6));
  } finally {
    face.dispose();
  }
}

/** Landmarks on one box (they come relative to the crop), shifted back, and the aligned box they give. */
async function alignedBox(faceapi: FaceModels['faceapi'], input: unknown, rect: { x: number; y: number; width: number; height: number }) {
  if (rect.width < 8 || rect.height < 8) return null;
  const [crop] = await faceapi.extractFaceTensors(input, [rect]);
  if (!crop) return null;
  try {
    const landmarks = await faceapi.nets.faceLandmark68Net.detectLandmarks(crop);
    return landmarks.shiftBy(rect.x, rect.y).align();
  } finally {
    crop.dispose();
  }
}

function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}
