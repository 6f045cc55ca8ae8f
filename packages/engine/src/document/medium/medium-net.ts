import { fileURLToPath } from 'node:url';
import type { InferenceSession } from 'onnxruntime-node';
import { lazyCpuSession, runFloat } from '../../onnx/session.ts';
import { writeRgbPlanes } from '../../onnx/rgb-planes.ts';
import type { DecodedImage } from '../decode.ts';
import type { Point } from '../locate.ts';
import { documentShortSide, windowOrigins } from './document-pixels.ts';

/**
 * This project's own document medium network: a small convolutional network trained on the
 * calibration half of the generated document attacks only (scripts/document-medium-crops.ts,
 * scripts/train-document-medium-net.py; models/document-medium-net/README.md). It reads 32×32
 * patches of the photo's own pixels inside the located document (not straightened: the camera's
 * pixel grid is what a screen's grid and a copy's halftone beat against) and gives, for each
 * patch, three logits: a genuine document, a screen, a copy on paper. A document's scores are
 * the mean over its patches of each attack's log-odds against the genuine document.
 */
export const MEDIUM_NET_MODEL = fileURLToPath(new URL('../../../models/document-medium-net/document-medium-net.onnx', import.meta.url));
export const MEDIUM_PATCH = 32;

/** Where the patches are centred: fractions of the document's width and height, away from its edges (the table, the card's rim). */
const US = [0.14, 0.28, 0.42, 0.58, 0.72, 0.86];
const VS = [0.22, 0.4, 0.6, 0.78];
/** A document whose shorter side is under this many pixels is not read: its print is below the camera's resolution. */
const MIN_SHORT_SIDE = 160;
/** Fewer patches inside the image than this, and the document is not read (most of it is outside the frame). */
const MIN_PATCHES = 8;

/**
 * Square windows of `side` pixels of the photo, RGB (grey repeated), centred on the patch
 * centres inside the document, those wholly inside the image; none when the document is too
 * small. The engine reads them at MEDIUM_PATCH; the training crops at twice that, so that the
 * training can move its patches around the same centres.
 */
export function mediumWindows(image: DecodedImage, corners: readonly Point[], side: number): Uint8Array[] {
  if (documentShortSide(corners) < MIN_SHORT_SIDE) return [];
  const windows: Uint8Array[] = [];
  const c = image.channels;
  for (const [x0, y0] of windowOrigins(image, corners, side, US, VS)) {
    const w = new Uint8Array(side * side * 3);
    for (let y = 0; y < side; y++) {
      for (let x = 0; x < side; x++) {
        const i = ((y0 + y) * image.width + x0 + x) * c;
        const o = (y * side + x) * 3;
        for (let k = 0; k < 3; k++) w[o + k] = image.data[c === 3 ? i + k : i]!;
      }
    }
    windows.push(w);
  }
  return windows;
}

/** The network's input, pure: the patches as NCHW floats, red plane first, values 0..255 (the network normalises). */
export function mediumNetInput(patches: readonly Uint8Array[]): Float32Array {
  const P = MEDIUM_PATCH;
  const out = new Float32Array(patches.length * 3 * P * P);
  patches.forEach((p, n) => writeRgbPlanes(out, n * 3 * P * P, p, P, 0, 0, P));
  return out;
}

export interface MediumNetScores {
  /** Mean log-odds of a screen against a genuine document. */
  screen: number;
  /** Mean log-odds of a copy on paper against a genuine document. */
  copy: number;
  /** Patches read. */
  patches: number;
}

/** Averages the per-patch log-odds of each attack against the genuine class (logits: n × [genuine, screen, copy]), pure. */
export function meanLogOdds(logits: Float32Array): { screen: number; copy: number } {
  const n = logits.length / 3;
  let screen = 0;
  let copy = 0;
  for (let i = 0; i < n; i++) {
    screen += logits[i * 3 + 1]! - logits[i * 3]!;
    copy += logits[i * 3 + 2]! - logits[i * 3]!;
  }
  return { screen: screen / n, copy: copy / n };
}

/** The document's scores, or null when too little of a large enough document is in the photo. */
export async function mediumNetScores(session: InferenceSession, image: DecodedImage, corners: readonly Point[]): Promise<MediumNetScores | null> {
  const patches = mediumWindows(image, corners, MEDIUM_PATCH);
  if (patches.length < MIN_PATCHES) return null;
  const logits = await runFloat(session, mediumNetInput(patches), [patches.length, 3, MEDIUM_PATCH, MEDIUM_PATCH]);
  return { ...meanLogOdds(logits), patches: patches.length };
}

/** This thread's session, loaded on first use. */
export const loadMediumNet = lazyCpuSession(MEDIUM_NET_MODEL);
