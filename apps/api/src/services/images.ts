import sharp, { type Metadata } from 'sharp';
import { IMAGE_LIMITS, LOGO_LIMITS, SEQUENCE_LIMITS, dimensionProblem, logoDimensionProblem, sniffImageType, type ImageType } from '@idv/domain';
import { ApiError } from '../http/api-error.ts';

export interface InspectedImage {
  type: ImageType;
  width: number;
  height: number;
}

const FORMAT_OF: Record<string, ImageType[]> = {
  jpeg: ['image/jpeg'],
  png: ['image/png'],
  webp: ['image/webp'],
  heif: ['image/avif', 'image/heic'],
};

/** What an upload of one purpose accepts: size, types and pixel bounds. */
interface ImageRules {
  maxBytes: number;
  types: readonly string[];
  typesText: string;
  maxPixels: number;
  dimensionProblem(width: number, height: number): string | null;
}

const PIECE_RULES: ImageRules = {
  maxBytes: IMAGE_LIMITS.maxBytes,
  types: IMAGE_LIMITS.types,
  typesText: 'a JPEG, PNG, WebP or AVIF image',
  maxPixels: IMAGE_LIMITS.maxPixels,
  dimensionProblem,
};

const LOGO_RULES: ImageRules = {
  maxBytes: LOGO_LIMITS.maxBytes,
  types: LOGO_LIMITS.types,
  typesText: 'a PNG, JPEG or WebP image (SVG is not accepted)',
  maxPixels: LOGO_LIMITS.maxSide * LOGO_LIMITS.maxSide,
  dimensionProblem: logoDimensionProblem,
};

/** A frame of the live sequence: a small JPEG (docs/liveness.md#the-live-sequence). */
const FRAME_RULES: ImageRules = {
  maxBytes: SEQUENCE_LIMITS.maxFrameBytes,
  types: ['image/jpeg'],
  typesText: 'a JPEG frame',
  maxPixels: SEQUENCE_LIMITS.maxSide * SEQUENCE_LIMITS.maxSide,
  dimensionProblem: (width, height) =>
    Math.max(width, height) > SEQUENCE_LIMITS.maxSide || Math.min(width, height) < SEQUENCE_LIMITS.minShortSide
      ? `A frame is ${width}×${height} pixels; its longer side must be at most ${SEQUENCE_LIMITS.maxSide} and its shorter side at least ${SEQUENCE_LIMITS.minShortSide}.`
      : null,
};

export const inspectFrame = (bytes: Buffer) => inspect(bytes, FRAME_RULES);

/** A wallet credential's portrait (docs/wallet.md): small by nature, JPEG or PNG, from the issuer. */
const WALLET_PORTRAIT_RULES: ImageRules = {
  maxBytes: 1024 * 1024,
  types: ['image/jpeg', 'image/png'],
  typesText: 'a JPEG or PNG portrait',
  maxPixels: 4096 * 4096,
  dimensionProblem: (width, height) =>
    Math.max(width, height) > 4096 || Math.min(width, height) < 64 ? `A portrait is ${width}×${height} pixels; 64 to 4096 pixels a side are accepted.` : null,
};

export const inspectWalletPortrait = (bytes: Buffer) => inspect(bytes, WALLET_PORTRAIT_RULES);

/** A photo of the journey (a document side, a selfie). */
export const inspectImage = (bytes: Buffer) => inspect(bytes, PIECE_RULES);

/** A client's logo for the journey's appearance. */
export const inspectLogo = (bytes: Buffer) => inspect(bytes, LOGO_RULES);

/**
 * Checks an uploaded image before anything is stored: type from the bytes (never the name or the
 * Content-Type), pixel size from the header (read without decoding, so a decompression bomb is
 * refused before it costs anything), then a full decode at a tiny size (JPEG shrink-on-load) to
 * refuse truncated or corrupt files. sharp works on libuv's thread pool, off the event loop.
 */
async function inspect(bytes: Buffer, rules: ImageRules): Promise<InspectedImage> {
  if (bytes.length === 0) throw new ApiError('image_type_unsupported', 'The body is empty: send the image bytes.');
  if (bytes.length > rules.maxBytes) throw new ApiError('image_too_large', `An image may be at most ${rules.maxBytes} bytes.`);
  const type = sniffImageType(bytes.subarray(0, 64));
  if (!type) throw new ApiError('image_type_unsupported', `Send ${rules.typesText}.`);
  if (!rules.types.includes(type)) {
    throw new ApiError('image_type_unsupported', `${type} images cannot be processed; send ${rules.typesText}.`);
  }
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ApiError('image_unreadable');
  }
  if (!meta.width || !meta.height || !FORMAT_OF[meta.format ?? '']?.includes(type)) throw new ApiError('image_unreadable');
  const problem = rules.dimensionProblem(meta.width, meta.height);
  if (problem) throw new ApiError('image_dimensions_invalid', problem);
  try {
    await sharp(bytes, { limitInputPixels: rules.maxPixels, failOn: 'truncated' })
      .resize(32, 32, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch {
    throw new ApiError('image_unreadable', 'The image is truncated or corrupt and cannot be decoded.');
  }
  return { type, width: meta.width, height: meta.height };
}
