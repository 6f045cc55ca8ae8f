import type { LivenessChallenge } from './journey.ts';

/**
 * The live sequence (docs/liveness.md#the-live-sequence): when the face step starts the service
 * draws a challenge (the flow's movements in a random order, a random hold, a nonce valid for a
 * minute); the journey films it as a short burst of small frames and sends them in one upload
 * bound to the challenge; the engine judges order, timing and continuity. Pure rules here: the
 * draw, the limits and the shape of what the journey says about its camera.
 */

export const SEQUENCE_LIMITS = {
  /** From issue to upload: the capture (≤ maxDurationMs) plus a slow 3G upload, with room. */
  challengeTtlMs: 60_000,
  /** The rate the journey is asked to capture at, frames a second. */
  frameRate: 10,
  /** The lowest cadence judged continuous (frames a second over the capture). */
  minFrameRate: 8,
  /** Two frames further apart than this break the capture (a cut, a pause, a splice). */
  maxGapMs: 400,
  /** Frames of one upload: 10 s at 10 frames a second. */
  maxFrames: 100,
  /** Fewer frames than this cannot show a movement and its return (about 1.6 s at 10 fps). */
  minFrames: 16,
  /** First to last frame's capture time. */
  maxDurationMs: 10_000,
  /** One frame's bytes (a 320×240 JPEG at quality 0.7 is about 8–15 kB). */
  maxFrameBytes: 40_000,
  /** All frames' bytes together (base64 in the JSON body adds a third). */
  maxTotalBytes: 1_500_000,
  /** The frame's longer side at most, and its shorter side at least (a face must stay describable). */
  maxSide: 320,
  minShortSide: 120,
  /** How long each movement is held, drawn per challenge in this range (ms). */
  holdMs: [800, 1600] as const,
  /** Challenges a case may ask for over its life (each retake asks one). */
  maxChallengesPerCase: 20,
} as const;

/** What the journey is asked to perform. */
export interface DrawnChallenge {
  /** The flow's movements, in the order drawn. */
  movements: LivenessChallenge[];
  /** How long to hold each movement before the next (ms). */
  holdMs: number;
}

/**
 * The flow's movements shuffled (Fisher–Yates) and a hold drawn. `random` returns [0, 1) and is
 * a cryptographic source in the service (a recording made for one order must not be predictable).
 */
export function drawChallenge(movements: readonly LivenessChallenge[], random: () => number): DrawnChallenge {
  const order = [...movements];
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  const [low, high] = SEQUENCE_LIMITS.holdMs;
  return { movements: order, holdMs: Math.round((low + random() * (high - low)) / 100) * 100 };
}

/**
 * What the browser said about its camera (MediaStreamTrack.label and getSettings()), sent with
 * the sequence. Every field may be absent: browsers differ and a person may hide the label.
 */
export interface CameraReport {
  label?: string;
  width?: number;
  height?: number;
  frame_rate?: number;
  facing_mode?: string;
  /** The device's count of video inputs (navigator.mediaDevices.enumerateDevices). */
  video_inputs?: number;
}

/**
 * Labels of virtual cameras (software that feeds any video to the browser as a camera). Matched
 * lowercased as substrings. A virtual camera may rename itself, so a label is never decisive alone.
 */
const VIRTUAL_CAMERA_LABELS = [
  'obs virtual camera',
  'obs-camera',
  'manycam',
  'snap camera',
  'e2esoft',
  'vcam',
  'virtual cam',
  'dummy video device',
  'v4l2loopback',
  'xsplit',
  'droidcam',
  'camtwist',
  'splitcam',
  'youcam',
] as const;

export function virtualCameraLabel(label: string | undefined): boolean {
  if (!label) return false;
  const l = label.toLowerCase();
  return VIRTUAL_CAMERA_LABELS.some((v) => l.includes(v));
}
