import type { DecodedImage } from './decode.ts';
import type { Box } from './printed-zone-reread.ts';

/** The pixels of `box` (its right and bottom edges excluded). */
export function cropImage(image: DecodedImage, box: Box): DecodedImage {
  const { x0, y0, x1, y1 } = box;
  const c = image.channels;
  const row = (x1 - x0) * c;
  const data = Buffer.allocUnsafe(row * (y1 - y0));
  for (let y = y0; y < y1; y++) image.data.copy(data, (y - y0) * row, (y * image.width + x0) * c, (y * image.width + x1) * c);
  return { data, width: x1 - x0, height: y1 - y0, channels: c };
}
