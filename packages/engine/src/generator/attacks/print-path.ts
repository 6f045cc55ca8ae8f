import sharp from 'sharp';
import { faceCropBox } from '../face-crop.ts';
import type { Rng } from '../rng.ts';
import { CHALLENGE_MOVES, type Move } from './other-challenge.ts';

/**
 * GENERATED presentation attack: a printed photo held up to the camera and moved along a liveness
 * challenge's path. A hand turns and tilts the print the way the head should turn (yaw or pitch
 * up to 20–40°, back towards the centre), trembles, drifts a little, and — for the bent species —
 * the paper curves around a vertical axis (a parabolic cylinder whose edges stand 2–7 % of the
 * print's width out of its plane, the sag a hand-held photo print takes).
 *
 * Rendered exactly, pixel by pixel: the ray of each camera pixel is intersected with the print's
 * surface (a quadratic in the ray's depth), and the print is sampled there. The print itself is
 * made print-like first: smaller colour gamut (no deep blacks, no pure white), less saturation, a
 * paper tint, a little blur and grain; the camera then adds blur, sensor noise, exposure changes
 * and JPEG. Every draw comes from the seeded generator: the same seed gives the same frames.
 *
 * Used by `npm run bench:pad-motion` (bench/checks/pad-motion.ts); label what it makes as generated.
 */
export type PrintSpecies = 'print_planar' | 'print_bent';

export interface PrintPathOptions {
  species: PrintSpecies;
  /** Frames to render (default 16: two seconds at 8 frames a second). */
  frames?: number;
  /** Camera image size (default 360 × 480, a phone held upright, the size a burst of frames is sent at). */
  width?: number;
  height?: number;
  /** The movements the print imitates, in order (default: one drawn at random). */
  moves?: Move[];
}

export interface PrintPathSequence {
  generated: true;
  species: PrintSpecies;
  moves: Move[];
  /** JPEG frames, in order. */
  frames: Buffer[];
  /** The print's pose in each frame (degrees), and its bend (edge sag over width; 0 when planar). */
  poses: Array<{ yaw: number; pitch: number; roll: number }>;
  bend: number;
}

interface Texture { data: Uint8Array; width: number; height: number }

/** `photo`: the bytes of a face photo (any format sharp reads). */
export async function printPathSequence(photo: Uint8Array, rng: Rng, options: PrintPathOptions): Promise<PrintPathSequence> {
  const frames = options.frames ?? 16;
  const width = options.width ?? 360;
  const height = options.height ?? 480;
  const moves = options.moves ?? [rng.pick(CHALLENGE_MOVES)];
  const texture = await printTexture(photo, rng);

  // The camera: a phone's field of view (focal length about 1.1 × the image width). The print is
  // placed so that it fills 70–95 % of the image's width.
  const f = width * rng.range(1, 1.25);
  const printWidth = texture.width;
  const distance = (f * printWidth) / (width * rng.range(0.7, 0.95));
  const sag = options.species === 'print_bent' ? rng.range(0.02, 0.07) * (rng.next() < 0.5 ? -1 : 1) : 0;
  // z = c·u² with u from the print's centre: the edges (u = ±w/2) stand sag·w out of the plane.
  const curvature = (sag * printWidth) / (printWidth / 2) ** 2;
  const background = [rng.range(60, 200), rng.range(60, 200), rng.range(60, 200)];
  const poses: PrintPathSequence['poses'] = [];
  const images: Buffer[] = [];

  // The path: each move is a swing out to its amplitude and back (a half sine over its share of
  // the frames), the hand trembling (a degree or so) and drifting.
  const amplitude = moves.map(() => rng.range(20, 40));
  const roll0 = rng.range(-8, 8);
  const drift = [rng.range(-0.05, 0.05), rng.range(-0.05, 0.05)];
  for (let i = 0; i < frames; i++) {
    const t = frames === 1 ? 0 : i / (frames - 1);
    const k = Math.min(moves.length - 1, Math.floor(t * moves.length));
    const local = t * moves.length - k;
    const swing = amplitude[k]! * Math.sin(Math.PI * local);
    const move = moves[k]!;
    const yaw = (move === 'turn_left' ? -swing : move === 'turn_right' ? swing : 0) + rng.gauss() * 1.2;
    const pitch = (move === 'look_up' ? swing : move === 'look_down' ? -swing : 0) + rng.gauss() * 1.2;
    const roll = roll0 + rng.gauss() * 1.5;
    poses.push({ yaw: round(yaw), pitch: round(pitch), roll: round(roll) });
    const shift: [number, number, number] = [
      (drift[0]! * t + rng.gauss() * 0.005) * distance,
      (drift[1]! * t + rng.gauss() * 0.005) * distance,
      distance * (1 + rng.gauss() * 0.02),
    ];
    const rgb = renderFrame(texture, { yaw, pitch, roll }, shift, curvature, f, width, height, background, rng.range(0.85, 1.1));
    let img = sharp(Buffer.from(rgb.buffer, rgb.byteOffset, rgb.byteLength), { raw: { width, height, channels: 3 } });
    img = img.blur(rng.range(0.4, 1.0));
    images.push(await img.jpeg({ quality: Math.round(rng.range(70, 90)) }).toBuffer());
  }
  return { generated: true, species: options.species, moves, frames: images, poses, bend: round(sag, 3) };
}

