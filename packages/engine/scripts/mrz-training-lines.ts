/**
 * MRZ-like lines rendered with the OCR-B font and degraded like phone photos, for train-mrz.ts.
 */
import sharp from 'sharp';
import type { GreyImage } from '../src/mrz/segment.ts';

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

/** One degraded line image (grey), its text, rendered loose (paper and neighbours around it). */
export async function renderLine(text: string, r: () => number): Promise<GreyImage> {
  const font = 48; // rendered large, then scaled down to the target size
  // Printers and scanners stretch or condense the glyphs themselves (0.8 to 1.35 of OCR-B's
  // width), independently of the pitch.
  const glyphX = 0.8 + r() * 0.55;
  // OCR-B advance is 0.723 em and its cap height 0.71 em; MRZs print from 0.85 to 1.45 cap
  // heights apart (2.54 mm pitch on ICAO documents, tighter on some scans), never tighter than
  // the glyphs themselves.
  const pitchEm = Math.max(0.723 * glyphX * 0.92, 0.71 * (0.85 + r() * 0.6));
  // Letter spacing is in the text's own (unstretched) units.
  const letterSpacing = (pitchEm / glyphX - 0.723) * font;
  // Tight crops (line datasets cut at the ink) and loose ones (a located line with paper around).
  const tight = r() < 0.4;
  const x = tight ? font * r() * 0.15 : font * (0.2 + r() * 0.4);
  const width = Math.round(x + text.length * pitchEm * font + (tight ? font * r() * 0.15 : font * (0.4 + r() * 0.6)));
  const height = Math.round(tight ? font * (0.78 + r() * 0.25) : font * (1.9 + r() * 0.8));
  const baseline = tight ? (height + font * 0.71) / 2 + (r() - 0.5) * font * 0.06 : height / 2 + font * 0.36 + (r() - 0.5) * font * 0.2;
  const ink = grey(r, 0, 110);
  // Thicker strokes: an outline in ink; thinner strokes: an outline in paper colour (it eats
  // into the glyph), as over- and under-inked prints give.
  const thick = r();
  const stroke = thick < 0.45 ? (r() * 0.07 * font).toFixed(2) : thick < 0.7 ? (r() * 0.035 * font).toFixed(2) : '0';
  const strokeColour = thick < 0.45 ? ink : grey(r, 200, 250);
  const family = r() < 0.25 ? 'OCR B S' : 'OCR B';
  const angle = ((r() - 0.5) * (tight ? 0.8 : 2.4)).toFixed(2);
  const skew = ((r() - 0.5) * 6).toFixed(2);
  // Background: tinted paper, a gradient (uneven light), faint guilloche-like curves.
  let pattern = '';
  const curves = Math.floor(r() * 6);
  for (let i = 0; i < curves; i++) {
    const y0 = r() * height;
    pattern += `<path d="M0 ${y0.toFixed(1)} Q ${(width / 2).toFixed(1)} ${(r() * height).toFixed(1)} ${width} ${(r() * height).toFixed(1)}" stroke="${grey(r, 120, 230)}" stroke-width="${(1 + r() * 3).toFixed(1)}" fill="none" opacity="${(0.2 + r() * 0.5).toFixed(2)}"/>`;
  }
  const textAt = (y: number, t: string, extra: string) =>
    `<g transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${glyphX.toFixed(3)} 1)"><text x="0" y="0" font-family="${family}" font-size="${font}" letter-spacing="${letterSpacing.toFixed(2)}" fill="${ink}"${extra}>${t.replace(/</g, '&lt;')}</text></g>`;
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
