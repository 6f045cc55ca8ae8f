import sharp from 'sharp';
import { homography, type Point } from './homography.ts';
import type { Rng } from './rng.ts';

/**
 * Makes a flat card look like a phone photo of it: the card lies on a textured background, seen a
 * little askew (rotation and perspective), under uneven light with a glare spot, then the camera
 * blurs, adds sensor noise and compresses to JPEG. Every draw comes from the seeded generator.
 * Ranges are deliberately moderate: a document an honest person would photograph, not an attack.
 */
export interface DegradeOptions {
  /** Width of the photo in pixels (height is 3/4 of it). */
  outputWidth?: number;
  /** Card width as a fraction of the photo width. */
  cardWidthFraction?: [number, number];
  maxRotationDeg?: number;
  /** Largest shift of each corner, as a fraction of the card width (perspective). */
  maxPerspective?: number;
  blurSigma?: [number, number];
  /** Largest glare strength (0 none, 1 white at its centre). */
  maxGlare?: number;
  noiseSigma?: [number, number];
  jpegQuality?: [number, number];
}

const DEFAULTS: Required<DegradeOptions> = {
  outputWidth: 1600,
  cardWidthFraction: [0.72, 0.88],
  maxRotationDeg: 4,
  maxPerspective: 0.035,
  blurSigma: [0.3, 1.1],
  maxGlare: 0.55,
  noiseSigma: [1.5, 6],
  jpegQuality: [60, 90],
};

export interface DegradedPhoto {
  image: Buffer;
  width: number;
  height: number;
  /** Bounding box of the card in the photo. */
  documentBox: { x: number; y: number; width: number; height: number };
  /** The card's corners in the photo: top-left, top-right, bottom-right, bottom-left. */
  documentCorners: Point[];
}

