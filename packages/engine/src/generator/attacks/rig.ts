import sharp from 'sharp';
import { homography, type Homography, type Point } from '../homography.ts';
import type { Rng } from '../rng.ts';

/**
 * The camera that photographs an attack: a flat surface (a screen with its bezel, a print, a
 * card) seen in perspective against a background, each output pixel integrating 2 × 2 or 3 × 3 samples
 * of the surface (a sensor pixel sees an area, which is what aliases a pixel grid or a halftone
 * into moiré), then the surface's light (glare, shading, a rolling shutter's banding), lens blur,
 * sensor noise and the phone's JPEG. Every draw comes from the seeded generator.
 */

/** Linear RGB 0..255 (may exceed 255 before the camera's integration) of the surface at (u, v), or null outside it. */
export type Surface = (u: number, v: number, out: Float64Array) => boolean;

export interface Shot {
  width: number;
  height: number;
  /** The surface's corners in the output: top-left, top-right, bottom-right, bottom-left. */
  corners: Point[];
  surfaceWidth: number;
  surfaceHeight: number;
  /** Optional curvature of the surface (a bent print): v shifts by bend × surfaceHeight × (2u/sw − 1)². */
  bend?: number;
  /** Multiplier of the light over the surface at output (x, y), e.g. shading across a bend. */
  shade?: (x: number, y: number) => number;
  /** Specular highlight on the surface: strength 0..1 towards white, centre and radius in output pixels. */
  glare?: { x: number; y: number; r: number; s: number };
  /** Horizontal banding of a screen under a rolling shutter: amplitude and period in output rows. */
  banding?: { amplitude: number; period: number; phase: number };
  /** Samples per output pixel along each axis (default 2; a screen's fine grid wants 3). */
  samples?: number;
  /** Lens blur of the camera (Gaussian sigma, output pixels). */
  blur: number;
}


/**
 * What the simulated camera drew for one photograph, kept beside the image so that a bench can
 * say which cameras its misses come from (bench:pad's rates by lens blur).
 */
export interface CameraDraw {
  /** Lens blur, Gaussian sigma in output pixels. */
  blur: number;
  /** Sensor noise's scale in grey levels (a pixel's deviation is this × (1.2 − level / 512): a little more in the dark). */
  noise: number;
  jpegQuality: number;
}

export async function photograph(surface: Surface, shot: Shot, rng: Rng): Promise<{ image: Buffer; camera: CameraDraw }> {
  const { width: W, height: H, surfaceWidth: sw, surfaceHeight: sh } = shot;
  const toSurface: Homography = homography(shot.corners, [[0, 0], [sw, 0], [sw, sh], [0, sh]]);
  const [h0, h1, h2, h3, h4, h5, h6, h7, h8] = toSurface as [number, number, number, number, number, number, number, number, number];
  const bg = [rng.range(30, 200), rng.range(30, 200), rng.range(30, 200)];
  const bgWave = rng.range(0.003, 0.015);
  const out = new Float32Array(W * H * 3);
  const px = new Float64Array(3);
  const bend = shot.bend ?? 0;
  const SS = shot.samples ?? 2;
  for (let y = 0; y < H; y++) {
    const band = shot.banding ? 1 + shot.banding.amplitude * Math.sin((2 * Math.PI * y) / shot.banding.period + shot.banding.phase) : 1;
    for (let x = 0; x < W; x++) {
      let r = 0, g = 0, b = 0, onSurface = 0;
      for (let sy = 0; sy < SS; sy++) {
        const yy = y + (sy + 0.5) / SS - 0.5;
        for (let sx = 0; sx < SS; sx++) {
          const xx = x + (sx + 0.5) / SS - 0.5;
          const w = h6 * xx + h7 * yy + h8;
          const u = (h0 * xx + h1 * yy + h2) / w;
          let v = (h3 * xx + h4 * yy + h5) / w;
          if (bend) {
            const t = (2 * u) / sw - 1;
            v -= bend * sh * t * t;
          }
          if (u >= 0 && v >= 0 && u < sw && v < sh && surface(u, v, px)) {
            r += px[0]!;
            g += px[1]!;
            b += px[2]!;
            onSurface++;
          } else {
            const back = 0.85 + 0.15 * Math.sin(xx * bgWave) * Math.cos(yy * bgWave * 1.7);
            r += bg[0]! * back;
            g += bg[1]! * back;
            b += bg[2]! * back;
          }
        }
      }
      const n = SS * SS;
      const o = (y * W + x) * 3;
      let light = band;
      if (shot.shade && onSurface) light *= shot.shade(x, y);
      let gl = 0;
      if (shot.glare && onSurface) {
        const d2 = (x - shot.glare.x) ** 2 + (y - shot.glare.y) ** 2;
        gl = shot.glare.s * Math.exp(-d2 / (2 * shot.glare.r * shot.glare.r)) * (onSurface / n);
      }
      const c = [r / n, g / n, b / n];
      for (let k = 0; k < 3; k++) {
        const lit = c[k]! * light;
        out[o + k] = lit + (255 - lit) * gl;
      }
    }
  }
  // Sensor noise, per pixel and channel (a little stronger in the dark, like a phone's).
  const sigma = rng.range(1.5, 5);
  const bytes = new Uint8ClampedArray(W * H * 3);
  for (let i = 0; i < out.length; i++) bytes[i] = out[i]! + rng.gauss() * sigma * (1.2 - out[i]! / 512);
  const blur = Math.max(0.3, shot.blur);
  const jpegQuality = Math.round(rng.range(72, 93));
  const image = await sharp(Buffer.from(bytes.buffer), { raw: { width: W, height: H, channels: 3 } })
    .blur(blur)
    .jpeg({ quality: jpegQuality })
    .toBuffer();
  return { image, camera: { blur, noise: sigma, jpegQuality } };
}

/**
 * Where the surface lands: `faceOnSurface` (its centre and height in surface units) is placed
 * near the middle of the frame at `faceHeightFraction` of the frame's height, turned by up to
 * `maxRotationDeg` and with each corner pushed by up to `perspective` of the surface's size
 * (the hand holding it at a slant).
 */
export function placeSurface(
  rng: Rng,
  frame: { width: number; height: number },
  surface: { width: number; height: number },
  faceOnSurface: { cx: number; cy: number; height: number },
  faceHeightFraction: number,
  maxRotationDeg: number,
  perspective: number,
): Point[] {
  const scale = (faceHeightFraction * frame.height) / faceOnSurface.height;
  const angle = (rng.range(-1, 1) * maxRotationDeg * Math.PI) / 180;
  const fx = frame.width * rng.range(0.42, 0.58);
  const fy = frame.height * rng.range(0.4, 0.56);
  const jitter = perspective * Math.max(surface.width, surface.height) * scale;
  return ([[0, 0], [surface.width, 0], [surface.width, surface.height], [0, surface.height]] as Point[]).map(([u, v]) => {
    const dx = (u - faceOnSurface.cx) * scale;
    const dy = (v - faceOnSurface.cy) * scale;
    return [fx + dx * Math.cos(angle) - dy * Math.sin(angle) + rng.range(-jitter, jitter), fy + dx * Math.sin(angle) + dy * Math.cos(angle) + rng.range(-jitter, jitter)];
  });
}

/** A phone's selfie frame: portrait or landscape, 960 on the long side (the journey sends up to 1920; the cost of the set grows with the area). */
export function selfieFrame(rng: Rng): { width: number; height: number } {
  const long = 960;
  const short = Math.round((long * 3) / 4);
  return rng.next() < 0.6 ? { width: short, height: long } : { width: long, height: short };
}
