import { fileURLToPath } from 'node:url';
import type { InferenceSession } from 'onnxruntime-node';
import type { FaceBox } from '../../types.ts';
import { lazyCpuSession, runFloat } from '../../onnx/session.ts';
import { writeRgbPlanes } from '../../onnx/rgb-planes.ts';
import type { RgbImage } from '../decode-image.ts';
import { TEXTURE_PATCH, textureWindow } from './texture-window.ts';

/**
 * This project's own texture network: a small convolutional network (four 3×3 convolutions,
 * about 66,000 weights) trained on the training half of bench:pad's set only
 * (scripts/train-texture-net.py; models/texture-net/README.md), that reads 32×32 patches of the
 * face at the image's own resolution and gives the log-odds that a patch is a screen or a print.
 * A still's texture logit is the mean over a 4×4 grid of patches of its texture window
 * (texture-window.ts), the grid the training script scores with. It is one of the measures of the
 * still's medium model (judge.ts), not a decision alone.
 */
export const TEXTURE_NET_MODEL = fileURLToPath(new URL('../../../models/texture-net/texture-net.onnx', import.meta.url));
const GRID = 4;

/** The grid's offsets along a side of `side` pixels: evenly spread from one edge to the other. */
export const gridOffsets = (side: number): number[] => Array.from({ length: GRID }, (_, k) => Math.round((k * (side - TEXTURE_PATCH)) / (GRID - 1)));

/** The network's input for one window, pure: its 16 patches as NCHW floats, red plane first, values 0..255 (the network normalises). */
export function texturePatches(window: RgbImage): Float32Array {
  const P = TEXTURE_PATCH;
  const offsets = gridOffsets(window.width);
  const out = new Float32Array(GRID * GRID * 3 * P * P);
  let n = 0;
  for (const y0 of offsets) for (const x0 of offsets) writeRgbPlanes(out, n++ * 3 * P * P, window.data, window.width, x0, y0, P);
  return out;
}

/** The still's texture logit (higher: more like a screen or a print), or null when the face is too small for a patch. */
export async function textureLogit(session: InferenceSession, image: RgbImage, box: FaceBox): Promise<number | null> {
  const window = textureWindow(image, box);
  if (!window) return null;
  const logits = await runFloat(session, texturePatches(window), [GRID * GRID, 3, TEXTURE_PATCH, TEXTURE_PATCH]);
  return logits.reduce((s, v) => s + v, 0) / logits.length;
}

/** This thread's session, loaded on first use. */
export const loadTextureNet = lazyCpuSession(TEXTURE_NET_MODEL);
