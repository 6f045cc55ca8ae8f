import type { FaceAnalysis, FaceBox } from '../types.ts';
import { decodeForFaces, type RgbImage } from './decode-image.ts';
import { pickLandmarks, type Landmark } from './landmarks.ts';
import { refineMesh } from './mesh-precision.ts';
import { loadFaceModels, type FaceModels } from './models.ts';
import { describeFace } from './recognition-descriptor.ts';

/**
 * Faces in one image: human finds them (detector + 468-point mesh, which gives the head pose, a
 * tight face outline and the five points of the alignment, taken to a fraction of a pixel again:
 * mesh-precision.ts), then the recognition model describes each one (recognition-descriptor.ts):
 * a unit vector compared by Euclidean distance.
 */

/** A face as analysed, with the passive liveness scores (reported as measures only, never as reasons). */
export interface FaceFinding extends FaceAnalysis {
  /** human's antispoof model: 0..1, higher looks more like a real face than a screen or print. */
  antispoof: number;
  /** human's liveness model: 0..1, higher looks more live. */
  liveness: number;
  /** The size of the image `box` is measured in (decoded, oriented, scaled to the analysis size). */
  frame: { width: number; height: number };
  /**
   * Chosen points of the face mesh (landmarks.ts: nose, eye corners, mouth, chin, cheekbones and
   * outline, always the same points in the same order), in the pixels of `frame`. The motion checks
   * compare them across a sequence of frames (planarity.ts: a print or a screen moves as a plane).
   */
  landmarks: Landmark[];
}

/**
 * Which detections count as faces. human's overall score mixes its detector's box score with its
 * mesh's confidence. Measured on the fixtures: real faces score 1.00 except a strongly turned
 * head (0.55, box 0.74) and a few at 0.82–0.99; the false faces found on a baboon score
 * 0.62 / 0.44 with box scores under 0.5. So a face is kept when it is sure (score ≥ 0.9), or
 * plausible (score ≥ 0.5) and its box is too (box score ≥ 0.5). A real face with a low box score
 * but a confident mesh (box 0.36, score 1.00 in a group photo) is kept by the first rule.
 */
const SURE_FACE_SCORE = 0.9;
const MIN_FACE_SCORE = 0.5;
const MIN_BOX_SCORE = 0.5;
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

async function analyseRgb(models: FaceModels, rgb: RgbImage): Promise<FaceFinding[]> {
  const { human, humanTf } = models;
  const humanInput = humanTf.tensor3d(rgb.data, [rgb.height, rgb.width, 3], 'int32');
  let result;
  try {
    result = await human.detect(humanInput);
  } finally {
    humanInput.dispose();
  }
  const faces = (result.face as HumanFace[]).filter(isFace);
  const findings: FaceFinding[] = [];
  for (const face of faces) {
    const outline = meshBox(face.mesh, rgb);
    if (outline.width < 8 || outline.height < 8) continue;
    const { descriptor, quality } = await describeFace(models.recognition, rgb, refineMesh(face.mesh, models.meshOutputs));
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
      quality,
      score: round(face.score, 3),
      antispoof: round(face.real ?? 0, 3),
      liveness: round(face.live ?? 0, 3),
      frame: { width: rgb.width, height: rgb.height },
      landmarks: pickLandmarks(face.mesh),
    });
  }
  return findings.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height);
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

/** The mesh's extent: forehead to chin, ear to ear. */
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
