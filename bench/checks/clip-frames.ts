import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The frames of a video clip at a fixed rate, as JPEG bytes, decoded by Debian's ffmpeg (the
 * project's reader of MP4). Only benches use it, so CI does not install it; without it this fails
 * saying how to install it.
 */
export function clipFrames(path: string, fps: number): Buffer[] {
  try {
    execFileSync('ffmpeg', ['-version'], { stdio: 'ignore' });
  } catch {
    throw new Error('ffmpeg is needed to decode the liveness clips: apt-get install -y ffmpeg');
  }
  const dir = mkdtempSync(join(tmpdir(), 'clip-frames-'));
  try {
    execFileSync('ffmpeg', ['-loglevel', 'error', '-i', path, '-vf', `fps=${fps}`, '-q:v', '3', join(dir, 'f%04d.jpg')]);
    return readdirSync(dir).sort().map((name) => readFileSync(join(dir, name)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
