import { createRng } from '../rng.ts';
import { photograph, placeSurface, selfieFrame, type CameraDraw } from './rig.ts';
import { faceInResized, resizeSource, type Source } from './source.ts';

/**
 * A bona fide photo printed on paper and held to the camera. The printer: the photo's gamut
 * narrowed, then either an offset/laser halftone (cyan, magenta, yellow and black dots on their
 * classic screen angles, each dot's area the ink's coverage) or an inkjet's stochastic dither
 * (ink drops where the coverage beats a random threshold), on paper of a slightly warm or grey
 * tone with a fibre texture, a white margin around the photo. Held by hand: bent (the paper's
 * curve and the light falling across it), turned and slanted.
 */
export interface PrintParams {
  mode: 'halftone' | 'inkjet';
  /** Halftone cell, or inkjet dither cell, in output pixels. */
  period: number;
  /** Inkjet: the dither's grain, as a share of the coverage. */
  grain: number;
  chroma: number;
  paper: number[];
  margin: number;
  bend: number;
  faceHeightFraction: number;
  glare: number;
}

const ANGLES = [15, 75, 0, 45].map((d) => (d * Math.PI) / 180); // C, M, Y, K

export async function printAttack(full: Source, seed: number): Promise<{ image: Buffer; params: PrintParams; camera: CameraDraw }> {
  const rng = createRng(seed);
  const frame = selfieFrame(rng);
  // A printed head-and-shoulders photo: the source cut to about three face heights around the face.
  const src = headAndShoulders(full);
  const tone = rng.range(0.86, 0.97);
  const p: PrintParams = {
    mode: rng.next() < 0.5 ? 'halftone' : 'inkjet',
    period: 0,
    grain: 0,
    chroma: rng.range(0.6, 0.9),
    paper: [tone * rng.range(0.98, 1.02), tone, tone * rng.range(0.9, 1.0)],
    margin: rng.next() < 0.5 ? rng.range(0.02, 0.08) : 0,
    bend: rng.range(-0.06, 0.06),
    faceHeightFraction: rng.range(0.3, 0.55),
    glare: rng.next() < 0.3 ? rng.range(0.05, 0.25) : 0,
  };
  p.period = p.mode === 'halftone' ? rng.range(1.6, 4.5) : rng.range(0.7, 1.6);
  p.grain = p.mode === 'inkjet' ? rng.range(0.15, 0.5) : 0;
  // The print is rendered at about the resolution the camera sees it (one surface unit ≈ one output pixel).
  const printH = Math.max(160, Math.min(2400, Math.round((frame.height * p.faceHeightFraction * src.height) / Math.max(1, src.face.height))));
  const printW = Math.max(120, Math.round((printH * src.width) / src.height));
  const shown = await resizeSource(src, printW, printH);
  const m = Math.round(p.margin * printW);
  const sw = printW + 2 * m;
  const sh = printH + 2 * m;
  // Per print pixel, once: the four inks' coverages and the paper's fibre texture.
  const fibre = fibreTexture(rng);
  const kShare = rng.range(0.4, 0.9);
  const inks = new Float32Array(sw * sh * 4);
  const paperTex = new Float32Array(sw * sh);
  for (let y = 0; y < sh; y++) {
    for (let x = 0; x < sw; x++) {
      const j = y * sw + x;
      paperTex[j] = 1 + 0.035 * fibre(x, y);
      const dx = x - m;
      const dy = y - m;
      if (dx < 0 || dy < 0 || dx >= printW || dy >= printH) continue;
      const i = (dy * printW + dx) * 3;
      const l = 0.299 * shown[i]! + 0.587 * shown[i + 1]! + 0.114 * shown[i + 2]!;
      const r = Math.min(1, Math.max(0, (l + (shown[i]! - l) * p.chroma) / 255));
      const g = Math.min(1, Math.max(0, (l + (shown[i + 1]! - l) * p.chroma) / 255));
      const b = Math.min(1, Math.max(0, (l + (shown[i + 2]! - l) * p.chroma) / 255));
      const k = Math.min(1 - r, 1 - g, 1 - b) * kShare;
      inks[j * 4] = (1 - r - k) / (1 - k + 1e-6);
      inks[j * 4 + 1] = (1 - g - k) / (1 - k + 1e-6);
      inks[j * 4 + 2] = (1 - b - k) / (1 - k + 1e-6);
      inks[j * 4 + 3] = k;
    }
  }
  const cos = ANGLES.map(Math.cos);
  const sin = ANGLES.map(Math.sin);
  const paper = p.paper.map((t) => 255 * t);
  const surface = (u: number, v: number, out: Float64Array) => {
    const j = (v | 0) * sw + (u | 0);
    let r = paper[0]!, g = paper[1]!, b = paper[2]!;
    for (let n = 0; n < 4; n++) {
      const ink = inkAt(p, inks[j * 4 + n]!, u, v, cos[n]!, sin[n]!, n);
      if (ink <= 0) continue;
      // Each ink absorbs its complementary primary (black all three), not perfectly.
      if (n === 0) r *= 1 - 0.88 * ink;
      else if (n === 1) g *= 1 - 0.85 * ink;
      else if (n === 2) b *= 1 - 0.8 * ink;
      else (r *= 1 - 0.9 * ink), (g *= 1 - 0.9 * ink), (b *= 1 - 0.9 * ink);
    }
    const t = paperTex[j]!;
    out[0] = r * t;
    out[1] = g * t;
    out[2] = b * t;
    return true;
  };
  const face = faceInResized(src, printW, printH);
  const corners = placeSurface(rng, frame, { width: sw, height: sh }, { cx: face.cx + m, cy: face.cy + m, height: face.height }, p.faceHeightFraction, 15, 0.08);
  const shadeAmp = rng.range(0, 0.25);
  const shadeAt = rng.range(0.2, 0.8) * frame.width;
  const { image, camera } = await photograph(
    surface,
    {
      ...frame,
      corners,
      surfaceWidth: sw,
      surfaceHeight: sh,
      blur: rng.range(0.3, 1.0),
      bend: p.bend,
      shade: (x) => 1 - shadeAmp * ((x - shadeAt) / frame.width) ** 2 * 4,
      glare: p.glare ? { x: rng.range(0.2, 0.8) * frame.width, y: rng.range(0.2, 0.7) * frame.height, r: rng.range(0.1, 0.3) * frame.width, s: p.glare } : undefined,
    },
    rng,
  );
  return { image, params: p, camera };
}

