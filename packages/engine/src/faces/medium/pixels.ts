import type { FaceBox } from '../../types.ts';
import type { RgbImage } from '../decode-image.ts';

/**
 * Pixel statistics of the face and of its surroundings, pure: the face's luminance window (for
 * the spectrum), its colour, its specular glare, and straight edges around it (a screen's bezel,
 * a print's or a card's border).
 */

const luma = (r: number, g: number, b: number) => 0.299 * r + 0.587 * g + 0.114 * b;

/**
 * An n×n luminance window from the middle of the face, at the image's own resolution (no
 * resampling: a resize would blur or alias away the very texture measured). n is the largest of
 * 256, 128, 64 that fits in 80% of the face's smaller side (at least 64, clamped to the image).
 */
export function faceWindow(image: RgbImage, box: FaceBox): { lum: Float64Array; n: number } {
  const side = 0.8 * Math.min(box.width, box.height);
  const n = side >= 256 ? 256 : side >= 128 ? 128 : 64;
  const size = Math.min(n, image.width, image.height);
  const m = 1 << Math.floor(Math.log2(size));
  const { x0, y0 } = faceWindowOrigin(image, box, m);
  const lum = new Float64Array(m * m);
  for (let y = 0; y < m; y++) {
    for (let x = 0; x < m; x++) {
      const i = ((y0 + y) * image.width + x0 + x) * 3;
      lum[y * m + x] = luma(image.data[i]!, image.data[i + 1]!, image.data[i + 2]!);
    }
  }
  return { lum, n: m };
}

/**
 * The top-left corner of a square of `side` pixels in the middle of the face, kept inside the
 * image: centred a little below the box's middle, on the nose and cheeks, not the hair. The
 * spectrum's window (above) and the texture network's (texture-window.ts) are placed so.
 */
export function faceWindowOrigin(image: { width: number; height: number }, box: FaceBox, side: number): { x0: number; y0: number } {
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height * 0.55;
  return {
    x0: Math.max(0, Math.min(image.width - side, Math.round(cx - side / 2))),
    y0: Math.max(0, Math.min(image.height - side, Math.round(cy - side / 2))),
  };
}

export interface ColourMeasures {
  /** Mean HSV saturation of the face (0..1): prints and screens narrow the gamut, a grey portrait has none. */
  saturation: number;
  /** Luminance spread of the face, 2nd to 98th percentile, over 255: a print's black is grey and its white is paper. */
  dynamicRange: number;
  /** Share of the face's pixels that are near white and colourless: a screen's or a laminate's specular glare. */
  glare: number;
}

export function colourMeasures(image: RgbImage, box: FaceBox): ColourMeasures {
  const step = Math.max(1, Math.floor(Math.min(box.width, box.height) / 64));
  const lums: number[] = [];
  let sat = 0;
  let glare = 0;
  for (let y = box.y; y < box.y + box.height && y < image.height; y += step) {
    for (let x = box.x; x < box.x + box.width && x < image.width; x += step) {
      const i = (y * image.width + x) * 3;
      const r = image.data[i]!, g = image.data[i + 1]!, b = image.data[i + 2]!;
      const max = Math.max(r, g, b);
      const min = Math.min(r, g, b);
      sat += max > 0 ? (max - min) / max : 0;
      const l = luma(r, g, b);
      lums.push(l);
      if (l > 235 && max - min < 24) glare++;
    }
  }
  if (!lums.length) return { saturation: 0, dynamicRange: 0, glare: 0 };
  lums.sort((a, b) => a - b);
  const q = (p: number) => lums[Math.min(lums.length - 1, Math.floor(p * lums.length))]!;
  return { saturation: sat / lums.length, dynamicRange: (q(0.98) - q(0.02)) / 255, glare: glare / lums.length };
}

/** Longest side the edge search works at: enough for a bezel or a card border, cheap. */
const EDGE_SIDE = 256;

/**
 * The strongest straight edge outside the face (the face's box grown by a third is left out): a
 * Hough transform where each strong gradient pixel votes only for the line along its own
 * orientation, so a line is the count of aligned edge pixels on it. Returned over the image's
 * diagonal: about 1 when an edge crosses the whole frame, near 0 for a soft background. A room's
 * door frame counts too; the combined score weighs it with the rest.
 */
export function straightEdges(image: RgbImage, box: FaceBox): number {
  const f = Math.max(1, Math.ceil(Math.max(image.width, image.height) / EDGE_SIDE));
  const w = Math.floor(image.width / f);
  const h = Math.floor(image.height / f);
  if (w < 8 || h < 8) return 0;
  const g = new Float32Array(w * h);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let s = 0;
      for (let dy = 0; dy < f; dy++) {
        let i = ((y * f + dy) * image.width + x * f) * 3;
        for (let dx = 0; dx < f; dx++, i += 3) s += luma(image.data[i]!, image.data[i + 1]!, image.data[i + 2]!);
      }
      g[y * w + x] = s / (f * f);
    }
  }
  const grow = 1 / 3;
  const fx0 = (box.x - box.width * grow) / f, fx1 = (box.x + box.width * (1 + grow)) / f;
  const fy0 = (box.y - box.height * grow) / f, fy1 = (box.y + box.height * (1 + grow)) / f;
  const THETAS = 90;
  const diag = Math.hypot(w, h);
  const rhos = Math.ceil(2 * diag) + 1;
  const votes = new Float32Array(THETAS * rhos);
  const cos = Float64Array.from({ length: THETAS }, (_, t) => Math.cos((t * Math.PI) / THETAS));
  const sin = Float64Array.from({ length: THETAS }, (_, t) => Math.sin((t * Math.PI) / THETAS));
  for (let y = 1; y < h - 1; y++) {
    for (let x = 1; x < w - 1; x++) {
      if (x >= fx0 && x <= fx1 && y >= fy0 && y <= fy1) continue;
      const i = y * w + x;
      const gx = g[i - w + 1]! + 2 * g[i + 1]! + g[i + w + 1]! - g[i - w - 1]! - 2 * g[i - 1]! - g[i + w - 1]!;
      const gy = g[i + w - 1]! + 2 * g[i + w]! + g[i + w + 1]! - g[i - w - 1]! - 2 * g[i - w]! - g[i - w + 1]!;
      // 4·(contrast of about 30 grey levels) across the edge.
      if (gx * gx + gy * gy < 120 * 120) continue;
      let angle = Math.atan2(gy, gx);
      if (angle < 0) angle += Math.PI;
      const t0 = Math.round((angle / Math.PI) * THETAS);
      for (let dt = -1; dt <= 1; dt++) {
        const t = (t0 + dt + THETAS) % THETAS;
        const rho = Math.round(x * cos[t]! + y * sin[t]! + diag);
        votes[t * rhos + rho]! += 1;
      }
    }
  }
  let best = 0;
  for (let i = 0; i < votes.length; i++) if (votes[i]! > best) best = votes[i]!;
  return best / diag;
}
