import sharp, { type Sharp } from 'sharp';

/**
 * Image decoding for every document analyser: one place that applies the EXIF orientation (a
 * phone photo is stored sideways with a tag saying so) and refuses images too large to decode
 * safely (a decompression bomb would otherwise allocate gigabytes in a worker thread).
 */

/** Refuse inputs over 40 megapixels: larger than any phone camera, cheap to send, costly to decode. */
export const MAX_INPUT_PIXELS = 40_000_000;

export interface DecodedImage {
  /** Raw pixels, row-major, `channels` bytes per pixel (3 = RGB, 1 = grey), no padding. */
  data: Buffer;
  width: number;
  height: number;
  channels: 1 | 3;
}

/**
 * Every analyser (document, MRZ, faces) opens image bytes here, so the pixel limit holds for all
 * of them and not only for the one that happens to decode first. `failOn` keeps each caller's
 * tolerance of damaged files (sharp's default is 'warning').
 */
export function openImage(bytes: Uint8Array, failOn: 'error' | 'warning' = 'warning'): Sharp {
  return sharp(bytes, { limitInputPixels: MAX_INPUT_PIXELS, failOn });
}

export class ImageUnreadableError extends Error {
  constructor(why: string) {
    super(`image unreadable: ${why}`);
    this.name = 'ImageUnreadableError';
  }
}

/** Decodes to raw RGB (or grey with `{ grey: true }`), upright, alpha dropped (flattened on white). */
export async function decodeImage(bytes: Uint8Array, options: { grey?: boolean } = {}): Promise<DecodedImage> {
  try {
    let pipeline = openImage(bytes, 'error').rotate().flatten({ background: '#ffffff' });
    pipeline = options.grey ? pipeline.greyscale() : pipeline.removeAlpha().toColourspace('srgb');
    const { data, info } = await pipeline.raw().toBuffer({ resolveWithObject: true });
    const channels = options.grey ? 1 : 3;
    if (info.channels !== channels) throw new ImageUnreadableError(`unexpected ${info.channels} channels`);
    return { data, width: info.width, height: info.height, channels };
  } catch (err) {
    if (err instanceof ImageUnreadableError) throw err;
    // sharp's messages name the format problem, never the content: safe to keep the reason short.
    const message = err instanceof Error ? err.message : String(err);
    throw new ImageUnreadableError(/pixel limit/i.test(message) ? 'over the pixel limit' : 'not a decodable image');
  }
}

/** The grey (luma) plane of a decoded image; the same buffer when it is already grey. */
export function toGrey(image: DecodedImage): DecodedImage {
  if (image.channels === 1) return image;
  const n = image.width * image.height;
  const grey = Buffer.allocUnsafe(n);
  const d = image.data;
  for (let i = 0, j = 0; i < n; i++, j += 3) {
    // ITU-R BT.601 luma, the weights sharp and opencv use.
    grey[i] = (d[j]! * 299 + d[j + 1]! * 587 + d[j + 2]! * 114 + 500) / 1000;
  }
  return { data: grey, width: image.width, height: image.height, channels: 1 };
}

/** RGBA pixels (what zxing and canvas-like APIs take). */
export function toRgba(image: DecodedImage): Uint8ClampedArray {
  const n = image.width * image.height;
  const out = new Uint8ClampedArray(n * 4);
  const d = image.data;
  for (let i = 0; i < n; i++) {
    const s = image.channels === 3 ? i * 3 : i;
    out[i * 4] = d[s]!;
    out[i * 4 + 1] = d[image.channels === 3 ? s + 1 : s]!;
    out[i * 4 + 2] = d[image.channels === 3 ? s + 2 : s]!;
    out[i * 4 + 3] = 255;
  }
  return out;
}

/** Re-encodes decoded pixels to a sharp pipeline (for crops, rotations and resizes of variants). */
export function toSharp(image: DecodedImage): Sharp {
  return sharp(image.data, { raw: { width: image.width, height: image.height, channels: image.channels } });
}