/**
 * How much of ink `n` covers the paper at (u, v), 0..1. Halftone: all or nothing, by the dot's
 * shape. Inkjet: drops far finer than a camera pixel, so what the camera sees is the coverage
 * with a grain of its drop cells (the dither's residue), not single drops.
 */
function inkAt(p: PrintParams, coverage: number, u: number, v: number, cos: number, sin: number, n: number): number {
  if (coverage <= 0.01) return 0;
  if (p.mode === 'inkjet') return Math.min(1, coverage * (1 + p.grain * (2 * hash01(Math.floor(u / p.period), Math.floor(v / p.period), n) - 1)));
  // Halftone: a cosine spot function over the rotated cell, 1 at its centre and 0 at its corners;
  // the ink covers where the spot exceeds 1 − coverage (a round dot that grows into a chequer).
  const a = (u * cos + v * sin) / p.period;
  const b = (-u * sin + v * cos) / p.period;
  const spot = 0.5 + 0.25 * (cosTurn(a) + cosTurn(b));
  return spot > 1 - coverage ? 1 : 0;
}

const COS_STEPS = 1024;
const COS = Float64Array.from({ length: COS_STEPS }, (_, i) => Math.cos((2 * Math.PI * i) / COS_STEPS));
/** cos(2π t) from a table (the halftone evaluates it tens of millions of times per print). */
const cosTurn = (t: number) => COS[Math.floor((t - Math.floor(t)) * COS_STEPS) & (COS_STEPS - 1)]!;

/** A deterministic hash of integer coordinates to [0, 1). */
function hash01(x: number, y: number, n: number): number {
  let h = Math.imul(x | 0, 374761393) ^ Math.imul(y | 0, 668265263) ^ Math.imul(n + 1, 2246822519);
  h = Math.imul(h ^ (h >>> 13), 1274126177);
  return ((h ^ (h >>> 16)) >>> 0) / 4294967296;
}

/** Paper fibres: smooth value noise at a few print pixels' scale, −1..1. */
function fibreTexture(rng: { next(): number }): (u: number, v: number) => number {
  const salt = Math.floor(rng.next() * 1e6);
  const scale = 3 + rng.next() * 4;
  return (u, v) => {
    const x = u / scale, y = v / scale;
    const x0 = Math.floor(x), y0 = Math.floor(y);
    const fx = x - x0, fy = y - y0;
    const at = (i: number, j: number) => hash01(i + salt, j, 7);
    const top = at(x0, y0) + (at(x0 + 1, y0) - at(x0, y0)) * fx;
    const bottom = at(x0, y0 + 1) + (at(x0 + 1, y0 + 1) - at(x0, y0 + 1)) * fx;
    return 2 * (top + (bottom - top) * fy) - 1;
  };
}

/** The source cut to a 3:4 window about three face heights tall around the face (the whole photo when smaller). */
function headAndShoulders(src: Source): Source {
  const h = Math.min(src.height, src.face.height * 3);
  const w = Math.min(src.width, h * 0.75);
  const left = Math.round(Math.max(0, Math.min(src.width - w, src.face.x + src.face.width / 2 - w / 2)));
  const top = Math.round(Math.max(0, Math.min(src.height - h, src.face.y + src.face.height / 2 - h * 0.45)));
  const W = Math.round(w), H = Math.round(h);
  if (W >= src.width && H >= src.height) return src;
  const data = new Uint8Array(W * H * 3);
  for (let y = 0; y < H; y++) data.set(src.data.subarray(((top + y) * src.width + left) * 3, ((top + y) * src.width + left + W) * 3), y * W * 3);
  return { data, width: W, height: H, face: { ...src.face, x: src.face.x - left, y: src.face.y - top } };
}
