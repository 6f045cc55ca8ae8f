import sharp from 'sharp';
import { cardPixels, PORTRAIT_MM } from '../card-svg.ts';
import { generateDocument } from '../generate.ts';
import { randomIdentity } from '../identity.ts';
import type { DocumentFields } from '../../types.ts';
import { createRng } from '../rng.ts';
import { photograph, placeSurface, selfieFrame } from './rig.ts';
import type { Source } from './source.ts';

/**
 * The document as the selfie: the person (or someone holding their card) shows the identity
 * document's own portrait to the front camera instead of their face. The card is the generator's
 * (the same seed gives the same card as the document photo of the case), held close enough for
 * its portrait's face to pass as a selfie (15 to 40% of the frame's height), at a slant, the
 * card's edges and text partly in frame, under the laminate's glare.
 */
export interface DocumentSelfie {
  /** The selfie: a photo of the card held to the camera. */
  image: Buffer;
  /** The case's document photo: the same card photographed normally (generateDocument with this seed). */
  document: Buffer;
  format: 'TD1' | 'TD3';
  faceHeightFraction: number;
}

/** `card`: the document's format and fields (default: drawn from the seed). */
export async function documentSelfieAttack(src: Source, srcBytes: Uint8Array, seed: number, card?: { format: 'TD1' | 'TD3'; fields: DocumentFields }): Promise<DocumentSelfie> {
  const rng = createRng(seed);
  const drawn = rng.next() < 0.5 ? 'TD1' : 'TD3';
  const format = card?.format ?? drawn;
  const options = {
    format,
    fields: card?.fields ?? randomIdentity(seed),
    portrait: srcBytes,
    portraitFace: { left: Math.round(src.face.x), top: Math.round(src.face.y), width: Math.round(src.face.width), height: Math.round(src.face.height) },
    seed,
  } as const;
  const [flat, document] = await Promise.all([generateDocument({ ...options, degrade: false }), generateDocument(options)]);
  const { data, info } = await sharp(flat.image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const surfaceCard = { data, width: info.width, height: info.height };
  const { pxPerMm } = cardPixels(format);
  const pm = PORTRAIT_MM[format];
  // printedPortrait cuts a 3:4 window with the face 60% of its height, its middle at 47%.
  const face = { cx: (pm.x + pm.width / 2) * pxPerMm, cy: (pm.y + pm.height * 0.47) * pxPerMm, height: pm.height * 0.6 * pxPerMm };
  const frame = selfieFrame(rng);
  const faceHeightFraction = rng.range(0.15, 0.4);
  const corners = placeSurface(rng, frame, surfaceCard, face, faceHeightFraction, 12, 0.05);
  const grain = rng.range(2, 8);
  const surface = (u: number, v: number, out: Float64Array) => {
    const x0 = Math.min(surfaceCard.width - 2, u | 0);
    const y0 = Math.min(surfaceCard.height - 2, v | 0);
    const fx = u - x0;
    const fy = v - y0;
    // The card printer's dither: a fixed grain per card pixel.
    const n = (hash(x0, y0) - 0.5) * grain;
    for (let c = 0; c < 3; c++) {
      const i = (y0 * surfaceCard.width + x0) * 3 + c;
      const top = surfaceCard.data[i]! + (surfaceCard.data[i + 3]! - surfaceCard.data[i]!) * fx;
      const bottom = surfaceCard.data[i + surfaceCard.width * 3]! + (surfaceCard.data[i + surfaceCard.width * 3 + 3]! - surfaceCard.data[i + surfaceCard.width * 3]!) * fx;
      out[c] = top + (bottom - top) * fy + n;
    }
    return true;
  };
  const { image } = await photograph(
    surface,
    {
      ...frame,
      corners,
      surfaceWidth: surfaceCard.width,
      surfaceHeight: surfaceCard.height,
      blur: rng.range(0.3, 1.0),
      glare: rng.next() < 0.6 ? { x: rng.range(0.2, 0.8) * frame.width, y: rng.range(0.2, 0.7) * frame.height, r: rng.range(0.05, 0.2) * frame.width, s: rng.range(0.1, 0.5) } : undefined,
    },
    rng,
  );
  return { image, document: document.image, format, faceHeightFraction };
}

function hash(x: number, y: number): number {
  let h = Math.imul(x, 374761393) ^ Math.imul(y, 668265263);
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}
