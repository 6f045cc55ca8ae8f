import { openImage } from '../document/decode.ts';

/** Longest side given to the face models: enough for a portrait on a document photo, and bounded cost. */
const FACE_MAX_SIDE = 640;

export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

/**
 * Decodes an image for the face models: EXIF orientation applied (phones store portrait photos
 * sideways with a tag), alpha dropped, longest side at most `maxSide`, 8-bit RGB. Throws on bytes
 * that are not an image (the caller maps that to a reason).
 */
export async function decodeForFaces(image: Uint8Array, maxSide = FACE_MAX_SIDE): Promise<RgbImage> {
  const { data, info } = await openImage(image, 'error')
    .rotate()
    .resize({ width: maxSide, height: maxSide, fit: 'inside', withoutEnlargement: true })
    .removeAlpha()
    .toColourspace('srgb')
    .raw()
    .toBuffer({ resolveWithObject: true });
  if (info.channels !== 3) throw new Error(`face image: expected 3 channels, got ${info.channels}`);
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height };
}
