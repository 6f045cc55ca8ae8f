import type { DocumentFields } from '../types.ts';
import type { Rng } from './rng.ts';

/**
 * The SVG of a flat document in millimetres (rendered by sharp): tinted card, guilloche, labels and
 * values in DejaVu Sans, the portrait, and the MRZ in OCR-B on ICAO's grid. A TD1 card carries its
 * MRZ on the same face here, so one image holds everything; TD3 is a passport data page.
 */
interface CardGeometry {
  widthMm: number;
  heightMm: number;
  pxPerMm: number;
}

const CARD_GEOMETRY: Record<'TD1' | 'TD3', CardGeometry> = {
  TD1: { widthMm: 85.6, heightMm: 54, pxPerMm: 16 },
  TD3: { widthMm: 125, heightMm: 88, pxPerMm: 11.2 },
};

/** ICAO 9303: OCR-B size 1, 10 characters per inch. */
const MRZ_PITCH_MM = 2.54;

/** Where the portrait is printed on each format (mm from the card's top-left corner). */
export const PORTRAIT_MM: Record<'TD1' | 'TD3', { x: number; y: number; width: number; height: number }> = {
  TD1: { x: 4, y: 8, width: 20, height: 26 },
  TD3: { x: 6, y: 13, width: 32, height: 42 },
};

/** The card's size in pixels as rendered, and its pixels per millimetre. */
export function cardPixels(format: 'TD1' | 'TD3'): { width: number; height: number; pxPerMm: number } {
  const g = CARD_GEOMETRY[format];
  return { width: Math.round(g.widthMm * g.pxPerMm), height: Math.round(g.heightMm * g.pxPerMm), pxPerMm: g.pxPerMm };
}
const MRZ_FONT_MM = 3.4;

export interface CardContent {
  format: 'TD1' | 'TD3';
  fields: DocumentFields;
  lines: string[];
  portraitDataUri: string;
}

export function cardSvg(content: CardContent, rng: Rng): string {
  const g = CARD_GEOMETRY[content.format];
  const { widthMm: W, heightMm: H } = g;
  const hue = rng.int(360);
  const td1 = content.format === 'TD1';
  const f = content.fields;
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.round(W * g.pxPerMm)}" height="${Math.round(H * g.pxPerMm)}" viewBox="0 0 ${W} ${H}">`,
    `<defs><linearGradient id="bg" x1="0" y1="0" x2="1" y2="1">`,
    `<stop offset="0" stop-color="hsl(${hue},45%,90%)"/><stop offset="1" stop-color="hsl(${(hue + 40) % 360},40%,84%)"/>`,
    `</linearGradient><clipPath id="card"><rect width="${W}" height="${H}" rx="${td1 ? 3.2 : 1}"/></clipPath></defs>`,
    // Everything is clipped to the card's outline (rounded on ID-1 cards): outside is transparent.
    `<g clip-path="url(#card)">`,
    `<rect width="${W}" height="${H}" fill="url(#bg)"/>`,
    guilloche(W, H, hue, rng),
  );
  const label = (x: number, y: number, text: string) =>
    `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-size="${td1 ? 1.35 : 1.9}" fill="hsl(${hue},35%,30%)">${esc(text)}</text>`;
  const value = (x: number, y: number, text: string, maxWidth: number) => {
    const size = td1 ? 2.3 : 3.2;
    // DejaVu Sans averages about 0.62 em per upper-case letter: squeeze only what would overflow.
    const fit = text.length * size * 0.66 > maxWidth ? ` textLength="${maxWidth}" lengthAdjust="spacingAndGlyphs"` : '';
    return `<text x="${x}" y="${y}" font-family="DejaVu Sans" font-weight="bold" font-size="${size}" fill="#1a1a1a"${fit}>${esc(text)}</text>`;
  };
  const rows: Array<[string, string]> = [
    ['Surname / Nom', (f.surname ?? '').toUpperCase()],
    ['Given names / Prénoms', (f.given_names ?? '').toUpperCase()],
    ['Nationality / Nationalité', f.nationality ?? ''],
    ['Date of birth / Date de naissance', printedDate(f.birth_date)],
    ['Date of expiry / Date d\'expiration', printedDate(f.expiry_date)],
  ];
  if (td1) {
    parts.push(`<text x="4" y="5.6" font-family="DejaVu Sans" font-weight="bold" font-size="2.6" fill="hsl(${hue},50%,25%)">IDENTITY CARD · ${esc(f.issuing_country ?? '')}</text>`);
    parts.push(portrait(content.portraitDataUri, PORTRAIT_MM.TD1.x, PORTRAIT_MM.TD1.y, PORTRAIT_MM.TD1.width, PORTRAIT_MM.TD1.height));
    const x = 27;
    rows.forEach(([l, v], i) => {
      const y = 9.6 + i * 5.4;
      parts.push(label(x, y, l), value(x, y + 2.8, v, 85.6 - x - 3));
    });
    parts.push(label(62, 20.4, 'Sex / Sexe'), value(62, 23.2, f.sex ?? 'X', 10));
    parts.push(label(62, 31.2, 'Document No.'), value(62, 34, f.document_number ?? '', 21));
  } else {
    parts.push(`<text x="6" y="7.5" font-family="DejaVu Sans" font-weight="bold" font-size="3.6" fill="hsl(${hue},50%,25%)">PASSPORT / PASSEPORT</text>`);
    parts.push(label(80, 6, 'Code'), value(80, 9.6, f.issuing_country ?? '', 15));
    parts.push(label(96, 6, 'Passport No.'), value(96, 9.6, f.document_number ?? '', 26));
    parts.push(portrait(content.portraitDataUri, PORTRAIT_MM.TD3.x, PORTRAIT_MM.TD3.y, PORTRAIT_MM.TD3.width, PORTRAIT_MM.TD3.height));
    const x = 44;
    rows.forEach(([l, v], i) => {
      const y = 15.5 + i * 8.2;
      parts.push(label(x, y, l), value(x, y + 3.9, v, 125 - x - 5));
    });
    parts.push(label(96, 32.1, 'Sex / Sexe'), value(96, 36, f.sex ?? 'X', 10));
  }
  parts.push(mrz(content.lines, W, H, td1));
  parts.push('</g></svg>');
  return parts.join('');
}

