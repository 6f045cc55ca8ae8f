import sharp from 'sharp';
import { faceCropBox, type CropBox } from './face-crop.ts';

/** Side of the small copy the face is looked for on. */
const ANALYSIS_SIZE = 128;

/**
 * The portrait as printed on an identity document: cut around the face (given, or found by the
 * skin heuristic of face-crop.ts, else sharp's attention strategy), grey, small and
 * JPEG-compressed, the way card printers degrade the photo. Returns a data URI for the SVG.
 */
export async function printedPortrait(photo: Uint8Array, quality = 45, face?: CropBox): Promise<string> {
  const oriented = await sharp(photo).rotate().toBuffer({ resolveWithObject: true }); // EXIF orientation applied
  const { width, height } = oriented.info;
  const box = face ? portraitAround(face, width, height) : await findFace(oriented.data, width, height);
  const pipeline = box
    ? sharp(oriented.data).extract(box).resize(150, 200, { fit: 'cover' })
    : sharp(oriented.data).resize(150, 200, { fit: 'cover', position: sharp.strategy.attention });
  const jpeg = await pipeline.greyscale().normalise().jpeg({ quality }).toBuffer();
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}

async function findFace(image: Buffer, width: number, height: number): Promise<CropBox | null> {
  const small = await sharp(image).resize(ANALYSIS_SIZE, ANALYSIS_SIZE, { fit: 'inside' }).removeAlpha().raw().toBuffer({ resolveWithObject: true });
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
