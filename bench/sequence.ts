import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { STANDARD_FLOW } from '@idv/domain';
import { analyseFaces, ChecksPool, generateDocument, loadFaceModels, networkLiveOf, type CaseInput } from '@idv/engine';

/**
 * npm run bench:sequence: the CPU a case costs with the live sequence (docs/liveness.md#the-live-sequence).
 * A real head-turn clip (../shared/fixtures/liveness-clips, decoded by ffmpeg at 10 frames a
 * second, 320 pixels) as the sequence, a frame of it as the selfie and as the portrait of a
 * generated passport; the checks pool (2 threads) analyses the case several times and the figures
 * are each task's thread CPU, the case's sum, and the frames' bytes (the upload's budget).
 */

const FIXTURES = resolve(fileURLToPath(new URL('../../shared/fixtures', import.meta.url)));
const CLIP = join(FIXTURES, 'liveness-clips/bona_fide/bf_p01_phone_turn_right_left.mp4');
if (!existsSync(CLIP)) throw new Error(`${CLIP} is missing: the bench reads ../shared/fixtures beside the checkout`);
const RUNS = Number(process.env.RUNS ?? 4);

function decode(fps: number, side: number, start: number, duration: number): Buffer[] {
  const dir = mkdtempSync(join(tmpdir(), 'bench-seq-'));
  try {
    execFileSync('ffmpeg', ['-loglevel', 'error', '-ss', String(start), '-t', String(duration), '-i', CLIP, '-vf', `fps=${fps},scale='if(gt(iw,ih),${side},-2)':'if(gt(iw,ih),-2,${side})'`, '-q:v', '5', join(dir, 'f%03d.jpg')]);
    return readdirSync(dir).sort().map((f) => readFileSync(join(dir, f)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const frames = decode(10, 320, 0.5, 9.4);
const [selfie] = decode(10, 640, 0.2, 0.1);
const fields = { document_code: 'P', issuing_country: 'FRA', document_number: '14FP52K81', surname: 'MARTIN', given_names: 'JULIEN', nationality: 'FRA', birth_date: '1984-05-17', sex: 'M' as const, expiry_date: '2033-06-30' };
const passport = (await generateDocument({ format: 'TD3', fields, portrait: selfie!, seed: 7 })).image;
const issuedAt = new Date();
const input = (withSequence: boolean): CaseInput => ({
  pieces: { document_front: passport, selfie: selfie! },
  declared: null,
  entered: null,
  questionnaire: null,
  flow: { ...STANDARD_FLOW, liveness: { challenges: ['turn_left', 'turn_right'] } },
  document: { country: 'FR', type: 'passport' },
  environment: 'sandbox',
  now: new Date(),
  sequence: withSequence
    ? {
        movements: ['turn_left', 'turn_right'],
        issuedAt,
        expiresAt: new Date(issuedAt.getTime() + 60_000),
        answeredAt: new Date(issuedAt.getTime() + 12_000),
        times: frames.map((_, i) => i * 100 + (i % 3)),
        frames,
        camera: { label: 'Front Camera', width: 720, height: 1280, frame_rate: 30, facing_mode: 'user' },
      }
    : null,
});

const pool = new ChecksPool({ threads: 2 });
await pool.warmUp();
const cpuOf = (tasks: Record<string, { cpuMs: number | null }> | undefined, match: (name: string) => boolean) =>
  Object.entries(tasks ?? {}).filter(([n]) => match(n)).reduce((a, [, t]) => a + (t.cpuMs ?? 0), 0);
const rows: { total: number; sequence: number; wall: number; status: string; networkFrames: number }[] = [];
const without: number[] = [];
for (let i = 0; i < RUNS; i++) {
  const a = await pool.analyse(input(true));
  const liveness = a.checks.find((c) => c.type === 'liveness');
  rows.push({ total: cpuOf(a.timings.tasks, () => true), sequence: cpuOf(a.timings.tasks, (n) => n.startsWith('sequence_')), wall: a.timings.total, status: `${liveness?.status} ${liveness?.reasons.join(',')}`, networkFrames: liveness?.measures.sequence_network_frames ?? 0 });
  const b = await pool.analyse(input(false));
  without.push(cpuOf(b.timings.tasks, () => true));
}
await pool.destroy();

// The trained anti-spoofing network's share (faces/sequence-network.ts): its CPU per frame, timed
// alone in this thread on frames the case's reading gave it, times the frames it read in a case.
await loadFaceModels();
const networkMs: number[] = [];
for (const frame of frames.filter((_, i) => i % 6 === 0)) {
  const [face] = await analyseFaces(frame);
  if (!face) continue;
  const started = process.cpuUsage();
  await networkLiveOf(frame, face);
  const cpu = process.cpuUsage(started);
  networkMs.push((cpu.user + cpu.system) / 1000);
}

const median = (v: number[]) => [...v].sort((x, y) => x - y)[v.length >> 1]!;
const bytes = frames.reduce((n, f) => n + f.length, 0);
const figures = {
  runs: RUNS,
  frames: frames.length,
  frame_bytes_mean: Math.round(bytes / frames.length),
  sequence_bytes: bytes,
  upload_seconds_at_750_kbit: Math.round(((Math.ceil(bytes / 3) * 4) * 8 / 750_000) * 10) / 10,
  case_cpu_ms_with_sequence: median(rows.map((r) => r.total)),
  sequence_cpu_ms: median(rows.map((r) => r.sequence)),
  case_cpu_ms_without_liveness: median(without),
  case_wall_ms: median(rows.map((r) => r.wall)),
  network_frames_per_case: rows[0]!.networkFrames,
  network_cpu_ms_per_frame: Math.round(median(networkMs) * 10) / 10,
  network_cpu_ms_per_case: Math.round(median(networkMs) * rows[0]!.networkFrames),
  liveness: rows[0]!.status,
};
console.log(`A case with a ${figures.frames}-frame live sequence (${figures.frame_bytes_mean} bytes a frame, ${figures.sequence_bytes} in all: ${figures.upload_seconds_at_750_kbit} s at 750 kbit/s in base64)`);
console.log(`CPU per case: ${figures.case_cpu_ms_with_sequence} ms with the sequence (of which ${figures.sequence_cpu_ms} ms for its frames), ${figures.case_cpu_ms_without_liveness} ms without liveness; wall ${figures.case_wall_ms} ms on 2 threads`);
console.log(`of which the anti-spoofing network: ${figures.network_frames_per_case} frames × ${figures.network_cpu_ms_per_frame} ms = ${figures.network_cpu_ms_per_case} ms`);
console.log(`liveness: ${figures.liveness}`);
console.log(JSON.stringify(figures));