/** Where the MRZ lines sit on the card, in millimetres: the first baseline, line gap, left edge. */
function mrzPlacement(lineCount: number, lineLength: number, W: number, H: number, td1: boolean) {
  const lineGap = td1 ? 4.3 : 5.2;
  const x0 = (W - lineLength * MRZ_PITCH_MM) / 2;
  const bottom = H - (td1 ? 3.4 : 5.2);
  return { x0, lineGap, top: bottom - (lineCount - 1) * lineGap, bottom };
}

/**
 * The box around the MRZ characters on the flat card, in card pixels (cap height above the first
 * baseline down to just under the last): ground truth for locating and reading the zone.
 */
export function mrzBoxPx(format: 'TD1' | 'TD3', lineCount: number, lineLength: number): { x: number; y: number; width: number; height: number } {
  const g = CARD_GEOMETRY[format];
  const p = mrzPlacement(lineCount, lineLength, g.widthMm, g.heightMm, format === 'TD1');
  const k = g.pxPerMm;
  const capHeight = MRZ_FONT_MM * 0.72;
  const y = p.top - capHeight - 0.4;
  return { x: Math.round((p.x0 - 0.4) * k), y: Math.round(y * k), width: Math.round((lineLength * MRZ_PITCH_MM + 0.8) * k), height: Math.round((p.bottom + 0.8 - y) * k) };
}

function mrz(lines: string[], W: number, H: number, td1: boolean): string {
  const { x0, lineGap, top } = mrzPlacement(lines.length, lines[0]!.length, W, H, td1);
  // A light band behind the MRZ, as on most documents, keeps the pattern out of the OCR zone.
  const band = `<rect x="0" y="${top - MRZ_FONT_MM - 2}" width="${W}" height="${H - top + MRZ_FONT_MM + 2}" fill="#ffffff" fill-opacity="0.55"/>`;
  // One element per character: librsvg ignores per-glyph x lists, and the grid must be exact.
  const text = lines.flatMap((line, i) =>
    Array.from(line, (ch, k) => `<text x="${(x0 + k * MRZ_PITCH_MM).toFixed(3)}" y="${(top + i * lineGap).toFixed(3)}">${esc(ch)}</text>`),
  );
  return `${band}<g font-family="OCR B" font-size="${MRZ_FONT_MM}" fill="#111">${text.join('')}</g>`;
}

function portrait(uri: string, x: number, y: number, w: number, h: number): string {
  return `<image href="${uri}" x="${x}" y="${y}" width="${w}" height="${h}" preserveAspectRatio="xMidYMid slice" opacity="0.92"/>`;
}

/** Fine sine curves in the card's hue: the security background printers put behind the data. */
function guilloche(W: number, H: number, hue: number, rng: Rng): string {
  const out: string[] = [];
  const waves = 14 + rng.int(10);
  const freq = rng.range(0.08, 0.2);
  const amp = rng.range(1.5, 4);
  for (let k = 0; k < waves; k++) {
    const y0 = (k / waves) * H;
    const phase = rng.range(0, Math.PI * 2);
    let d = `M0 ${y0.toFixed(2)}`;
    for (let x = 1; x <= W; x += 1) d += ` L${x} ${(y0 + amp * Math.sin(x * freq + phase + k * 0.4)).toFixed(2)}`;
    out.push(`<path d="${d}" fill="none" stroke="hsl(${(hue + 180) % 360},35%,65%)" stroke-width="0.12" stroke-opacity="0.55"/>`);
  }
  out.push(`<circle cx="${(W * 0.72).toFixed(1)}" cy="${(H * 0.45).toFixed(1)}" r="${(H * 0.28).toFixed(1)}" fill="none" stroke="hsl(${hue},30%,70%)" stroke-width="0.6" stroke-opacity="0.5"/>`);
  return out.join('');
}

/** Dates as printed in the visual zone: `DD.MM.YYYY`. */
function printedDate(iso: string | undefined): string {
  if (!iso) return '';
  const [y, m, d] = iso.split('-');
  return `${d}.${m}.${y}`;
}

function esc(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/'/g, '&apos;').replace(/"/g, '&quot;');
}
