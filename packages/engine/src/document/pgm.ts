import type { DecodedImage } from './decode.ts';

/**
 * A grey image as a binary PGM file (P5) with a frame of `margin` pixels, white or (`copy`) its
 * edges repeated: how the OCR gets its pages, since tesseract reads PGM by copying bytes where a
 * PNG costs a compression and an inflation.
 */
export function framedPgm(image: DecodedImage, margin: number, frame: 'white' | 'copy'): Buffer {
  if (image.channels !== 1) throw new Error('framedPgm needs a grey image');
  const { width, height, data } = image;
  const w = width + 2 * margin;
  const h = height + 2 * margin;
  const header = Buffer.from(`P5\n${w} ${h}\n255\n`, 'ascii');
  const out = Buffer.alloc(header.length + w * h, 255);
  header.copy(out);
  const rowAt = (y: number) => header.length + y * w;
  for (let y = 0; y < h; y++) {
    const inside = y >= margin && y < margin + height;
    if (!inside && frame === 'white') continue;
    // The source row: itself, or (copy) the nearest edge row.
    const sy = Math.min(height - 1, Math.max(0, y - margin));
    const start = rowAt(y);
    data.copy(out, start + margin, sy * width, (sy + 1) * width);
    if (frame === 'copy') {
      out.fill(data[sy * width]!, start, start + margin);
      out.fill(data[sy * width + width - 1]!, start + margin + width, start + w);
    }
  }
  return out;
}
