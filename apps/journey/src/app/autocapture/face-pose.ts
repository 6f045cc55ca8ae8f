/**
 * Head pose from the 68 landmarks, in the camera's unmirrored frame with the engine's conventions
 * (yaw grows as the person turns to their left, pitch as they look up): the nose tip's offset from
 * the eyes' middle, in the face's own axes (so a tilted phone is no turn), over the eye distance.
 * NOSE_DEPTH and the thresholds are measured against the engine's head pose (bench:journey).
 */
import type { Point } from './document-edges.ts';

/** The nose tip's depth in front of the eyes, in eye distances. */
const NOSE_DEPTH = 0.6;

export interface FacePose {
  /** Degrees, positive when the person turns to their own left. */
  yaw: number;
  /** The nose tip's drop below the eyes' middle, in eye distances (grows as the person looks down). */
  drop: number;
  /** Distance between the eyes' centres (frame fractions, horizontal units). */
  eyeDistance: number;
}

const mean = (pts: Point[]): Point => [pts.reduce((s, p) => s + p[0], 0) / pts.length, pts.reduce((s, p) => s + p[1], 0) / pts.length];

/** `aspect` is the frame's width over its height (landmarks are in frame fractions). */
export function facePose(landmarks: Point[], aspect: number): FacePose {
  const px = (p: Point): Point => [p[0] * aspect, p[1]];
  const eyeA = mean(landmarks.slice(36, 42).map(px));
  const eyeB = mean(landmarks.slice(42, 48).map(px));
  const nose = px(landmarks[30]);
  const dx = eyeB[0] - eyeA[0];
  const dy = eyeB[1] - eyeA[1];
  const distance = Math.hypot(dx, dy) || 1e-6;
  const ux = dx / distance;
  const uy = dy / distance;
  const mx = nose[0] - (eyeA[0] + eyeB[0]) / 2;
  const my = nose[1] - (eyeA[1] + eyeB[1]) / 2;
  // In the unmirrored frame the person's left is on the image's right: a nose moving right is a turn to their own left.
  const along = (mx * ux + my * uy) / distance;
  const across = (-mx * uy + my * ux) / distance;
  const s = Math.max(-1, Math.min(1, along / NOSE_DEPTH));
  return { yaw: (Math.asin(s) * 180) / Math.PI, drop: across, eyeDistance: distance };
}
