import type { CheckReason, CheckReport, LivenessChallenge } from '@idv/domain';
import type { FaceAnalysis } from '../types.ts';
import { analyseFaces, type FaceFinding } from './analyse-face.ts';
import { faceDistance } from './distance.ts';

/**
 * Active liveness: each challenge image must show one face, of the selfie's person, with the
 * head moved the way asked, judged against the selfie's own pose (a person whose neutral pose is
 * a little turned is not penalised, and a turn must be a change, not a posture).
 *
 * Mirroring: the hosted journey shows the front camera mirrored (CSS on the preview) but saves
 * the camera's own frame, unmirrored (apps/journey/src/app/camera.ts draws the video element to
 * a canvas, which ignores the CSS transform). `mirrored: true` is for a capture client that saves
 * the mirrored preview: a left/right flip negates yaw, so yaw is negated back before judging.
 * Pitch and the turn's amount do not change with a flip.
 *
 * Passive signals (human's antispoof and liveness models) are reported as measures only: they
 * are not proved on attack images here, so they never raise a reason.
 */
export const LIVENESS_LIMITS = {
  /** A turn must move the yaw at least this far (degrees) from the selfie's, in the asked direction. */
  minYawDelta: 15,
  /** Looking up or down must move the pitch at least this far (degrees). Pitch from the mesh is noisier. */
  minPitchDelta: 10,
  /**
   * A challenge face farther than this from the selfie's is another person. This reason refuses,
   * and a turned head is farther from its frontal selfie than two frontal photos are, so the limit
   * is loose: the fixtures' turned heads are up to 1.27 from the same person's other photos
   * (bench:checks, faces, head_pose), and about 7 in 100 different-person pairs of faces from the
   * wild are under it (faces_lfw). The flow's face match, not this, tells people apart.
   */
  samePersonMaxDistance: 1.3,
} as const;

export interface LivenessInput {
  challenges: readonly LivenessChallenge[];
  selfieFace: FaceAnalysis;
  challengeImages: Partial<Record<LivenessChallenge, Uint8Array>>;
  /** The images are mirror images of the camera's view (see the header). */
  mirrored: boolean;
  limits?: Partial<typeof LIVENESS_LIMITS>;
}

/** Analyses each challenge image, then judges (`judgeLiveness`). */
export async function checkLiveness(input: LivenessInput): Promise<CheckReport> {
  const found: Partial<Record<LivenessChallenge, FaceFinding[] | null>> = {};
  for (const challenge of input.challenges) {
    const bytes = input.challengeImages[challenge];
    if (bytes) found[challenge] = await analyseFaces(bytes).catch(() => null);
  }
  return judgeLiveness({ ...input, found });
}

export interface ChallengeFaces {
  challenges: readonly LivenessChallenge[];
  selfieFace: FaceAnalysis;
  /** Faces found on each challenge image; absent: no image; null: not decodable. */
  found: Partial<Record<LivenessChallenge, FaceAnalysis[] | null>>;
  mirrored: boolean;
  limits?: Partial<typeof LIVENESS_LIMITS>;
}

/** The judgement, pure. */
export function judgeLiveness(input: ChallengeFaces): CheckReport {
  const limits = { ...LIVENESS_LIMITS, ...input.limits };
  const sign = input.mirrored ? -1 : 1;
  const selfieYaw = sign * input.selfieFace.yaw;
  const reasons = new Set<CheckReason>();
  const measures: Record<string, number> = { challenges: input.challenges.length, mirrored: input.mirrored ? 1 : 0 };
  const passive: FaceAnalysis[] = [input.selfieFace];
  let performed = 0;

  for (const challenge of input.challenges) {
    const faces = input.found[challenge];
    if (faces === undefined) {
      reasons.add('challenge_missing');
      continue;
    }
    if (!faces || faces.length !== 1) {
      reasons.add('challenge_face_not_found');
      continue;
    }
    const face = faces[0]!;
    passive.push(face);
    const distance = faceDistance(face.descriptor, input.selfieFace.descriptor);
    const yawDelta = sign * face.yaw - selfieYaw;
    const pitchDelta = face.pitch - input.selfieFace.pitch;
    measures[`${challenge}_distance`] = round(distance, 3);
    measures[`${challenge}_yaw_delta`] = round(yawDelta, 1);
    measures[`${challenge}_pitch_delta`] = round(pitchDelta, 1);
    if (distance > limits.samePersonMaxDistance) reasons.add('challenge_person_differs');
    if (challengeMet(challenge, yawDelta, pitchDelta, limits)) performed++;
    else reasons.add('challenge_not_performed');
  }
  measures.challenges_performed = performed;

  const scores = (key: 'antispoof' | 'liveness') =>
    passive.map((f) => (f as Partial<FaceFinding>)[key]).filter((v): v is number => typeof v === 'number');
  const antispoof = scores('antispoof');
  const live = scores('liveness');
  if (antispoof.length) measures.passive_antispoof_min = Math.min(...antispoof);
  if (live.length) measures.passive_liveness_min = Math.min(...live);

  // Another person is a refusal; a missing or unperformed movement is for a retake or a reviewer.
  const status: CheckReport['status'] = reasons.has('challenge_person_differs') ? 'failed' : reasons.size > 0 ? 'attention' : 'ok';
  return { type: 'liveness', status, reasons: [...reasons], measures };
}

/**
 * Whether a head movement was made, from the change against the selfie. yaw grows as the person
 * turns to their own left, pitch as they look up (engine contract, unmirrored).
 */
export function challengeMet(challenge: LivenessChallenge, yawDelta: number, pitchDelta: number, limits: Pick<typeof LIVENESS_LIMITS, 'minYawDelta' | 'minPitchDelta'> = LIVENESS_LIMITS): boolean {
  switch (challenge) {
    case 'turn_left':
      return yawDelta >= limits.minYawDelta;
    case 'turn_right':
      return yawDelta <= -limits.minYawDelta;
    case 'look_up':
      return pitchDelta >= limits.minPitchDelta;
    case 'look_down':
      return pitchDelta <= -limits.minPitchDelta;
  }
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
