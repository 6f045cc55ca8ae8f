import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/**
 * A video file for Chromium's fake camera (`--use-file-for-fake-video-capture`), built from a
 * still image at test time: the image is fitted into the frame on a dark background, converted
 * from RGB to planar YUV 4:2:0 (full range, BT.601, as `C420jpeg` says) and written as Y4M.
 * Chromium loops the frames, so the camera shows the image steadily.
 */
export async function y4mFromImage(image: Buffer, dir: string, opts: { width?: number; height?: number; frames?: number; name?: string } = {}): Promise<string> {
  const width = opts.width ?? 1280;
  const height = opts.height ?? 720;
  const rgb = await sharp(image)
    .resize(width, height, { fit: 'contain', background: { r: 24, g: 26, b: 30 } })
    .removeAlpha()
    .raw()
    .toBuffer();
  const frame = i420(rgb, width, height);
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F30:1 Ip A1:1 C420jpeg\n`, 'ascii');
  const marker = Buffer.from('FRAME\n', 'ascii');
  const parts: Buffer[] = [header];
  for (let i = 0; i < (opts.frames ?? 2); i++) parts.push(marker, frame);
  const path = join(dir, opts.name ?? 'camera.y4m');
  // Written aside, then renamed over: a browser whose fake camera is reading the old file keeps
  // its whole file (the old inode) instead of finding it truncated mid-frame, which can stall its
  // capture device for the next page that opens the camera.
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.concat(parts));
  renameSync(partial, path);
  return path;
}

/** RGB (8 bits, interleaved) to I420: full-resolution Y, then U and V subsampled 2×2. */
export function i420(rgb: Buffer, width: number, height: number): Buffer {
  const ySize = width * height;
  const cw = width >> 1;
  const ch = height >> 1;
  const out = Buffer.alloc(ySize + 2 * cw * ch);
  const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));
  for (let i = 0, p = 0; i < ySize; i++, p += 3) out[i] = clamp(0.299 * rgb[p] + 0.587 * rgb[p + 1] + 0.114 * rgb[p + 2]);
  for (let y = 0; y < ch; y++) {
    for (let x = 0; x < cw; x++) {
      let r = 0;
      let g = 0;
      let b = 0;
      for (const [dx, dy] of [[0, 0], [1, 0], [0, 1], [1, 1]]) {
        const p = ((2 * y + dy) * width + 2 * x + dx) * 3;
        r += rgb[p];
        g += rgb[p + 1];
        b += rgb[p + 2];
      }
      r /= 4;
      g /= 4;
      b /= 4;
      out[ySize + y * cw + x] = clamp(-0.168736 * r - 0.331264 * g + 0.5 * b + 128);
      out[ySize + cw * ch + y * cw + x] = clamp(0.5 * r - 0.418688 * g - 0.081312 * b + 128);
    }
  }
  return out;
}
