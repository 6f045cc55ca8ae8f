/**
 * MRZ-like lines rendered with the OCR-B font and degraded like phone photos, for train-mrz.ts.
 */
import { execFileSync } from 'node:child_process';
import sharp from 'sharp';
import type { GreyImage } from '../src/mrz/segment.ts';

/**
 * Stops with a clear message when a face is missing: librsvg would silently draw another one
 * and the model would learn the wrong glyphs.
 */
export function requireFonts(): void {
  const families = execFileSync('fc-list', [':', 'family'], { encoding: 'utf8' });
  const missing = ['OCR B', 'OCR B S', ...OTHER_FACES].filter((f) => !families.split(/[\n,]/).some((l) => l.trim() === f));
  if (missing.length > 0) {
    throw new Error(`fonts missing: ${missing.join(', ')} (apt-get install fonts-ocr-b fonts-dejavu-core fonts-liberation)`);
  }
}

/** mulberry32: small, seeded, good enough for augmentation. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const LETTERS = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
/** Sans faces of Debian's fonts-dejavu-core and fonts-liberation, beside OCR-B. */
const OTHER_FACES = ['DejaVu Sans', 'DejaVu Sans Condensed', 'Liberation Sans', 'Liberation Sans Narrow'];
const DIGITS = '0123456789';

/** An MRZ-like line: runs of letters, digits and `<` fillers, as names, numbers and dates make. */
export function randomLine(r: () => number, length: number): string {
  let s = r() < 0.3 ? (r() < 0.5 ? 'P<' : 'I<') : '';
  while (s.length < length) {
    const kind = r();
    if (kind < 0.45) {
      const n = 1 + Math.floor(r() * 10);
      for (let i = 0; i < n; i++) s += LETTERS[Math.floor(r() * 26)];
    } else if (kind < 0.75) {
      const n = 1 + Math.floor(r() * 9);
      for (let i = 0; i < n; i++) s += DIGITS[Math.floor(r() * 10)];
    } else {
      const n = r() < 0.6 ? 1 + Math.floor(r() * 2) : 1 + Math.floor(r() * 14);
      s += '<'.repeat(n);
    }
  }
  return s.slice(0, length);
}

function grey(r: () => number, lo: number, hi: number): string {
  const v = Math.round(lo + r() * (hi - lo));
  const tint = () => Math.max(0, Math.min(255, v + Math.round((r() - 0.5) * 40)));
  return `rgb(${tint()},${tint()},${tint()})`;
}

/** Grey morphology by one pixel (3×3 min or max): thinner or bolder strokes after scaling. */
function morph(data: Uint8Array, width: number, height: number, bolder: boolean): Uint8Array {
  const out = new Uint8Array(data.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let v = data[y * width + x]!;
      for (let dy = -1; dy <= 1; dy++) {
        const yy = y + dy;
        if (yy < 0 || yy >= height) continue;
        for (let dx = -1; dx <= 1; dx++) {
          const xx = x + dx;
          if (xx < 0 || xx >= width) continue;
          const w = data[yy * width + xx]!;
          v = bolder ? Math.min(v, w) : Math.max(v, w);
        }
      }
      out[y * width + x] = v;
    }
  }
  return out;
}

/**
 * Options beside the defaults train-mrz.ts uses (left out, the same seed draws the same lines):
 * `tightShare`, the share of lines cut tight at the ink (default 0.4); `perspective`, the share of
 * lines seen at a slant, their glyphs and pitch growing or shrinking steadily along the line, up
 * to ±`perspectiveAmount` (default 0.2) at either end (default none).
 */
export interface RenderOptions {
  tightShare?: number;
  perspective?: number;
  perspectiveAmount?: number;
}

