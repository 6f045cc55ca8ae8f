import { virtualCameraLabel, type CameraReport, type CheckReason, type CheckReport, type LivenessChallenge } from '@idv/domain';
import type { FaceAnalysis } from '../types.ts';
import type { FaceFinding } from './analyse-face.ts';
import { faceDistance } from './distance.ts';
import { LIVENESS_LIMITS, challengeMet } from './liveness.ts';
import { judgePlanarity, type PlanarityJudgement } from './planarity.ts';
import { judgeSequenceNetwork } from './sequence-network.ts';
import { median } from '../middle.ts';

/**
 * The live sequence's judgement (docs/liveness.md#the-live-sequence), pure: the frames are read
 * first (sequence-read.ts: a sample of them through the face models, every one as a small grey
 * thumbnail), then judged here on these questions:
 *
 * - timing: the capture fits its challenge (arrived before expiry, and lasts no longer than the
 *   time between issue and arrival: a recording made before the challenge existed cannot);
 * - continuity: one capture of one face (timestamps increasing, cadence, no long gap, no cut
 *   between two frames, one face on the frames read, its box moving smoothly);
 * - the challenge: the head performs exactly the asked movements in the asked order, judged
 *   against the selfie's pose (the first frames' without a selfie face);
 * - flat or round: the landmarks' motion across the frames read is not that of one plane (a print
 *   or a screen tilted by hand) but of a head turning (planarity.ts);
 * - screen or print: a trained anti-spoofing network's reading of the frames (sequence-network.ts);
 * - the person: the frames' faces are the selfie's person and one another's;
 * - the camera: what the browser said about it, judged into injection signals (never one alone).
 */

const SEQUENCE_JUDGE_LIMITS = {
  /** Cadence under this over the capture is not a live capture at the rate asked. */
  minFrameRate: 8,
  /** Two frames further apart than this (ms) break the capture. */
  maxGapMs: 400,
  /**
   * Mean absolute difference of two consecutive frames' 16×16 grey thumbnails (0..255) above
   * which the picture changed at once: a cut or a splice, not a head moving at 8+ frames a second
   * (a head turn moves a few levels a frame; the fixtures' real turns stay under 20).
   */
  maxFrameChange: 45,
  /** Share of the frames read that must show exactly one face. */
  minSingleFaceShare: 0.8,
  /** The face's centre may move this many face widths between two frames read, per second. */
  maxBoxSpeed: 3,
  /** Capture longer than the time from issue to arrival by more than this (ms, clock granularity) was made before. */
  timingToleranceMs: 1_000,
  /** Regular intervals with less spread than this (ms) come from a program, not a camera. */
  minIntervalJitterMs: 0.3,
  /** Frames and settings whose aspect ratios differ by more than this share do not come from that camera. */
  maxAspectDifference: 0.04,
  /** Signals that must agree before the camera is suspected (a single browser signal never decides). */
  injectionSignals: 2,
} as const;

/** One frame as read: its capture time, the faces found (undefined: not read; null: undecodable), its change from the previous frame. */
export interface SequenceFrameReading {
  /** Capture time, ms from the first frame. */
  t: number;
  /** The faces of a frame read by the face models, largest first (kept whole: later judges, such as planarity, read the landmarks). */
  faces?: FaceFinding[] | null;
  /** Mean absolute difference with the previous frame's thumbnail (0..255); null on the first frame or an undecodable one. */
  change: number | null;
  /** The trained anti-spoofing network's live log-odds of the largest face, on the frames it read (sequence-network.ts). */
  networkLogit?: number;
  width: number;
  height: number;
}

export interface SequenceJudgeInput {
  /** The movements drawn for the challenge, in order. */
  movements: readonly LivenessChallenge[];
  issuedAt: Date;
  expiresAt: Date;
  /** When the frames arrived. */
  answeredAt: Date;
  frames: readonly SequenceFrameReading[];
  camera: CameraReport;
  /** The selfie's face, when there is one usable. */
  selfieFace: FaceAnalysis | null;
  mirrored: boolean;
  limits?: Partial<typeof SEQUENCE_JUDGE_LIMITS & typeof LIVENESS_LIMITS>;
}

