import sharp from 'sharp';
import { degradeCard, type DegradedPhoto } from '../degrade.ts';
import type { Rng } from '../rng.ts';
import { opaqueRgba, type PresentedImage } from './content.ts';

/**
 * Presentation attack species "photocopy" (generated): a document copied or printed on paper, then
 * photographed by the phone of the journey. Two kinds:
 * - `grey`: a black-and-white copier; the security colours are gone;
 * - `colour`: a colour copy or a cheap colour print: faded colours (reduced saturation).
 * The copier's tone curve (pale tints drop to paper white, contrast raised), its screen (clustered
 * dots at a printer's angle and ruling, one screen per ink on a colour copy) or a toner dither,
 * then the paper (a slightly warm or grey white, fibres) with a margin around the copied card,
 * then the usual phone photo (degradeCard). Every draw comes from the seeded rng.
 */
export type PhotocopyKind = 'grey' | 'colour';

/** Print resolution of the copy, pixels per millimetre (600 dpi ≈ 23.6). */
const PRINT_PX_PER_MM = 23.6;

export interface PhotocopyOptions {
  /** Width of the copied document in millimetres (85.6 for ID-1 cards, 125 for passport pages). */
  documentWidthMm: number;
  outputWidth?: number;
}

export async function photocopy(content: PresentedImage, kind: PhotocopyKind, rng: Rng, options: PhotocopyOptions): Promise<DegradedPhoto> {
  const pw = Math.round(options.documentWidthMm * PRINT_PX_PER_MM);
  const ph = Math.round((pw * content.height) / content.width);
  const page = await sharp(content.data, { raw: { width: content.width, height: content.height, channels: 3 } }).resize(pw, ph, { fit: 'fill' }).raw().toBuffer();

  // Copier tone: contrast raised around a mid point, pale tints pushed to paper white.
  const contrast = rng.range(1.15, 1.5);
  const lift = rng.range(10, 30);
  const tone = (v: number) => Math.max(0, Math.min(1, ((v - 128) * contrast + 128 + lift) / 255));
  const saturation = kind === 'colour' ? rng.range(0.25, 0.6) : 0;
  // Screen ruling 85–150 lines per inch at 600 dpi: a cell of 4–7 print pixels.
  const cell = rng.range(4, 7);
  const dither = kind === 'grey' && rng.next() < 0.35; // some copiers dither instead of screening
  const angles = kind === 'grey' ? [45] : [15, 75, 0]; // C, M, Y screens (K folded into them here)
  const paper = [rng.range(238, 250), rng.range(236, 248), rng.range(228, 244)];
  const inks = kind === 'grey' ? [[25, 25, 28]] : [[0, 160, 220], [220, 0, 130], [245, 220, 0]];

  const margin = Math.round(pw * rng.range(0.02, 0.12));
  const sw = pw + 2 * margin;
  const sh = ph + 2 * margin;
  const sheet = Buffer.alloc(sw * sh * 3);
  const screens = angles.map((deg) => {
    const a = ((deg + rng.range(-2, 2)) * Math.PI) / 180;
    return { c: Math.cos(a) / cell, s: Math.sin(a) / cell };
  });
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const o = (y * sw + x) * 3;
      // Paper fibres: a faint, fine texture on the sheet.
      const fibre = (rng.next() - 0.5) * 6;
      let r = paper[0]! + fibre;
      let g = paper[1]! + fibre;
      let b = paper[2]! + fibre;
      const px = x - margin;
      const py = y - margin;
      if (px >= 0 && py >= 0 && px < pw && py < ph) {
        const i = (py * pw + px) * 3;
        const r0 = page[i]!;
        const g0 = page[i + 1]!;
        const b0 = page[i + 2]!;
        const grey = 0.299 * r0 + 0.587 * g0 + 0.114 * b0;
        if (kind === 'grey') {
          const cover = 1 - tone(grey); // share of the cell the toner covers
          const inked = dither ? rng.next() < cover : dot(screens[0]!, px, py) < cover;
          if (inked) [r, g, b] = inks[0] as [number, number, number];
        } else {
          // Faded colours, then one dot screen per ink (subtractive: each ink removes its complement).
          const rgb = [r0, g0, b0].map((c) => tone(grey + (c - grey) * saturation) * 255);
          const out = [r, g, b];
          for (let k = 0; k < 3; k++) {
            const cover = 1 - rgb[k]! / 255; // cyan covers where red is missing, and so on
            if (dot(screens[k]!, px, py) < cover) for (let c = 0; c < 3; c++) out[c] = (out[c]! * inks[k]![c]!) / 255;
          }
          [r, g, b] = out as [number, number, number];
        }
      }
      sheet[o] = r;
      sheet[o + 1] = g;
      sheet[o + 2] = b;
    }
  }
  return degradeCard(opaqueRgba({ data: sheet, width: sw, height: sh }), rng, { outputWidth: options.outputWidth ?? 1600 });
}

/**
 * The threshold of a clustered-dot screen at a print pixel: 0 at a dot's centre, rising to 1 at its
 * corners, on a grid turned by the screen's angle. A pixel is inked when its threshold is below
 * the share the ink must cover, so dots grow with darkness.
 */
function dot(screen: { c: number; s: number }, x: number, y: number): number {
  const u = x * screen.c + y * screen.s;
  const v = -x * screen.s + y * screen.c;
  const fu = u - Math.floor(u) - 0.5;
  const fv = v - Math.floor(v) - 0.5;
  return Math.min(1, (fu * fu + fv * fv) * 2);
}