/** One degraded line image (grey), its text, rendered loose (paper and neighbours around it). */
export async function renderLine(text: string, r: () => number, opts: RenderOptions = {}): Promise<GreyImage> {
  const font = 48; // rendered large, then scaled down to the target size
  // Pitch in cap heights: real MRZ prints measure 0.7 to 1.45 (most 0.85 to 1.1: the ICAO pitch
  // of 2.54 mm with capitals a little under it; scans and condensed printers go tighter).
  const band = r();
  const pitchCaps = band < 0.5 ? 0.82 + r() * 0.28 : band < 0.75 ? 0.68 + r() * 0.14 : 1.1 + r() * 0.35;
  const pitchEm = 0.71 * pitchCaps;
  // Printers and scanners stretch or condense the glyphs themselves, apart from the pitch, but
  // never so wide that neighbours touch (OCR-B glyphs are about 0.6 em wide).
  const glyphX = 0.75 + r() * (Math.max(0.8, Math.min(1.3, pitchEm / 0.6)) - 0.75);
  // Mostly OCR-B (its normal and sharp cuts); some lines in other sans faces, as MRZs printed by
  // cheaper printers come, so the classifier learns the characters rather than one drawing.
  const face = r();
  const family = face < 0.66 ? 'OCR B' : face < 0.88 ? 'OCR B S' : OTHER_FACES[Math.floor(r() * OTHER_FACES.length)]!;
  // Tight crops (line datasets cut at the ink) and loose ones (a located line with paper around).
  const tight = r() < (opts.tightShare ?? 0.4);
  const x = tight ? font * r() * 0.15 : font * (0.2 + r() * 0.4);
  // The first glyph's left edge lies about (pitch - glyph width) / 2 inside its cell.
  const width = Math.round(x + text.length * pitchEm * font + (tight ? font * r() * 0.15 : font * (0.4 + r() * 0.6)));
  const height = Math.round(tight ? font * (0.78 + r() * 0.25) : font * (1.9 + r() * 0.8));
  const baseline = tight ? (height + font * 0.71) / 2 + (r() - 0.5) * font * 0.06 : height / 2 + font * 0.36 + (r() - 0.5) * font * 0.2;
  const ink = grey(r, 0, 110);
  // Thicker strokes: an outline in ink; thinner strokes: an outline in paper colour (it eats
  // into the glyph), as over- and under-inked prints give.
  const thick = r();
  const stroke = thick < 0.45 ? (r() * 0.07 * font).toFixed(2) : thick < 0.7 ? (r() * 0.035 * font).toFixed(2) : '0';
  const strokeColour = thick < 0.45 ? ink : grey(r, 200, 250);
  const weight = !family.startsWith('OCR B') && r() < 0.6 ? ' font-weight="bold"' : '';
  const angle = ((r() - 0.5) * (tight ? 0.8 : 2.4)).toFixed(2);
  const skew = ((r() - 0.5) * 6).toFixed(2);
  // Background: tinted paper, a gradient (uneven light), faint guilloche-like curves.
  let pattern = '';
  const curves = Math.floor(r() * 6);
  for (let i = 0; i < curves; i++) {
    const y0 = r() * height;
    pattern += `<path d="M0 ${y0.toFixed(1)} Q ${(width / 2).toFixed(1)} ${(r() * height).toFixed(1)} ${width} ${(r() * height).toFixed(1)}" stroke="${grey(r, 120, 230)}" stroke-width="${(1 + r() * 3).toFixed(1)}" fill="none" opacity="${(0.2 + r() * 0.5).toFixed(2)}"/>`;
  }
  // Each glyph centred in its own cell of the monospaced grid (proportional faces too). Fillers
  // are OCR-B's chevrons whatever the face: a `<` of a text face is not an MRZ filler.
  const cell = (pitchEm * font) / glyphX;
  // A slanted view: glyph k drawn at scale 1 + slant × (2k / (n - 1) - 1), its cell as wide; the
  // scales average 1, so the line keeps its length.
  const slant = opts.perspective && r() < opts.perspective ? (r() * 2 - 1) * (opts.perspectiveAmount ?? 0.2) : 0;
  const textAt = (y: number, t: string, extra: string) => {
    let glyphs = '';
    let at = 0;
    for (let k = 0; k < t.length; k++) {
      const ch = t[k]!;
      const f = ch === '<' && !family.startsWith('OCR B') ? 'OCR B' : family;
      const g = slant === 0 || t.length < 2 ? 1 : 1 + slant * ((2 * k) / (t.length - 1) - 1);
      const size = g === 1 ? '' : ` font-size="${(font * g).toFixed(1)}"`;
      glyphs += `<text x="${(slant === 0 ? (k + 0.5) * cell : at + 0.5 * g * cell).toFixed(1)}" y="0" text-anchor="middle" font-family="${f}"${size}${f === family ? weight : ''}>${ch === '<' ? '&lt;' : ch}</text>`;
      at += g * cell;
    }
    return `<g transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${glyphX.toFixed(3)} 1)" font-size="${font}" fill="${ink}"${extra}>${glyphs}</g>`;
  };
  // Parts of the neighbouring MRZ lines, as a loose crop would hold.
  const neighbour = (dy: number) => textAt(baseline + dy, randomLine(r, text.length), '');
  const above = !tight && r() < 0.3 ? neighbour(-font * (1.45 + r() * 0.5)) : '';
  const below = !tight && r() < 0.3 ? neighbour(font * (1.45 + r() * 0.5)) : '';
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}">
<defs><linearGradient id="g" x1="0" y1="0" x2="1" y2="${r().toFixed(2)}"><stop offset="0" stop-color="${grey(r, 150, 255)}"/><stop offset="1" stop-color="${grey(r, 150, 255)}"/></linearGradient></defs>
<rect width="100%" height="100%" fill="url(#g)"/>${pattern}
<g transform="rotate(${angle} ${width / 2} ${height / 2}) skewX(${skew})">${above}${below}
${textAt(baseline, text, ` stroke="${strokeColour}" stroke-width="${stroke}"`)}</g></svg>`;

  // Target cap height 9–36 px (phone photos of a whole document give 10–30). Low-resolution scans
  // are often enlarged afterwards with blocky edges: rendered small, then scaled up.
  const blocky = r() < 0.25 ? 2 + Math.floor(r() * 3) : 1;
  const capHeight = blocky > 1 ? 8 + r() * 8 : 9 + r() * r() * 27;
  const scale = capHeight / (font * 0.71);
  let tw = Math.max(text.length * 3, Math.round(width * scale));
  let th = Math.max(8, Math.round(height * scale));
  let img = sharp(Buffer.from(svg)).greyscale();
  const blur = r() * r() * 2.2 * font * 0.02;
  if (blur >= 0.3 && blocky === 1) img = img.blur(blur);
  let raw: Uint8Array = new Uint8Array(await img.resize(tw, th, { fit: 'fill', kernel: r() < 0.5 ? 'cubic' : 'linear' }).raw().toBuffer());
  if (blocky > 1) {
    // Binarised at the low resolution (a fax-like scan), then enlarged pixel by pixel.
    if (r() < 0.7) binarise(raw, 0.65 + r() * 0.3);
    const up = await sharp(raw, { raw: { width: tw, height: th, channels: 1 } })
      .resize(tw * blocky, th * blocky, { kernel: r() < 0.6 ? 'nearest' : 'linear' })
      .toColourspace('b-w')
      .raw()
      .toBuffer();
    raw = new Uint8Array(up);
    tw *= blocky;
    th *= blocky;
  }
  // Ink bleed or starved ink after printing, at the final resolution.
  const m = r();
  if (capHeight * blocky >= 12 && m < 0.2) raw = morph(raw, tw, th, m < 0.12);
  // Sensor noise, then JPEG.
  const noise = r() * r() * 18;
  const data = new Uint8Array(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const n = noise * (r() + r() + r() - 1.5) * 1.4;
    data[i] = Math.max(0, Math.min(255, Math.round(raw[i]! + n)));
  }
  let out = data;
  if (r() < 0.2) {
    // Scanned and binarised documents, at a threshold that thins or thickens the strokes.
    binarise(data, 0.6 + r() * 0.35);
  } else if (r() < 0.7) {
    const jpeg = await sharp(data, { raw: { width: tw, height: th, channels: 1 } })
      .jpeg({ quality: Math.round(30 + r() * 60) })
      .toBuffer();
    out = new Uint8Array(await sharp(jpeg).greyscale().raw().toBuffer());
  }
  return { data: out, width: tw, height: th };
}

/** Black below `level` × the mean grey, white above, in place. */
function binarise(data: Uint8Array, level: number): void {
  let mean = 0;
  for (const v of data) mean += v;
  mean /= data.length;
  for (let i = 0; i < data.length; i++) data[i] = data[i]! < mean * level ? 0 : 255;
}
