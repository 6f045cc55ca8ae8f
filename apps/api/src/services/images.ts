import sharp, { type Metadata } from 'sharp';
import { IMAGE_LIMITS, dimensionProblem, sniffImageType, type ImageType } from '@idv/domain';
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

/**
 * Checks an uploaded image before anything is stored: type from the bytes (never the name or the
 * Content-Type), pixel size from the header (read without decoding, so a decompression bomb is
 * refused before it costs anything), then a full decode at a tiny size (JPEG shrink-on-load) to
 * refuse truncated or corrupt files. sharp works on libuv's thread pool, off the event loop.
 */
export async function inspectImage(bytes: Buffer): Promise<InspectedImage> {
  if (bytes.length === 0) throw new ApiError('image_type_unsupported', 'The body is empty: send the image bytes.');
  if (bytes.length > IMAGE_LIMITS.maxBytes) throw new ApiError('image_too_large', `An image may be at most ${IMAGE_LIMITS.maxBytes} bytes.`);
  const type = sniffImageType(bytes.subarray(0, 64));
  if (!type) throw new ApiError('image_type_unsupported');
  if (!(IMAGE_LIMITS.types as readonly string[]).includes(type)) {
    throw new ApiError('image_type_unsupported', `${type} images cannot be processed; send a JPEG, PNG, WebP or AVIF image.`);
  }
  let meta: Metadata;
  try {
    meta = await sharp(bytes, { limitInputPixels: false }).metadata();
  } catch {
    throw new ApiError('image_unreadable');
  }
  if (!meta.width || !meta.height || !FORMAT_OF[meta.format ?? '']?.includes(type)) throw new ApiError('image_unreadable');
  const problem = dimensionProblem(meta.width, meta.height);
  if (problem) throw new ApiError('image_dimensions_invalid', problem);
  try {
    await sharp(bytes, { limitInputPixels: IMAGE_LIMITS.maxPixels, failOn: 'truncated' })
      .resize(32, 32, { fit: 'inside' })
      .raw()
      .toBuffer();
  } catch {
    throw new ApiError('image_unreadable', 'The image is truncated or corrupt and cannot be decoded.');
  }
  return { type, width: meta.width, height: meta.height };
}
