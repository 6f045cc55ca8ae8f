import { createRng } from '../rng.ts';
import { photograph, placeSurface, selfieFrame } from './rig.ts';
import { coverWindow, faceInResized, resizeSource, type Source } from './source.ts';

/**
 * A bona fide photo shown on a screen and photographed by the attacker's phone (a replay on a
 * still). The screen: the photo resized to the display's pixels (nearest pixel: a display has
 * no finer detail), each pixel three vertical RGB stripes with a dark matrix between them (a
 * phone's LCD; a landscape-held screen turns the stripes), the display's gamma, raised black
 * and narrower gamut, a bluish white point. The camera sees 0.45 to 1.4 of its pixels per display
 * pixel (a phone's 400-ppi screen filling the frame is about 0.5; under 1 the grid aliases into moiré), at a slant, with the glass's specular glare, the
 * bezel partly in frame, and a rolling shutter's refresh banding.
 */
export interface ScreenParams {
  /** Output pixels per display pixel. */
  pitch: number;
  chroma: number;
  gamma: number;
  black: number;
  blue: number;
  stripeGap: number;
  rowGap: number;
  stripesHorizontal: boolean;
  bezel: number;
  faceHeightFraction: number;
  glare: number;
  banding: number;
}

export async function screenAttack(src: Source, seed: number): Promise<{ image: Buffer; params: ScreenParams }> {
  const rng = createRng(seed);
  const frame = selfieFrame(rng);
  const p: ScreenParams = {
    pitch: rng.range(0.45, 1.4),
    chroma: rng.range(0.75, 0.95),
    gamma: rng.range(0.85, 1.2),
    black: rng.range(0.02, 0.08),
    blue: rng.range(1.0, 1.1),
    stripeGap: rng.range(0.05, 0.25),
    rowGap: rng.range(0.04, 0.2),
    stripesHorizontal: rng.next() < 0.3,
    bezel: rng.range(0.03, 0.09),
    faceHeightFraction: rng.range(0.3, 0.55),
    glare: rng.next() < 0.7 ? rng.range(0.1, 0.55) : 0,
    banding: rng.next() < 0.6 ? rng.range(0.01, 0.06) : 0,
  };
  // The display's pixel count, such that the face, at its height in the frame, spans the face's
  // height over the pitch in display pixels.
  const aspect = rng.range(0.5, 0.8);
  const window = coverWindow(src, aspect);
  const faceInDisplay = (p.faceHeightFraction * frame.height) / p.pitch;
  const displayH = Math.max(64, Math.min(4000, Math.round((faceInDisplay * window.height) / src.face.height)));
  const displayW = Math.round(displayH * aspect);
  const shown = await resizeSource(src, displayW, displayH);
  // The display's tone: gamut narrowed towards grey, gamma, raised black, bluish white.
  const white = [1 / p.blue, 1, p.blue].map((v) => v / Math.max(1, p.blue));
  for (let i = 0; i < shown.length; i += 3) {
    const l = 0.299 * shown[i]! + 0.587 * shown[i + 1]! + 0.114 * shown[i + 2]!;
    for (let c = 0; c < 3; c++) {
      const v = Math.max(0, l + (shown[i + c]! - l) * p.chroma) / 255;
      shown[i + c] = 255 * (p.black + (1 - p.black) * v ** p.gamma) * white[c]!;
    }
  }
  const bz = Math.round(displayW * p.bezel);
  const sw = displayW + 2 * bz;
  const sh = displayH + 2 * bz;
  const bezelTone = rng.range(12, 45);
  const lit = (1 - 2 * p.stripeGap) * (1 - 2 * p.rowGap);
  const gain = 1 / lit; // the same light through the narrower openings
  const surface = (u: number, v: number, out: Float64Array) => {
    const du = u - bz;
    const dv = v - bz;
    if (du < 0 || dv < 0 || du >= displayW || dv >= displayH) {
      out[0] = out[1] = out[2] = bezelTone;
      return true;
    }
    const px = du | 0;
    const py = dv | 0;
    // The stripes run along the display's columns, or its rows when it is held sideways.
    const along = p.stripesHorizontal ? dv - py : du - px;
    const across = p.stripesHorizontal ? du - px : dv - py;
    const sub = along * 3;
    const c = Math.min(2, sub | 0);
    const s = sub - c;
    out[0] = out[1] = out[2] = 0;
    if (s >= p.stripeGap && s <= 1 - p.stripeGap && across >= p.rowGap && across <= 1 - p.rowGap) {
      out[c] = shown[(py * displayW + px) * 3 + c]! * 3 * gain;
    }
    return true;
  };
  const face = faceInResized(src, displayW, displayH);
  const corners = placeSurface(rng, frame, { width: sw, height: sh }, { cx: face.cx + bz, cy: face.cy + bz, height: face.height }, p.faceHeightFraction, 12, 0.06);
  const { image } = await photograph(
    surface,
    {
      ...frame,
      corners,
      surfaceWidth: sw,
      surfaceHeight: sh,
      samples: 3,
      blur: rng.range(0.5, 1.3),
      glare: p.glare ? { x: rng.range(0.2, 0.8) * frame.width, y: rng.range(0.15, 0.7) * frame.height, r: rng.range(0.06, 0.2) * frame.width, s: p.glare } : undefined,
      banding: p.banding ? { amplitude: p.banding, period: rng.range(30, 200), phase: rng.range(0, 6.28) } : undefined,
    },
    rng,
  );
  return { image, params: p };
}
