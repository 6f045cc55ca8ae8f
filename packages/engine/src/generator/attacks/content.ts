import sharp from 'sharp';

/**
 * What an attack presents: an RGB picture of a document (a generated card, flat or already
 * photographed, or a real document's scan from the fixtures), the input of the screen and print
 * species. Decoded upright, alpha flattened on white.
 */
export interface PresentedImage {
  /** RGB, row-major, no padding. */
  data: Buffer;
  width: number;
  height: number;
}

export async function presentedImage(bytes: Uint8Array): Promise<PresentedImage> {
  const { data, info } = await sharp(bytes).rotate().flatten({ background: '#ffffff' }).removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** RGB to the opaque RGBA the phone-photo degradation takes as its "card". */
export function opaqueRgba(image: PresentedImage): { data: Buffer; width: number; height: number } {
  const n = image.width * image.height;
  const out = Buffer.alloc(n * 4);
  for (let i = 0; i < n; i++) {
    out[i * 4] = image.data[i * 3]!;
    out[i * 4 + 1] = image.data[i * 3 + 1]!;
    out[i * 4 + 2] = image.data[i * 3 + 2]!;
    out[i * 4 + 3] = 255;
  }
  return { data: out, width: image.width, height: image.height };
}