export async function degradeCard(card: { data: Buffer; width: number; height: number }, rng: Rng, options: DegradeOptions = {}): Promise<DegradedPhoto> {
  const o = { ...DEFAULTS, ...options };
  const W = o.outputWidth;
  const H = Math.round(W * 0.75);
  const { width: cw, height: ch, data: src } = card;

  // Where the card's corners land in the photo.
  const scale = (rng.range(...o.cardWidthFraction) * W) / cw;
  const angle = (rng.range(-1, 1) * o.maxRotationDeg * Math.PI) / 180;
  const cx = W / 2 + rng.range(-0.04, 0.04) * W;
  const cy = H / 2 + rng.range(-0.04, 0.04) * H;
  const jitter = o.maxPerspective * cw * scale;
  const corners: Point[] = ([[0, 0], [cw, 0], [cw, ch], [0, ch]] as Point[]).map(([x, y]) => {
    const dx = (x - cw / 2) * scale;
    const dy = (y - ch / 2) * scale;
    return [
      cx + dx * Math.cos(angle) - dy * Math.sin(angle) + rng.range(-jitter, jitter),
      cy + dx * Math.sin(angle) + dy * Math.cos(angle) + rng.range(-jitter, jitter),
    ];
  });
  // Inverse mapping: for each photo pixel, the card pixel it shows.
  const toCard = homography(corners, [[0, 0], [cw, 0], [cw, ch], [0, ch]]);

  const bg = [rng.range(40, 200), rng.range(40, 200), rng.range(40, 200)];
  const bgWave = rng.range(0.004, 0.02);
  const glare = { x: rng.range(0.15, 0.85) * cw, y: rng.range(0.1, 0.6) * ch, r: rng.range(0.08, 0.22) * cw, s: 0 };
  // One photo in four without glare; otherwise a spot of at least a third of the largest strength.
  if (rng.next() > 0.25) glare.s = o.maxGlare * rng.range(0.35, 1);
  const light = { gx: rng.range(-0.12, 0.12) / W, gy: rng.range(-0.12, 0.12) / H };
  const noise = noiseTable(rng, rng.range(...o.noiseSigma));

  // Per-column and per-row factors, so the loop below only multiplies (it runs 1.9 M times).
  const waveX = Float32Array.from({ length: W }, (_, x) => Math.sin(x * bgWave));
  const waveY = Float32Array.from({ length: H }, (_, y) => Math.cos(y * bgWave * 1.7));
  const shadeX = Float32Array.from({ length: W }, (_, x) => light.gx * (x - W / 2));
  const glareReach2 = 9 * glare.r * glare.r; // beyond 3 radii the spot adds under 1 %
  const glareDiv = 2 * glare.r * glare.r;
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = toCard as [number, number, number, number, number, number, number, number, number];

  const out = new Uint8ClampedArray(W * H * 3);
  // The card arrives with alpha (its rounded corners are transparent): blended over the background.
  const stride = cw * 4;
  for (let y = 0; y < H; y++) {
    const shadeY = 1 + light.gy * (y - H / 2);
    const wy = waveY[y]!;
    let noiseIndex = rng.int(NOISE_SIZE);
    // The homography's numerators and denominator are linear in x: stepped, not recomputed.
    let nu = h1 * y + h2;
    let nv = h4 * y + h5;
    let w = h7 * y + h8;
    for (let x = 0; x < W; x++, nu += h0, nv += h3, w += h6) {
      const u = nu / w;
      const v = nv / w;
      const shade = shadeY + shadeX[x]!;
      const n = noise[noiseIndex]!;
      noiseIndex = (noiseIndex + 7919) & (NOISE_SIZE - 1);
      const o3 = (y * W + x) * 3;
      const back = 0.85 + 0.15 * waveX[x]! * wy;
      if (u >= 0 && v >= 0 && u < cw - 1 && v < ch - 1) {
        const x0 = u | 0;
        const y0 = v | 0;
        const fx = u - x0;
        const fy = v - y0;
        const i = y0 * stride + x0 * 4;
        const dx = u - glare.x;
        const dy = v - glare.y;
        const d2 = dx * dx + dy * dy;
        const g = d2 < glareReach2 ? glare.s * Math.exp(-d2 / glareDiv) : 0;
        // Inside the card all four neighbours are opaque: no blending to compute.
        const opaque = (src[i + 3]! & src[i + 7]! & src[i + stride + 3]! & src[i + stride + 7]!) === 255;
        const alpha = opaque ? 1 : bilinear(src, i + 3, stride, fx, fy) / 255;
        for (let c = 0; c < 3; c++) {
          const p = bilinear(src, i + c, stride, fx, fy) * shade;
          const card = p + (255 - p) * g + n;
          out[o3 + c] = alpha === 1 ? card : card * alpha + (bg[c]! * back * shade + n * 1.5) * (1 - alpha);
        }
      } else {
        for (let c = 0; c < 3; c++) out[o3 + c] = bg[c]! * back * shade + n * 1.5;
      }
    }
  }
  const xs = corners.map((p) => p[0]);
  const ys = corners.map((p) => p[1]);
  const box = {
    x: Math.max(0, Math.floor(Math.min(...xs))),
    y: Math.max(0, Math.floor(Math.min(...ys))),
    width: 0,
    height: 0,
  };
  box.width = Math.min(W, Math.ceil(Math.max(...xs))) - box.x;
  box.height = Math.min(H, Math.ceil(Math.max(...ys))) - box.y;
  const image = await sharp(Buffer.from(out.buffer), { raw: { width: W, height: H, channels: 3 } })
    .blur(rng.range(...o.blurSigma))
    .jpeg({ quality: Math.round(rng.range(...o.jpegQuality)) })
    .toBuffer();
  return { image, width: W, height: H, documentBox: box, documentCorners: corners };
}

function bilinear(src: Buffer, i: number, stride: number, fx: number, fy: number): number {
  const top = src[i]! + (src[i + 4]! - src[i]!) * fx;
  const bottom = src[i + stride]! + (src[i + stride + 4]! - src[i + stride]!) * fx;
  return top + (bottom - top) * fy;
}

const NOISE_SIZE = 1 << 16;

/** Gaussian sensor noise, drawn once per photo and walked with an odd stride from a random start on each row. */
function noiseTable(rng: Rng, sigma: number): Float32Array {
  const table = new Float32Array(NOISE_SIZE);
  for (let i = 0; i < table.length; i++) table[i] = rng.gauss() * sigma;
  return table;
}