/** The photo as a print: 400 px wide, a white paper margin, a printer's gamut, desaturated, tinted, soft and grainy. */
async function printTexture(photo: Uint8Array, rng: Rng): Promise<Texture> {
  const inner = 400;
  const crop = await headCrop(photo);
  let image = sharp(photo).rotate().removeAlpha();
  if (crop) image = image.extract(crop);
  const { data, info } = await image.resize({ width: inner }).blur(rng.range(0.5, 1.1)).raw().toBuffer({ resolveWithObject: true });
  const margin = Math.round(inner * rng.range(0.03, 0.07));
  const width = info.width + 2 * margin;
  const height = info.height + 2 * margin;
  const out = new Uint8Array(width * height * 3);
  const saturation = rng.range(0.6, 0.85);
  const tint = [rng.range(0.97, 1), rng.range(0.95, 0.99), rng.range(0.88, 0.96)];
  const paper = [245, 242, 232];
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      const sx = x - margin, sy = y - margin;
      if (sx < 0 || sy < 0 || sx >= info.width || sy >= info.height) {
        for (let c = 0; c < 3; c++) out[o + c] = paper[c]! + rng.gauss() * 2;
        continue;
      }
      const s = (sy * info.width + sx) * 3;
      const r = data[s]!, g = data[s + 1]!, b = data[s + 2]!;
      const luma = 0.299 * r + 0.587 * g + 0.114 * b;
      const grain = rng.gauss() * 4;
      for (let c = 0; c < 3; c++) {
        const v = luma + (data[s + c]! - luma) * saturation;
        // Ink on paper: the darkest black is a dark grey, the brightest white is the paper's.
        out[o + c] = clamp((22 + v * 0.84) * tint[c]! + grain);
      }
    }
  }
  return { data: out, width, height };
}

/**
 * The head and shoulders, the way a print held up for a selfie shows them: the skin-blob crop the
 * document generator uses for portraits (face-crop.ts), as is; the whole photo when it
 * finds no face.
 */
async function headCrop(photo: Uint8Array): Promise<{ left: number; top: number; width: number; height: number } | null> {
  const { data, info } = await sharp(photo).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const box = faceCropBox(new Uint8Array(data.buffer, data.byteOffset, data.byteLength), info.width, info.height);
  if (!box) return null;
  const grow = 0;
  const left = Math.max(0, Math.round(box.left - box.width * grow));
  const top = Math.max(0, Math.round(box.top - box.height * grow));
  const width = Math.min(info.width - left, Math.round(box.width * (1 + 2 * grow)));
  const height = Math.min(info.height - top, Math.round(box.height * (1 + 2 * grow)));
  return width > 32 && height > 32 ? { left, top, width, height } : null;
}

/**
 * One camera image: for each pixel, the ray from the camera (at the origin, looking along +z) is
 * intersected with the print's surface, set at `shift` and turned by the pose; the print is
 * sampled there (bilinear), the background elsewhere. The surface in the print's own frame is
 * z = c·u² (c = 0: a plane): with the ray's point P = s·q + o in that frame, c·(s·qx + ox)² =
 * s·qz + oz is a quadratic in s, whose nearest positive root on the print is the hit.
 */
