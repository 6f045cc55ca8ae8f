import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES } from './journey.ts';

/** The real head-turn and replay clips (../shared/fixtures/liveness-clips: README.md says what each shows). */
const CLIPS = join(FIXTURES, 'liveness-clips');

/**
 * A clip decoded into the frames the journey would send: `fps` frames a second from `start` for
 * `duration` seconds, scaled to at most `maxSide` pixels on the longer side, as JPEG (ffmpeg from
 * Debian). Times are ms from the first frame, as the journey's capture gives them.
 */
export function clipFrames(name: string, opts: { start?: number; duration?: number; fps?: number; maxSide?: number } = {}): { frames: Buffer[]; times: number[] } {
  const path = join(CLIPS, name);
  if (!existsSync(path)) throw new Error(`liveness clip ${path} is missing: the tests read ../shared/fixtures/liveness-clips beside the checkout`);
  const fps = opts.fps ?? 10;
  const side = opts.maxSide ?? 320;
  const dir = mkdtempSync(join(tmpdir(), 'clip-'));
  const args = ['-loglevel', 'error', '-ss', String(opts.start ?? 0), ...(opts.duration ? ['-t', String(opts.duration)] : []), '-i', path];
  args.push('-vf', `fps=${fps},scale='if(gt(iw,ih),${side},-2)':'if(gt(iw,ih),-2,${side})'`, '-q:v', '5', join(dir, 'f%03d.jpg'));
  try {
    execFileSync('ffmpeg', args);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw new Error(`ffmpeg could not decode ${name} (apt-get install ffmpeg): ${(err as Error).message}`);
  }
  try {
    const files = readdirSync(dir).filter((f) => f.endsWith('.jpg')).sort();
    return { frames: files.map((f) => readFileSync(join(dir, f))), times: files.map((_, i) => Math.round((i * 1000) / fps)) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
