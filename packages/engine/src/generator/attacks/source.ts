import sharp from 'sharp';

/** A bona fide photo decoded for an attack, with where its face is (pixels). */
export interface Source {
  data: Uint8Array;
  width: number;
  height: number;
  face: { x: number; y: number; width: number; height: number };
}

/**
 * Decodes a photo (EXIF orientation applied, RGB). `face` is the face's box in the decoded
 * photo, when known (a detector's); otherwise the middle third is assumed.
 */
export async function loadSource(bytes: Uint8Array, face?: Source['face']): Promise<Source> {
  const { data, info } = await sharp(bytes).rotate().removeAlpha().toColourspace('srgb').raw().toBuffer({ resolveWithObject: true });
  const f = face ?? { x: info.width / 3, y: info.height / 4, width: info.width / 3, height: info.height / 2 };
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength), width: info.width, height: info.height, face: f };
}

/** The largest window of this aspect (width / height) around the source's face: what a cover fit shows. */
export function coverWindow(src: Source, aspect: number): { left: number; top: number; width: number; height: number } {
  let cw = src.width, ch = Math.round(src.width / aspect);
  if (ch > src.height) {
    ch = src.height;
    cw = Math.round(src.height * aspect);
  }
  const cx = src.face.x + src.face.width / 2;
  const cy = src.face.y + src.face.height / 2;
  const left = Math.max(0, Math.min(src.width - cw, Math.round(cx - cw / 2)));
  const top = Math.max(0, Math.min(src.height - ch, Math.round(cy - ch / 2)));
  return { left, top, width: cw, height: ch };
}

/** The source resized (cover fit, centred on its face) to w × h, as floats 0..255. */
export async function resizeSource(src: Source, w: number, h: number): Promise<Float32Array> {
  const window = coverWindow(src, w / h);
  const { data } = await sharp(src.data, { raw: { width: src.width, height: src.height, channels: 3 } })
    .extract(window)
    .resize(w, h, { fit: 'fill', kernel: 'lanczos3' })
    .raw()
    .toBuffer({ resolveWithObject: true });
  return Float32Array.from(data);
}

/** Where the face sits in the resized window (same cut as resizeSource). */
export function faceInResized(src: Source, w: number, h: number): { cx: number; cy: number; height: number } {
  const { left, top, width } = coverWindow(src, w / h);
  const k = w / width;
  return { cx: (src.face.x + src.face.width / 2 - left) * k, cy: (src.face.y + src.face.height / 2 - top) * k, height: src.face.height * k };
}