function renderFrame(
  tex: Texture,
  pose: { yaw: number; pitch: number; roll: number },
  shift: [number, number, number],
  c: number,
  f: number,
  width: number,
  height: number,
  background: number[],
  exposure: number,
): Uint8Array {
  const r = rotation(pose.yaw, pose.pitch, pose.roll);
  // Rᵀ·(X − T): q = Rᵀ·d, o = −Rᵀ·T.
  const rt = (v: number[]) => [0, 1, 2].map((j) => r[0]![j]! * v[0]! + r[1]![j]! * v[1]! + r[2]![j]! * v[2]!);
  const o = rt(shift).map((v) => -v);
  const out = new Uint8Array(width * height * 3);
  const hw = tex.width / 2, hh = tex.height / 2;
  const q = [0, 0, 0];
  for (let y = 0; y < height; y++) {
    const dy = (y - height / 2) / f;
    for (let x = 0; x < width; x++) {
      const dx = (x - width / 2) / f;
      for (let j = 0; j < 3; j++) q[j] = r[0]![j]! * dx + r[1]![j]! * dy + r[2]![j]!;
      const s = hit(q, o, c, hw, hh);
      const p = (y * width + x) * 3;
      if (s === null) {
        const shade = 0.85 + 0.3 * (y / height);
        for (let k = 0; k < 3; k++) out[p + k] = clamp(background[k]! * shade * exposure);
        continue;
      }
      const u = s * q[0]! + o[0]! + hw;
      const v = s * q[1]! + o[1]! + hh;
      for (let k = 0; k < 3; k++) out[p + k] = clamp(bilinear(tex, u, v, k) * exposure);
    }
  }
  return out;
}

function hit(q: number[], o: number[], c: number, hw: number, hh: number): number | null {
  const inside = (s: number) => {
    if (!(s > 0)) return false;
    const u = s * q[0]! + o[0]!, v = s * q[1]! + o[1]!;
    return u >= -hw && u < hw - 1 && v >= -hh && v < hh - 1;
  };
  const a = c * q[0]! * q[0]!;
  const b = 2 * c * q[0]! * o[0]! - q[2]!;
  const k = c * o[0]! * o[0]! - o[2]!;
  if (Math.abs(a) < 1e-12) {
    const s = -k / b;
    return inside(s) ? s : null;
  }
  const disc = b * b - 4 * a * k;
  if (disc < 0) return null;
  const root = Math.sqrt(disc);
  const s1 = (-b - root) / (2 * a), s2 = (-b + root) / (2 * a);
  const near = Math.min(s1, s2), far = Math.max(s1, s2);
  return inside(near) ? near : inside(far) ? far : null;
}

/** Yaw about the vertical axis, then pitch about the horizontal, then roll in the image plane. */
function rotation(yawDeg: number, pitchDeg: number, rollDeg: number): number[][] {
  const [y, p, r] = [yawDeg, pitchDeg, rollDeg].map((d) => (d * Math.PI) / 180) as [number, number, number];
  const ry = [[Math.cos(y), 0, Math.sin(y)], [0, 1, 0], [-Math.sin(y), 0, Math.cos(y)]];
  const rx = [[1, 0, 0], [0, Math.cos(p), -Math.sin(p)], [0, Math.sin(p), Math.cos(p)]];
  const rz = [[Math.cos(r), -Math.sin(r), 0], [Math.sin(r), Math.cos(r), 0], [0, 0, 1]];
  return mul(rz, mul(rx, ry));
}

function mul(a: number[][], b: number[][]): number[][] {
  return a.map((row) => [0, 1, 2].map((j) => row[0]! * b[0]![j]! + row[1]! * b[1]![j]! + row[2]! * b[2]![j]!));
}

function bilinear(tex: Texture, u: number, v: number, channel: number): number {
  const x0 = Math.floor(u), y0 = Math.floor(v);
  const fx = u - x0, fy = v - y0;
  const at = (x: number, y: number) => tex.data[(y * tex.width + x) * 3 + channel]!;
  return (at(x0, y0) * (1 - fx) + at(x0 + 1, y0) * fx) * (1 - fy) + (at(x0, y0 + 1) * (1 - fx) + at(x0 + 1, y0 + 1) * fx) * fy;
}

const clamp = (v: number) => (v < 0 ? 0 : v > 255 ? 255 : Math.round(v));
const round = (v: number, digits = 1) => Math.round(v * 10 ** digits) / 10 ** digits;
