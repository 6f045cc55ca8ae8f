import sharp, { type Sharp } from 'sharp';
import { faceCropBox, type CropBox } from './face-crop.ts';

/** Side of the small copy the face is looked for on. */
const ANALYSIS_SIZE = 128;

/**
 * The portrait as printed on an identity document: cut around the face (given, or found by the
 * skin heuristic of face-crop.ts, else sharp's attention strategy), grey, small and
 * JPEG-compressed, the way card printers degrade the photo. Returns a data URI for the SVG.
 */
export async function printedPortrait(photo: Uint8Array, quality = 45, face?: CropBox): Promise<string> {
  // Decoded once, EXIF orientation applied, kept raw (re-encoding a large photo costs more than the rest).
  const { data, info } = await sharp(photo).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const { width, height } = info;
  const raw = { raw: { width, height, channels: 3 as const } };
  const box = face ? portraitAround(face, width, height) : await findFace(sharp(data, raw), width, height);
  const pipeline = box
    ? sharp(data, raw).extract(box).resize(150, 200, { fit: 'cover' })
    : sharp(data, raw).resize(150, 200, { fit: 'cover', position: sharp.strategy.attention });
  const jpeg = await pipeline.greyscale().normalise().jpeg({ quality }).toBuffer();
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}

async function findFace(image: Sharp, width: number, height: number): Promise<CropBox | null> {
  const small = await image.resize(ANALYSIS_SIZE, ANALYSIS_SIZE, { fit: 'inside' }).raw().toBuffer({ resolveWithObject: true });
  const box = faceCropBox(small.data, small.info.width, small.info.height);
  if (!box) return null;
  const k = width / small.info.width;
  return clampBox({ left: Math.round(box.left * k), top: Math.round(box.top * k), width: Math.round(box.width * k), height: Math.round(box.height * k) }, width, height);
}

/** A 3:4 crop with the given face box taking about 60 % of its height. */
function portraitAround(face: CropBox, width: number, height: number): CropBox {
  const h = Math.min(height, face.height / 0.6);
  const w = Math.min(width, h * 0.75);
  return clampBox({ left: Math.round(face.left + face.width / 2 - w / 2), top: Math.round(face.top - h * 0.17), width: Math.round(w), height: Math.round(h) }, width, height);
}

function clampBox(b: CropBox, width: number, height: number): CropBox {
  const w = Math.max(1, Math.min(b.width, width));
  const h = Math.max(1, Math.min(b.height, height));
  return { left: Math.max(0, Math.min(b.left, width - w)), top: Math.max(0, Math.min(b.top, height - h)), width: w, height: h };
}
