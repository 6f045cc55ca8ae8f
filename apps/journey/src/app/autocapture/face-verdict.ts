/**
 * When a face photo takes itself. The selfie: one face, in the oval, large enough, frontal, in
 * the same place over a few looks. A liveness challenge: the same, but the head turned (or
 * tilted) the asked way far enough from the selfie's own pose. The device only chooses the
 * moment; the service's checks judge the photos (docs/liveness.md). Pure: faces in, verdict out.
 */
import type { DetectedFace } from './face-model.ts';
import { facePose, type FacePose } from './face-pose.ts';
import type { Region } from '../quality.ts';

export type FaceHint = 'dark' | 'no_face' | 'several' | 'centre' | 'far' | 'close' | 'straight' | 'turn' | 'steady' | 'ready';
export type FaceTask = 'selfie' | 'turn_left' | 'turn_right' | 'look_up' | 'look_down';

const FACE_THRESHOLDS = {
  dark: 55,
  /** The face box's height as a share of the oval's, within (the check wants at least 12% of the photo). */
  minHeight: 0.38,
  maxHeight: 1.05,
  /** The face's centre from the oval's centre, at most, as a share of the oval's width and height. */
  maxOffset: 0.22,
  /** The selfie: yaw within, in degrees (the check refuses beyond 25°). */
  frontalYaw: 12,
  /** A turn: the yaw moved from the selfie's by at least this, the asked way (the check wants 15° of its own measure). */
  turnYaw: 15,
  /** Looking up or down: the nose's drop moved from the selfie's by at least this (eye distances). */
  tiltDrop: 0.12,
  /** Largest move of the face's centre between two looks, as a share of the oval's height. */
  maxShift: 0.05,
  /** Consecutive good, steady looks before the shutter fires. */
  steadyLooks: 3,
  /** Fewer for a challenge: a head held turned does not stay still for long. */
  steadyLooksChallenge: 2,
};

export interface FaceLook {
  faces: DetectedFace[];
  oval: Region;
  frameAspect: number;
  /** Mean luminance in the oval, 0..255. */
  mean: number;
}

/** The selfie's pose, measured when it was taken: challenges are judged against it, as the check does. */
export type Baseline = Pick<FacePose, 'yaw' | 'drop'>;

export interface FaceJudgement {
  problem: Exclude<FaceHint, 'steady' | 'ready'> | null;
  face: DetectedFace | null;
  pose: FacePose | null;
}

export function judgeFace(look: FaceLook, task: FaceTask, baseline: Baseline | null, t = FACE_THRESHOLDS): FaceJudgement {
  const none = (problem: FaceJudgement['problem']): FaceJudgement => ({ problem, face: null, pose: null });
  if (look.faces.length === 0) return none(look.mean < t.dark ? 'dark' : 'no_face');
  if (look.faces.length > 1) return none('several');
  const face = look.faces[0];
  const pose = facePose(face.landmarks, look.frameAspect);
  const problem = (p: FaceJudgement['problem']): FaceJudgement => ({ problem: p, face, pose });
  const { oval } = look;
  const cx = face.box.x + face.box.w / 2;
  const cy = face.box.y + face.box.h / 2;
  const challenge = task !== 'selfie';
  // A turned head moves in the oval: a challenge is allowed half as much again.
  const offset = t.maxOffset * (challenge ? 1.5 : 1);
  if (Math.abs(cx - (oval.x + oval.w / 2)) > offset * oval.w || Math.abs(cy - (oval.y + oval.h / 2)) > offset * oval.h) return problem('centre');
  const height = face.box.h / oval.h;
  if (height < t.minHeight) return problem('far');
  if (height > t.maxHeight) return problem('close');
  if (look.mean < t.dark) return problem('dark');
  const base = baseline ?? { yaw: 0, drop: 0 };
  switch (task) {
    case 'selfie':
      return problem(Math.abs(pose.yaw) > t.frontalYaw ? 'straight' : null);
    case 'turn_left':
      return problem(pose.yaw - base.yaw >= t.turnYaw ? null : 'turn');
    case 'turn_right':
      return problem(base.yaw - pose.yaw >= t.turnYaw ? null : 'turn');
    case 'look_up':
      return problem(base.drop - pose.drop >= t.tiltDrop ? null : 'turn');
    case 'look_down':
      return problem(pose.drop - base.drop >= t.tiltDrop ? null : 'turn');
  }
}

/** Counts consecutive good looks with the face in the same place; says when the shutter fires. */
export class FaceSteadiness {
  private streak = 0;
  private last: DetectedFace | null = null;

  constructor(
    private readonly task: FaceTask,
    private readonly t = FACE_THRESHOLDS,
  ) {}

  look(j: FaceJudgement, oval: Region): { hint: FaceHint; fire: boolean } {
    if (j.problem || !j.face) {
      this.streak = 0;
      this.last = null;
      return { hint: j.problem ?? 'no_face', fire: false };
    }
    const f = j.face;
    const moved = this.last ? Math.hypot(f.box.x + f.box.w / 2 - (this.last.box.x + this.last.box.w / 2), f.box.y + f.box.h / 2 - (this.last.box.y + this.last.box.h / 2)) / oval.h : Infinity;
    this.streak = moved <= this.t.maxShift ? this.streak + 1 : 1;
    this.last = f;
    const needed = this.task === 'selfie' ? this.t.steadyLooks : this.t.steadyLooksChallenge;
    if (this.streak >= needed) return { hint: 'ready', fire: true };
    return { hint: 'steady', fire: false };
  }
}
