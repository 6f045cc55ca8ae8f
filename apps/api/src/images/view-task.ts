import sharp from 'sharp';
import { PORTRAIT_SIDE, THUMBNAIL_SIDE, VIEW_MAX_INPUT_PIXELS, portraitFrame, type RelativeBox } from './view-spec.ts';

/** One view to make: the opened image's bytes, and for a portrait the face's box on it. */
export type ViewJob = { view: 'thumbnail'; image: Uint8Array } | { view: 'portrait'; image: Uint8Array; face: RelativeBox };

export interface ViewResult {
  bytes: Uint8Array;
  contentType: 'image/jpeg';
}

/**
 * The task file of the API's image threads (image-views.ts): decodes, orients (EXIF, as the
 * checks did before finding the face), cuts and scales one image, and answers a JPEG. The default
 * export is what piscina runs.
 */
export default async function makeView(job: ViewJob): Promise<ViewResult> {
  let pipeline = sharp(job.image, { limitInputPixels: VIEW_MAX_INPUT_PIXELS, failOn: 'truncated' }).autoOrient();
  if (job.view === 'portrait') {
    // The box is in fractions of the image as the checks saw it: upright (EXIF orientation applied).
    const { autoOrient } = await sharp(job.image, { limitInputPixels: VIEW_MAX_INPUT_PIXELS }).metadata();
    pipeline = pipeline
      .extract(portraitFrame(job.face, autoOrient.width, autoOrient.height))
      .resize({ width: PORTRAIT_SIDE, height: PORTRAIT_SIDE, fit: 'inside', withoutEnlargement: true });
  } else {
    pipeline = pipeline.resize({ width: THUMBNAIL_SIDE, height: THUMBNAIL_SIDE, fit: 'inside', withoutEnlargement: true });
  }
  const out = await pipeline.flatten({ background: '#ffffff' }).jpeg({ quality: 82, mozjpeg: true }).toBuffer();
  return { bytes: new Uint8Array(out.buffer, out.byteOffset, out.byteLength), contentType: 'image/jpeg' };
}