export function judgeSequence(input: SequenceJudgeInput): CheckReport {
  const limits = { ...LIVENESS_LIMITS, ...SEQUENCE_JUDGE_LIMITS, ...input.limits };
  const reasons = new Set<CheckReason>();
  const measures: Record<string, number> = { challenges: input.movements.length, sequence_frames: input.frames.length, mirrored: input.mirrored ? 1 : 0 };
  const frames = input.frames;
  const times = frames.map((f) => f.t);

  // Timing.
  const span = frames.length > 1 ? times[times.length - 1]! - times[0]! : 0;
  const elapsed = input.answeredAt.getTime() - input.issuedAt.getTime();
  measures.sequence_duration_ms = Math.round(span);
  measures.sequence_issue_to_upload_s = round(elapsed / 1000, 1);
  if (input.answeredAt > input.expiresAt || span > elapsed + limits.timingToleranceMs) reasons.add('challenge_expired');

  // Continuity.
  const intervals = times.slice(1).map((t, i) => t - times[i]!);
  const increasing = intervals.every((d) => d > 0);
  const fps = span > 0 ? ((frames.length - 1) * 1000) / span : 0;
  const maxGap = intervals.length ? Math.max(...intervals) : 0;
  const changes = frames.map((f) => f.change).filter((c): c is number => c !== null);
  const maxChange = changes.length ? Math.max(...changes) : 0;
  const read = frames.filter((f) => f.faces !== undefined);
  const single = read.filter((f) => f.faces?.length === 1);
  const singleShare = read.length ? single.length / read.length : 0;
  const boxSpeed = maxBoxSpeed(single);
  measures.sequence_fps = round(fps, 1);
  measures.sequence_max_gap_ms = Math.round(maxGap);
  measures.sequence_max_frame_change = round(maxChange, 1);
  measures.sequence_frames_read = read.length;
  measures.sequence_single_face_share = round(singleShare, 2);
  measures.sequence_max_box_speed = round(boxSpeed, 2);
  if (
    !increasing ||
    fps < limits.minFrameRate ||
    maxGap > limits.maxGapMs ||
    maxChange > limits.maxFrameChange ||
    singleShare < limits.minSingleFaceShare ||
    boxSpeed > limits.maxBoxSpeed
  ) {
    reasons.add('challenge_not_continuous');
  }

  // The challenge: poses against the selfie's (as the stills are judged: a person whose neutral
  // pose is a little turned is not penalised), or the first frames read when there is no selfie
  // face; collapsed into the movements made. Not the first frames when the selfie is there: a
  // capture that starts already turned would move the zero and hide the first movement.
  const sign = input.mirrored ? -1 : 1;
  const faces = single.map((f) => ({ t: f.t, face: f.faces![0]! }));
  const base = input.selfieFace ? [{ face: input.selfieFace }] : faces.slice(0, 3);
  const baseYaw = median(base.map((f) => sign * f.face.yaw));
  const basePitch = median(base.map((f) => f.face.pitch));
  const made: LivenessChallenge[] = [];
  for (const { face } of faces) {
    const yawDelta = sign * face.yaw - baseYaw;
    const pitchDelta = face.pitch - basePitch;
    const now = input.movements.find((m) => challengeMet(m, yawDelta, pitchDelta, limits)) ?? (['turn_left', 'turn_right', 'look_up', 'look_down'] as const).find((m) => challengeMet(m, yawDelta, pitchDelta, limits));
    if (now && made[made.length - 1] !== now) made.push(now);
  }
  const yaws = faces.map((f) => sign * f.face.yaw - baseYaw);
  const pitches = faces.map((f) => f.face.pitch - basePitch);
  if (yaws.length) {
    measures.sequence_yaw_max = round(Math.max(...yaws), 1);
    measures.sequence_yaw_min = round(Math.min(...yaws), 1);
    measures.sequence_pitch_max = round(Math.max(...pitches), 1);
    measures.sequence_pitch_min = round(Math.min(...pitches), 1);
  }
  const inOrder = made.length === input.movements.length && made.every((m, i) => m === input.movements[i]);
  measures.challenges_performed = inOrder ? input.movements.length : countInOrder(made, input.movements);
  measures.sequence_movements_made = made.length;
  if (!inOrder) reasons.add('challenge_not_performed');

  // Flat or round: a print or a screen moved by hand keeps its landmarks on one plane.
  const planarity = planarityOf(faces.map((f) => f.face));
  if (planarity) {
    measures.planarity_judged_frames = planarity.measures.judgedFrames;
    if (planarity.measures.residualMedian !== null) measures.planarity_residual = round(planarity.measures.residualMedian, 3);
    if (planarity.flat) reasons.add('challenge_not_live');
  }

  // Screens and prints: the trained network over the frames it read, judged by their median.
  const network = judgeSequenceNetwork(frames.map((f) => f.networkLogit).filter((v): v is number => v !== undefined));
  measures.sequence_network_frames = network.frames;
  measures.sequence_network_frames_under = network.under;
  if (network.median !== null) measures.sequence_network_live_median = round(network.median, 2);
  if (network.attack) reasons.add('challenge_screen_or_print');

  // The person: every face read against the selfie, and against the first face of the capture.
  if (faces.length) {
    const first = faces[0]!.face.descriptor;
    measures.sequence_frames_distance_max = round(Math.max(...faces.map((f) => faceDistance(f.face.descriptor, first))), 3);
    if (input.selfieFace) {
      const selfie = input.selfieFace.descriptor;
      measures.sequence_selfie_distance_max = round(Math.max(...faces.map((f) => faceDistance(f.face.descriptor, selfie))), 3);
      if (measures.sequence_selfie_distance_max > limits.samePersonMaxDistance) reasons.add('challenge_person_differs');
    }
    if (measures.sequence_frames_distance_max > limits.samePersonMaxDistance) reasons.add('challenge_person_differs');
    const antispoof = faces.map((f) => f.face.antispoof);
    const live = faces.map((f) => f.face.liveness);
    measures.passive_antispoof_min = Math.min(...antispoof);
    measures.passive_liveness_min = Math.min(...live);
  }

  // The camera: signals, suspected only when several agree.
  const camera = cameraSignals(input.camera, frames, intervals, limits);
  Object.assign(measures, camera.measures);
  if (camera.count >= limits.injectionSignals) reasons.add('camera_injection_suspected');

  // Another person or a suspected camera refuses; the rest asks for a retake or a reviewer.
  const refused = reasons.has('challenge_person_differs') || reasons.has('camera_injection_suspected');
  const status: CheckReport['status'] = refused ? 'failed' : reasons.size > 0 ? 'attention' : 'ok';
  return { type: 'liveness', status, reasons: [...reasons], measures };
}

