import { gradeFaceDistance, type CheckReason, type CheckReport } from '@idv/domain';
import type { FaceAnalysis } from '../types.ts';
import { analyseFaces, type FaceFinding } from './analyse-face.ts';
import { faceDistance, faceSimilarity } from './distance.ts';
import { faceMatchScore } from './match-score.ts';
import { judgeImageMedium } from './medium/read.ts';
import type { StillMediumJudgement } from './medium/judge.ts';
import { SELFIE_IS_PORTRAIT_MAX_DISTANCE } from './medium/model.ts';

/**
 * Selfie against document portrait. Sizes are the face's height over the image's height (the
 * mesh outline, forehead to chin). On the generated documents (a card filling most of a
 * 1600 × 1200 photo, the whole photo printed as portrait) the portrait's face is about 8% of the
 * image height and 80 px tall in the 1024-px analysed image; a real ID portrait is a tighter
 * head shot, so larger. What limits the descriptor is pixels, so the pixel floor is the main rule.
 */
export const FACE_LIMITS = {
  /** The portrait must be at least this tall (relative) to be compared: under it, retake the document closer. */
  documentMinRelativeSize: 0.04,
  /** And at least this many pixels tall in the analysed image (longer side bounded to 1024 px). */
  documentMinPixels: 40,
  /** Measured: the fixtures' small_face photo is 0.11, the farthest portrait 0.14; a selfie at arm's length is 0.3 or more. */
  selfieMinRelativeSize: 0.12,
  /** Frontal: the selfie's head turned or tilted less than this (degrees). */
  selfieMaxYaw: 25,
  selfieMaxPitch: 25,
  /**
   * Face image quality (recognition-descriptor.ts) under which a selfie is retaken rather than
   * compared: chosen on half of lfw-dev's people (bench:checks, faces_lfw), where it turns away
   * about 3% of news photos and halves the false non-matches at FMR 1e-4.
   */
  selfieMinQuality: 2.8,
} as const;

export interface FaceMatchThresholds {
  face_match_max_distance: number;
  face_review_max_distance: number;
}

export interface FaceMatchInput {
  documentImage: Uint8Array;
  selfie: Uint8Array;
  flowThresholds: FaceMatchThresholds;
}

export interface FaceMatchResult {
  report: CheckReport;
  documentFace?: FaceFinding;
  selfieFace?: FaceFinding;
}

/** Reads both images, then judges them (`judgeFaceMatch`). */
export async function checkFaceMatch(input: FaceMatchInput): Promise<FaceMatchResult> {
  // A document photo keeps more pixels so that its small portrait stays describable.
  const documentFaces = await analyseFaces(input.documentImage, { maxSide: 1024 }).catch(() => null);
  const selfieFaces = await analyseFaces(input.selfie).catch(() => null);
  const medium = selfieFaces?.length === 1 ? await judgeImageMedium(input.selfie, selfieFaces[0]!).catch(() => null) : null;
  return judgeFaceMatch(documentFaces, selfieFaces, input.flowThresholds, medium);
}

/**
 * The decision, pure: `null` for an image that could not be decoded. Resubmission-type reasons
 * (the portrait or the selfie cannot be used) are `attention`; a mismatch over the review
 * threshold is `failed`; between the two thresholds, `attention` with faces_uncertain.
 *
 * Presentation attacks on the selfie (docs/liveness.md, "Screens and prints on a still"):
 *  - `selfieMedium`, the selfie's medium judged by medium/judge.ts: when it takes the selfie for
 *    a screen or a print, `presentation_attack_suspected` with status `attention` at least. Not
 *    `failed`: at the threshold chosen, about 3 honest selfies in 100 pass it, and a person
 *    should look before a case is refused (the flow's action per reason decides what follows);
 *  - the selfie's face nearer the portrait than two different photos of one person ever are
 *    (medium/model.ts, chosen on the training half): the document's own portrait photographed again,
 *    `selfie_is_document_portrait`, status `failed` (no honest selfie is that close).
 */
export function judgeFaceMatch<F extends FaceAnalysis>(
  documentFaces: F[] | null,
  selfieFaces: F[] | null,
  thresholds: FaceMatchThresholds,
  selfieMedium?: StillMediumJudgement | null,
): { report: CheckReport; documentFace?: F; selfieFace?: F } {
  const reasons: CheckReason[] = [];
  const measures: Record<string, number> = {
    document_faces: documentFaces?.length ?? 0,
    selfie_faces: selfieFaces?.length ?? 0,
  };
  // Largest face on the document is the portrait (a ghost image or a second small photo is smaller).
  const documentFace = documentFaces?.[0];
  if (!documentFace) reasons.push('document_face_not_found');
  else {
    measures.document_face_size = round(documentFace.relativeSize);
    measures.document_face_quality = documentFace.quality;
    if (documentFace.relativeSize < FACE_LIMITS.documentMinRelativeSize || documentFace.box.height < FACE_LIMITS.documentMinPixels) {
      reasons.push('document_face_too_small');
    }
  }

  const selfieFace = selfieFaces?.length === 1 ? selfieFaces[0] : undefined;
  if (!selfieFaces || selfieFaces.length === 0) reasons.push('selfie_face_not_found');
  else if (selfieFaces.length > 1) reasons.push('selfie_several_faces');
  if (selfieFace) {
    measures.selfie_face_size = round(selfieFace.relativeSize);
    measures.selfie_yaw = selfieFace.yaw;
    measures.selfie_pitch = selfieFace.pitch;
    if (selfieFace.relativeSize < FACE_LIMITS.selfieMinRelativeSize) reasons.push('selfie_face_too_small');
    if (Math.abs(selfieFace.yaw) > FACE_LIMITS.selfieMaxYaw || Math.abs(selfieFace.pitch) > FACE_LIMITS.selfieMaxPitch) reasons.push('selfie_not_frontal');
    measures.selfie_quality = selfieFace.quality;
    if (selfieFace.quality < FACE_LIMITS.selfieMinQuality && !reasons.length) reasons.push('selfie_face_unclear');
  }

  // The distance is measured whenever both faces exist, even if a capture reason is raised: an
  // operator reviewing the case still sees how close they are. The flow's thresholds judge the
  // score, the distance corrected for both faces' quality (match-score.ts); it is stored so that a
  // dry run regrades what was graded.
  let status: CheckReport['status'] = reasons.length > 0 ? 'attention' : 'ok';
  if (documentFace && selfieFace) {
    const distance = faceDistance(documentFace.descriptor, selfieFace.descriptor);
    const score = faceMatchScore(distance, documentFace.quality, selfieFace.quality);
    measures.distance = round(distance);
    measures.similarity = faceSimilarity(distance);
    measures.match_score = round(score);
    if (reasons.length === 0) {
      const grade = gradeFaceDistance(score, thresholds);
      status = grade.status;
      if (grade.reason) reasons.push(grade.reason);
    }
    if (distance <= SELFIE_IS_PORTRAIT_MAX_DISTANCE) {
      reasons.push('selfie_is_document_portrait');
      status = 'failed';
    }
  }
  if (selfieFace && selfieMedium) {
    Object.assign(measures, selfieMedium.measures);
    if (selfieMedium.attack) {
      reasons.push('presentation_attack_suspected');
      if (status === 'ok') status = 'attention';
    }
  }
  return { report: { type: 'face_match', status, reasons, measures }, documentFace, selfieFace };
}

const round = (v: number) => Math.round(v * 1000) / 1000;
