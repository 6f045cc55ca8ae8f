import type { FaceBox } from '../../types.ts';
import type { RgbImage } from '../decode-image.ts';
import { faceWindowOrigin } from './pixels.ts';

/**
 * The square of the face the trained texture network reads (texture-net.ts), pure: the middle
 * of the face, placed as the spectrum's window is (pixels.ts faceWindowOrigin), side 80% of the
 * box's smaller side but at most TEXTURE_WINDOW_MAX, at the image's own resolution (a resize
 * would blur or alias away the texture it learnt: a print's dither, a screen's grid, a sensor's
 * noise). Null when the face is too small for one patch.
 */
export const TEXTURE_PATCH = 32;
export const TEXTURE_WINDOW_MAX = 256;

export function textureWindow(image: RgbImage, box: FaceBox): RgbImage | null {
  const side = Math.min(TEXTURE_WINDOW_MAX, Math.floor(0.8 * Math.min(box.width, box.height)), image.width, image.height);
  if (side < TEXTURE_PATCH) return null;
  const { x0, y0 } = faceWindowOrigin(image, box, side);
  const data = new Uint8Array(side * side * 3);
  for (let y = 0; y < side; y++) {
    const from = ((y0 + y) * image.width + x0) * 3;
    data.set(image.data.subarray(from, from + side * 3), y * side * 3);
  }
  return { data, width: side, height: side };
}
