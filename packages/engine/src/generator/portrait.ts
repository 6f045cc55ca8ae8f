import sharp from 'sharp';

/**
 * The portrait as printed on an identity document: cropped to 3:4 around the part of the photo
 * sharp's attention strategy finds most salient (skin tones and detail, a cheap stand-in for face
 * detection), grey, small and JPEG-compressed, the way card printers degrade the photo.
 */
export async function printedPortrait(photo: Uint8Array, quality = 45): Promise<string> {
  const jpeg = await sharp(photo)
    .rotate() // EXIF orientation
    .resize(150, 200, { fit: 'cover', position: sharp.strategy.attention })
    .greyscale()
    .normalise()
    .jpeg({ quality })
    .toBuffer();
  return `data:image/jpeg;base64,${jpeg.toString('base64')}`;
}
