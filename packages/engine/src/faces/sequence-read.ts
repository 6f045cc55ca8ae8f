import sharp from 'sharp';
import type { TaskTiming } from '../case-types.ts';
import { timedTask } from '../pool/thread-cpu.ts';
import { analyseFaces, type FaceFinding } from './analyse-face.ts';
import { liveLogOdds } from './medium/anti-spoof-net.ts';
import { networkLiveOf } from './medium/read.ts';
import { SEQUENCE_NETWORK } from './sequence-network.ts';
import type { SequenceFrameReading } from './sequence.ts';

/**
 * Reading the live sequence's frames, the CPU part of its judgement (sequence.ts judges).
 * Every frame is decoded to a 16×16 grey thumbnail (about a millisecond: cuts between frames are
 * seen on all of them); only a sample goes through the face models (about 55 ms of CPU a
 * 320-pixel frame on this machine's cores: all 50 frames of a 5-second capture would take 2.8 s,
 * more than a whole case's budget). The sample is a frame every `sampleMs`, at most `maxRead`; the
 * trained anti-spoofing network reads every other frame of it (about 15 ms a frame).
 */

const SEQUENCE_READ = {
  /** One frame read by the face models every this many milliseconds of capture (about 3 a second). */
  sampleMs: 300,
  /** At most this many frames read by the face models (about 0.9 s of CPU). */
  maxRead: 16,
} as const;

/** Which frames the face models read: the first, then one every sampleMs, thinned evenly to maxRead. */
export function framesToRead(times: readonly number[], sampleMs: number = SEQUENCE_READ.sampleMs, maxRead: number = SEQUENCE_READ.maxRead): number[] {
  const picked: number[] = [];
  let next = -Infinity;
  for (let i = 0; i < times.length; i++) {
    if (times[i]! >= next) {
      picked.push(i);
      next = times[i]! + sampleMs;
    }
  }
  if (picked.length <= maxRead) return picked;
  return Array.from({ length: maxRead }, (_, k) => picked[Math.round((k * (picked.length - 1)) / (maxRead - 1))]!);
}

export interface FrameThumbs {
  /** Mean absolute difference with the previous frame (null on the first and after an undecodable one). */
  changes: (number | null)[];
  sizes: { width: number; height: number }[];
  timing: TaskTiming;
}

/** Each frame's change from the one before, from 16×16 grey thumbnails. */
export async function readFrameChanges(frames: readonly Uint8Array[]): Promise<FrameThumbs> {
  const { result, timing } = await timedTask(async () => {
    const changes: (number | null)[] = [];
    const sizes: { width: number; height: number }[] = [];
    let previous: Buffer | null = null;
    for (const frame of frames) {
      let thumb: Buffer | null = null;
      let size = { width: 0, height: 0 };
      try {
        const image = sharp(frame, { limitInputPixels: 1_000_000 });
        const meta = await image.metadata();
        size = { width: meta.width ?? 0, height: meta.height ?? 0 };
        thumb = await image.greyscale().resize(16, 16, { fit: 'fill' }).raw().toBuffer();
      } catch {
        thumb = null;
      }
      let change: number | null = null;
      if (thumb && previous) {
        let sum = 0;
        for (let i = 0; i < thumb.length; i++) sum += Math.abs(thumb[i]! - previous[i]!);
        change = sum / thumb.length;
      }
      changes.push(change);
      sizes.push(size);
      previous = thumb;
    }
    return { changes, sizes };
  });
  return { ...result, timing };
}

export interface SequenceFacesRead {
  /** The faces of each frame (null: undecodable), by index. */
  faces: [number, FaceFinding[] | null][];
  /** The anti-spoofing network's live log-odds of the largest face, by index, on every `SEQUENCE_NETWORK.every`-th frame given that has a face. */
  network: [number, number][];
  timing: TaskTiming;
}

/** The faces of some frames, and the trained anti-spoofing network on some of them (sequence-network.ts judges). */
export async function readSequenceFaces(frames: readonly { index: number; image: Uint8Array }[]): Promise<SequenceFacesRead> {
  const { result, timing } = await timedTask(async () => {
    const faces: [number, FaceFinding[] | null][] = [];
    const network: [number, number][] = [];
    for (const [k, f] of frames.entries()) {
      const found = await analyseFaces(f.image).catch(() => null);
      faces.push([f.index, found]);
      if (k % SEQUENCE_NETWORK.every === 0 && found?.length) {
        const live = await networkLiveOf(f.image, found[0]!).catch(() => null);
        if (live !== null) network.push([f.index, liveLogOdds(live)]);
      }
    }
    return { faces, network };
  });
  return { ...result, timing };
}

/** Every frame as the judge reads it (sequence.ts): its time, size and change, and what the face models and the network read of the frames they read. */
export function sequenceReadings(times: readonly number[], thumbs: Pick<FrameThumbs, 'changes' | 'sizes'>, parts: readonly Pick<SequenceFacesRead, 'faces' | 'network'>[]): SequenceFrameReading[] {
  const found = new Map(parts.flatMap((p) => p.faces));
  const network = new Map(parts.flatMap((p) => p.network));
  return times.map((t, i) => ({
    t,
    ...(found.has(i) ? { faces: found.get(i)! } : {}),
    ...(network.has(i) ? { networkLogit: network.get(i)! } : {}),
    change: thumbs.changes[i] ?? null,
    width: thumbs.sizes[i]?.width ?? 0,
    height: thumbs.sizes[i]?.height ?? 0,
  }));
}
