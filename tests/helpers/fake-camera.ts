import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';

/** The dark, plain surface the journey asks documents to lie on (also the letterbox around a photo). */
const SURFACE = { r: 24, g: 26, b: 30 };

/**
 * A video file for Chromium's fake camera (`--use-file-for-fake-video-capture`), built from a
 * still image at test time: the image is fitted into the frame on a dark background, converted
 * from RGB to planar YUV 4:2:0 (BT.601, studio range: Y 16–235, as Chromium's fake camera reads
 * a Y4M whatever its header says) and written as Y4M. Chromium loops the frames, so the camera
 * shows the image steadily, with the photo's own levels.
 */
export async function y4mFromImage(image: Buffer, dir: string, opts: { width?: number; height?: number; frames?: number; name?: string } = {}): Promise<string> {
  const width = opts.width ?? 1280;
  const height = opts.height ?? 720;
  const rgb = await sharp(image)
    .resize(width, height, { fit: 'contain', background: SURFACE })
    .removeAlpha()
    .raw()
    .toBuffer();
  const frame = i420(rgb, width, height);
  return writeY4m(Array.from({ length: opts.frames ?? 2 }, () => frame), width, height, join(dir, opts.name ?? 'camera.y4m'));
}

/** Writes I420 frames as a Y4M file, atomically. */
function writeY4m(frames: Buffer[], width: number, height: number, path: string): string {
  const header = Buffer.from(`YUV4MPEG2 W${width} H${height} F30:1 Ip A1:1 C420jpeg\n`, 'ascii');
  const marker = Buffer.from('FRAME\n', 'ascii');
  const parts: Buffer[] = [header];
  for (const f of frames) parts.push(marker, f);
  // Written aside, then renamed over: a browser whose fake camera is reading the old file keeps
  // its whole file (the old inode) instead of finding it truncated mid-frame, which can stall its
  // capture device for the next page that opens the camera.
  const partial = `${path}.${process.pid}.partial`;
  writeFileSync(partial, Buffer.concat(parts));
  renameSync(partial, path);
  return path;
}

/**
 * RGB (8 bits, interleaved) to I420: full-resolution Y, then U and V subsampled 2×2, in BT.601's
 * studio range (Y 16–235, U and V 16–240). Chromium's fake camera expands every Y4M from that
 * range: full-range values (Y 0–255) came out stretched, a photo's white paper at 231 clipped to
 * 250 and its black crushed (tests/e2e/journey-browser.test.ts measures what the browser shows).
 */
function i420(rgb: Buffer, width: number, height: number): Buffer {
  const ySize = width * height;
  const cw = width >> 1;
  const ch = height >> 1;
  const out = Buffer.alloc(ySize + 2 * cw * ch);
  const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));
  for (let i = 0, p = 0; i < ySize; i++, p += 3) out[i] = clamp(16 + (219 / 255) * (0.299 * rgb[p] + 0.587 * rgb[p + 1] + 0.114 * rgb[p + 2]));
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
      out[ySize + y * cw + x] = clamp((224 / 255) * (-0.168736 * r - 0.331264 * g + 0.5 * b) + 128);
      out[ySize + cw * ch + y * cw + x] = clamp((224 / 255) * (0.5 * r - 0.418688 * g - 0.081312 * b) + 128);
    }
  }
  return out;
}

/**
 * A camera frame showing a document as a person aims it at the guide: the image fitted inside
 * `fill` of the frame's width and height, centred on a dark plain surface (PNG).
 */
export async function documentFrame(image: Buffer, opts: { width?: number; height?: number; fill?: number; dx?: number } = {}): Promise<Buffer> {
  const width = opts.width ?? 1280;
  const height = opts.height ?? 720;
  const fill = opts.fill ?? 0.8;
  const doc = await sharp(image).rotate().resize(Math.round(width * fill), Math.round(height * fill), { fit: 'inside' }).toBuffer({ resolveWithObject: true });
  return sharp({ create: { width, height, channels: 3, background: SURFACE } })
    .composite([{ input: doc.data, left: Math.round((width - doc.info.width) / 2 + (opts.dx ?? 0) * width), top: Math.round((height - doc.info.height) / 2) }])
    .png()
    .toBuffer();
}

/** A frame of `document` with a glare spot: a white disc fading out, over the middle of the document (as bench:checks' glare variant). */
export async function glaredFrame(frame: Buffer, opts: { radius?: number; x?: number; y?: number } = {}): Promise<Buffer> {
  const { width, height } = await sharp(frame).metadata();
  const r = Math.round((opts.radius ?? 0.18) * height!);
  const spot = `<svg width="${width}" height="${height}"><defs><radialGradient id="g"><stop offset="0.55" stop-color="#fff"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><circle cx="${(opts.x ?? 0.5) * width!}" cy="${(opts.y ?? 0.5) * height!}" r="${r}" fill="url(#g)"/></svg>`;
  return sharp(frame).composite([{ input: Buffer.from(spot) }]).png().toBuffer();
}

/**
 * A selfie frame: the photo scaled so that the face (its box in the photo's pixels) is `share`
 * of the frame's height, and moved so that the face is in the frame's middle, where the oval
 * is; what lies beyond the photo is the dark surface.
 */
export async function selfieFrame(image: Buffer, box: { x: number; y: number; width: number; height: number }, opts: { width?: number; height?: number; share?: number; flop?: boolean } = {}): Promise<Buffer> {
  const width = opts.width ?? 960;
  const height = opts.height ?? 720;
  const scale = ((opts.share ?? 0.45) * height) / box.height;
  const src = sharp(image).rotate();
  const meta = await sharp(await src.toBuffer()).metadata();
  let photo = await sharp(image).rotate().resize(Math.max(1, Math.round(meta.width! * scale)), Math.max(1, Math.round(meta.height! * scale))).toBuffer();
  let cx = (box.x + box.width / 2) * scale;
  const cy = (box.y + box.height / 2) * scale;
  const pw = Math.round(meta.width! * scale);
  const ph = Math.round(meta.height! * scale);
  if (opts.flop) {
    photo = await sharp(photo).flop().toBuffer();
    cx = pw - cx;
  }
  // The part of the scaled photo that lands in the frame.
  const left = Math.round(width / 2 - cx);
  const top = Math.round(height / 2 - cy);
  const sx = Math.max(0, -left);
  const sy = Math.max(0, -top);
  const sw = Math.min(pw - sx, width - Math.max(0, left));
  const sh = Math.min(ph - sy, height - Math.max(0, top));
  const part = await sharp(photo).extract({ left: sx, top: sy, width: sw, height: sh }).toBuffer();
  return sharp({ create: { width, height, channels: 3, background: SURFACE } })
    .composite([{ input: part, left: Math.max(0, left), top: Math.max(0, top) }])
    .png()
    .toBuffer();
}

/** A Y4M of several frames (Chromium loops them): the frames must share one size. */
export async function y4mFromFrames(frames: Buffer[], dir: string, name = 'camera.y4m'): Promise<string> {
  const first = await sharp(frames[0]).metadata();
  const width = first.width!;
  const height = first.height!;
  const yuv = await Promise.all(frames.map(async (f) => i420(await sharp(f).removeAlpha().raw().toBuffer(), width, height)));
  return writeY4m(yuv, width, height, join(dir, name));
}
