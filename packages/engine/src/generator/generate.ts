import sharp from 'sharp';
import { composeMrz } from '../mrz/compose.ts';
import type { DocumentFields } from '../types.ts';
import { cardSvg, mrzBoxPx } from './card-svg.ts';
import { degradeCard, type DegradeOptions } from './degrade.ts';
import { homography, project, type Point } from './homography.ts';
import { printedPortrait } from './portrait.ts';
import { createRng } from './rng.ts';

export interface GenerateOptions {
  format: 'TD1' | 'TD3';
  fields: DocumentFields;
  /** Any photo (JPEG, PNG…): printed small, grey and compressed as the document portrait. */
  portrait: Uint8Array;
  /** The face in `portrait` (pixels, after EXIF orientation), when a detector found it; else it is guessed. */
  portraitFace?: { left: number; top: number; width: number; height: number };
  seed: number;
  /** Phone-photo degradation (the default), or `false` for the flat card. */
  degrade?: DegradeOptions | false;
}

export interface GeneratedDocument {
  /** JPEG. */
  image: Buffer;
  /** The MRZ printed on the document. */
  lines: string[];
  width: number;
  height: number;
  documentBox: { x: number; y: number; width: number; height: number };
  /** The card's corners in the image: top-left, top-right, bottom-right, bottom-left. */
  documentCorners: Point[];
  /** The corners of the box around the MRZ characters in the image, same order. */
  mrzCorners: Point[];
}

/**
 * Renders a TD1 card or a TD3 passport page with these fields, their MRZ and the portrait, then
 * (unless `degrade: false`) photographs it like a phone would. Same options and seed, same bytes.
 * Safe to call from worker threads (no shared state).
 */
export async function generateDocument(opts: GenerateOptions): Promise<GeneratedDocument> {
  const rng = createRng(opts.seed);
  const fields: DocumentFields = { document_code: opts.format === 'TD3' ? 'P' : 'I', ...opts.fields };
  const lines = composeMrz(opts.format, fields);
  const portraitDataUri = await printedPortrait(opts.portrait, Math.round(rng.range(35, 60)), opts.portraitFace);
  const svg = cardSvg({ format: opts.format, fields, lines, portraitDataUri }, rng);
  const card = sharp(Buffer.from(svg));
  const m = mrzBoxPx(opts.format, lines.length, lines[0]!.length);
  const mrzOnCard: Point[] = [[m.x, m.y], [m.x + m.width, m.y], [m.x + m.width, m.y + m.height], [m.x, m.y + m.height]];
  if (opts.degrade === false) {
    const { data, info } = await card.flatten({ background: '#ffffff' }).jpeg({ quality: 92 }).toBuffer({ resolveWithObject: true });
    const box = { x: 0, y: 0, width: info.width, height: info.height };
    const corners: Point[] = [[0, 0], [info.width, 0], [info.width, info.height], [0, info.height]];
    return { image: data, lines, width: info.width, height: info.height, documentBox: box, documentCorners: corners, mrzCorners: mrzOnCard };
  }
  const { data, info } = await card.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const photo = await degradeCard({ data, width: info.width, height: info.height }, rng, opts.degrade ?? {});
  const { width: cw, height: ch } = info;
  const toPhoto = homography([[0, 0], [cw, 0], [cw, ch], [0, ch]], photo.documentCorners);
  return { lines, ...photo, mrzCorners: mrzOnCard.map(([x, y]) => project(toPhoto, x, y)) };
}