/** What the browser said about its camera and how the frames came, as signals of an injected stream. */
export function cameraSignals(
  camera: CameraReport,
  frames: readonly Pick<SequenceFrameReading, 'width' | 'height'>[],
  intervals: readonly number[],
  limits: Pick<typeof SEQUENCE_JUDGE_LIMITS, 'minIntervalJitterMs' | 'maxAspectDifference'> = SEQUENCE_JUDGE_LIMITS,
): { count: number; measures: Record<string, number> } {
  const virtual = virtualCameraLabel(camera.label) ? 1 : 0;
  // A stream the page got from a camera always has a label once permission is granted; none says it came another way.
  const noLabel = camera.label === undefined || camera.label.trim() === '' ? 1 : 0;
  const jitter = intervals.length > 2 ? standardDeviation(intervals) : null;
  const regular = jitter !== null && jitter < limits.minIntervalJitterMs ? 1 : 0;
  const frame = frames.find((f) => f.width > 0 && f.height > 0);
  let aspectMismatch = 0;
  if (frame && camera.width && camera.height) {
    // The frames are the track scaled down: the same shape, whichever way the phone is held.
    const a = Math.max(frame.width, frame.height) / Math.min(frame.width, frame.height);
    const b = Math.max(camera.width, camera.height) / Math.min(camera.width, camera.height);
    aspectMismatch = Math.abs(a - b) / b > limits.maxAspectDifference ? 1 : 0;
  }
  const count = virtual + noLabel + regular + aspectMismatch;
  const measures: Record<string, number> = {
    camera_virtual_label: virtual,
    camera_label_missing: noLabel,
    camera_regular_timing: regular,
    camera_aspect_mismatch: aspectMismatch,
    camera_signals: count,
  };
  if (jitter !== null) measures.frame_interval_jitter_ms = round(jitter, 2);
  return { count, measures };
}

/** Planarity of the faces read, or null when it cannot be measured (too few faces, degenerate landmarks). */
function planarityOf(faces: readonly FaceFinding[]): PlanarityJudgement | null {
  if (faces.length < 2) return null;
  try {
    return judgePlanarity([...faces]);
  } catch {
    return null;
  }
}

/** The fastest the face's centre moves between two consecutive frames read, in face widths a second. */
function maxBoxSpeed(frames: readonly SequenceFrameReading[]): number {
  let max = 0;
  for (let i = 1; i < frames.length; i++) {
    const a = frames[i - 1]!.faces![0]!;
    const b = frames[i]!.faces![0]!;
    const dt = (frames[i]!.t - frames[i - 1]!.t) / 1000;
    if (dt <= 0) continue;
    // Positions as fractions of each frame, so a change of resolution is not a jump.
    const ax = (a.box.x + a.box.width / 2) / a.frame.width;
    const ay = (a.box.y + a.box.height / 2) / a.frame.height;
    const bx = (b.box.x + b.box.width / 2) / b.frame.width;
    const by = (b.box.y + b.box.height / 2) / b.frame.height;
    const width = (a.box.width / a.frame.width + b.box.width / b.frame.width) / 2;
    if (width <= 0) continue;
    max = Math.max(max, Math.hypot(bx - ax, by - ay) / width / dt);
  }
  return max;
}

/** How many of the asked movements were made in order (a prefix), for the measure. */
function countInOrder(made: readonly LivenessChallenge[], asked: readonly LivenessChallenge[]): number {
  let n = 0;
  for (const m of made) if (m === asked[n]) n++;
  return Math.min(n, asked.length);
}

function standardDeviation(values: readonly number[]): number {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  return Math.sqrt(values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length);
}

const round = (v: number, digits: number) => Math.round(v * 10 ** digits) / 10 ** digits;
