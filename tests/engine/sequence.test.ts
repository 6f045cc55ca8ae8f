import assert from 'node:assert/strict';
import { test } from 'node:test';
import { analyseFaces, cameraSignals, framesToRead, judgeSequence, judgeSequenceNetwork, readFrameChanges, readSequenceFaces, SEQUENCE_NETWORK, sequenceReadings, type SequenceFrameReading, type SequenceJudgeInput } from '../../packages/engine/src/faces/index.ts';
import { readdirSync, readFileSync } from 'node:fs';
import sharp from 'sharp';
import { join } from 'node:path';
import { PLANARITY_LIMITS } from '../../packages/engine/src/faces/planarity.ts';
import { printPathSequence } from '../../packages/engine/src/generator/attacks/print-path.ts';
import { FIXTURES_DIR } from '../../packages/engine/src/generator/fixtures.ts';
import { createRng } from '../../packages/engine/src/generator/rng.ts';
import { reportContradictions } from '../../packages/domain/src/index.ts';
import { clipFrames } from '../helpers/liveness-clips.ts';

// Real frames: p01 filmed by a phone's front camera turns to their own left (toward the frame's
// right, yaw up), back, then to their own right (README of the clips; 10 frames a second, 320 px).
const clip = clipFrames('bona_fide/bf_p01_phone_turn_right_left.mp4', { start: 0.5, duration: 9.4 });
// Another person (p02, a laptop webcam), for a splice.
const other = clipFrames('bona_fide/bf_p02_webcam_turn_left_right.mp4', { start: 0, duration: 2 });
const PHONE = { label: 'Front Camera', width: 720, height: 1280, frame_rate: 30, facing_mode: 'user' };

/** The frames read as the pool reads them (the sample through the models, every frame's change). */
async function read(frames: Buffer[], times: number[]): Promise<SequenceFrameReading[]> {
  const picked = framesToRead(times);
  const [thumbs, faces] = await Promise.all([readFrameChanges(frames), readSequenceFaces(picked.map((index) => ({ index, image: frames[index]! })))]);
  return sequenceReadings(times, thumbs, [faces]);
}

const readings = await read(clip.frames, clip.times);

/** The judgement, checked to agree with itself (every reason and measure in the catalogue, the rules of check-agreement.ts). */
function judge(input: SequenceJudgeInput) {
  const report = judgeSequence(input);
  assert.deepEqual(reportContradictions(report), [], JSON.stringify(report));
  return report;
}
const [selfie] = await analyseFaces(clip.frames[0]!);
const issuedAt = new Date('2026-11-29T10:00:00Z');
const base: SequenceJudgeInput = {
  movements: ['turn_left', 'turn_right'],
  issuedAt,
  expiresAt: new Date(issuedAt.getTime() + 60_000),
  answeredAt: new Date(issuedAt.getTime() + 15_000),
  frames: readings,
  camera: PHONE,
  selfieFace: selfie!,
  mirrored: false,
};

test('a real head turn filmed for its challenge passes: order, continuity, one person, an ordinary camera', () => {
  assert.ok(clip.frames.length >= 90, `frames ${clip.frames.length}`);
  const report = judge(base);
  assert.equal(report.status, 'ok', JSON.stringify(report));
  assert.deepEqual(report.reasons, []);
  assert.equal(report.measures.challenges_performed, 2);
  assert.ok(report.measures.sequence_frames_read! <= 16, 'only a sample goes through the face models');
  assert.ok(report.measures.sequence_fps! >= 9.9);
  assert.ok(report.measures.sequence_yaw_max! >= 15 && report.measures.sequence_yaw_min! <= -15);
});

test('the same recording answering a challenge drawn in the other order is not performed', () => {
  const report = judge({ ...base, movements: ['turn_right', 'turn_left'] });
  assert.ok(report.reasons.includes('challenge_not_performed'), JSON.stringify(report));
  assert.notEqual(report.status, 'ok');
});

test('the same film played backwards is a continuous capture of the other order, which it performs', async () => {
  const frames = [...clip.frames].reverse();
  const report = judge({ ...base, movements: ['turn_right', 'turn_left'], frames: await read(frames, clip.times) });
  assert.equal(report.status, 'ok', JSON.stringify(report));
  // It starts turned: measured from the selfie's pose, not from its own first frames.
  assert.ok(judge({ ...base, selfieFace: null, movements: ['turn_right', 'turn_left'], frames: await read(frames, clip.times) }).reasons.includes('challenge_not_performed'));
});

test('a movement the challenge did not ask for, or one missing, is not performed', () => {
  assert.ok(judge({ ...base, movements: ['turn_left'] }).reasons.includes('challenge_not_performed'), 'an extra movement');
  assert.ok(judge({ ...base, movements: ['turn_left', 'turn_right', 'look_up'] }).reasons.includes('challenge_not_performed'), 'a missing one');
});

test('a capture longer than the time since the challenge was issued was recorded before it: expired', () => {
  const early = judge({ ...base, answeredAt: new Date(issuedAt.getTime() + 4_000) });
  assert.ok(early.reasons.includes('challenge_expired'), JSON.stringify(early.measures));
  const late = judge({ ...base, answeredAt: new Date(issuedAt.getTime() + 61_000) });
  assert.ok(late.reasons.includes('challenge_expired'));
});

test('frames dropped, reordered or spliced from another recording are not one continuous capture', async () => {
  const sparse = readings.filter((_, i) => i % 4 === 0);
  assert.ok(judge({ ...base, frames: sparse }).reasons.includes('challenge_not_continuous'), 'two frames a second');
  const swapped = [...readings];
  [swapped[10], swapped[11]] = [swapped[11]!, swapped[10]!];
  assert.ok(judge({ ...base, frames: swapped }).reasons.includes('challenge_not_continuous'), 'times not increasing');
  // p01's first 4 s, then p02: a cut to another person's recording, at the same cadence.
  const frames = [...clip.frames.slice(0, 40), ...other.frames];
  const times = frames.map((_, i) => i * 100);
  const spliced = judge({ ...base, frames: await read(frames, times) });
  assert.ok(spliced.reasons.includes('challenge_not_continuous'), JSON.stringify(spliced.measures));
  assert.ok(spliced.reasons.includes('challenge_person_differs'), JSON.stringify(spliced.measures));
  assert.equal(spliced.status, 'failed');
});

test('a real capture changes little from frame to frame; the cut is many times larger', () => {
  const report = judge(base);
  assert.ok(report.measures.sequence_max_frame_change! < 20, `max change ${report.measures.sequence_max_frame_change}`);
});

test('camera signals: a virtual camera’s label alone is a measure, several signals together are suspected', () => {
  const intervals = clip.times.slice(1).map((t, i) => t - clip.times[i]!);
  const jittered = intervals.map((d, i) => d + (i % 3) - 1);
  const frames = [{ width: 180, height: 320 }];
  const label = cameraSignals({ ...PHONE, label: 'OBS Virtual Camera' }, frames, jittered);
  assert.equal(label.measures.camera_virtual_label, 1);
  assert.equal(label.count, 1);
  const several = cameraSignals({ label: 'OBS Virtual Camera', width: 1920, height: 1080 }, frames, intervals);
  assert.ok(several.count >= 2, JSON.stringify(several.measures));
  assert.equal(cameraSignals(PHONE, frames, jittered).count, 0, 'an ordinary phone camera');
  // Judged into the report: several signals refuse; the exact 100 ms timestamps of this test's frames are one of them.
  const injected = judge({ ...base, camera: { label: 'ManyCam Virtual Webcam', width: 1280, height: 720 } });
  assert.ok(injected.reasons.includes('camera_injection_suspected'));
  assert.equal(injected.status, 'failed');
});

test('flat or round: the real head turn is round; a printed photo turned by hand along the challenge is flat and not live', async () => {
  const real = judgeSequence(base);
  assert.ok(real.measures.planarity_residual! >= PLANARITY_LIMITS.maxFlatResidual, JSON.stringify(real.measures));
  assert.ok(!real.reasons.includes('challenge_not_live'));

  // A generated attack (labelled so): a fixture photo printed, then turned left and right by a hand at 8 frames a second.
  const photo = readFileSync(join(FIXTURES_DIR, 'faces/face_recognition/examples/obama.jpg'));
  const print = await printPathSequence(photo, createRng(13), { species: 'print_planar', frames: 24, moves: ['turn_left', 'turn_right'] });
  assert.equal(print.generated, true);
  const times = print.frames.map((_, i) => i * 125);
  const frames = await read(print.frames, times);
  const [printSelfie] = await analyseFaces(print.frames[0]!);
  const report = judgeSequence({ ...base, frames, selfieFace: printSelfie!, camera: { ...PHONE, width: 720, height: 960 } });
  // Two independent reasons: the face models read a tilted print as a frontal face (its pose
  // hardly moves), and its landmarks move as one plane.
  assert.ok(report.reasons.includes('challenge_not_performed'), JSON.stringify(report));
  assert.ok(report.reasons.includes('challenge_not_live'), JSON.stringify(report));
  assert.ok(report.measures.planarity_residual! < PLANARITY_LIMITS.maxFlatResidual);
  assert.notEqual(report.status, 'ok');
});

test('screen or print: the network reads the head turn as live, the same recording replayed on a phone screen as an attack', async () => {
  const real = judge(base);
  assert.ok(real.measures.sequence_network_frames! >= SEQUENCE_NETWORK.minFrames, JSON.stringify(real.measures));
  assert.ok(real.measures.sequence_network_live_median! > SEQUENCE_NETWORK.maxMedianLogit, JSON.stringify(real.measures));
  assert.ok(!real.reasons.includes('challenge_screen_or_print'));

  // Real: p01's recording played on a phone and filmed by a second camera (the clips' README).
  const replay = clipFrames('replay_attack/ra_p01_screen_turn_right_left.mp4', { start: 0.5, duration: 9.4 });
  const report = judge({ ...base, frames: await read(replay.frames, replay.times) });
  assert.ok(report.reasons.includes('challenge_screen_or_print'), JSON.stringify(report));
  assert.ok(report.measures.sequence_network_frames_under! > report.measures.sequence_network_frames! / 2, JSON.stringify(report.measures));
  assert.notEqual(report.status, 'ok');
});

test('screen or print: a laptop webcam’s head turn, a camera the threshold was not chosen on, stays live', async () => {
  const webcam = clipFrames('bona_fide/bf_p02_webcam_turn_left_right.mp4');
  const frames = await read(webcam.frames, webcam.times);
  const verdict = judgeSequenceNetwork(frames.flatMap((f) => (f.networkLogit === undefined ? [] : [f.networkLogit])));
  assert.ok(verdict.frames >= SEQUENCE_NETWORK.minFrames && !verdict.attack, JSON.stringify(verdict));
});

test('screen or print: NUAA’s printed photos held to a webcam are attacks, the same subject’s live frames are not (pad-dev, at the journey’s 320 px)', async () => {
  const PAD = join(FIXTURES_DIR, 'pad-dev');
  // Subject 0010, of the half the threshold was not chosen on (bench/checks/pad-sequence.ts).
  const framesOf = (label: 'live' | 'spoof') =>
    Promise.all(readdirSync(join(PAD, label, '0010')).sort().slice(0, 8).map((f) => sharp(readFileSync(join(PAD, label, '0010', f))).resize(320, 320, { fit: 'inside' }).jpeg({ quality: 60 }).toBuffer()));
  const judged = async (frames: Buffer[]) => {
    const read = await readSequenceFaces(frames.map((image, index) => ({ index, image })));
    return judgeSequenceNetwork(read.network.map(([, v]) => v));
  };
  const print = await judged(await framesOf('spoof'));
  assert.ok(print.frames >= SEQUENCE_NETWORK.minFrames && print.attack, JSON.stringify(print));
  const live = await judged(await framesOf('live'));
  assert.ok(live.frames >= SEQUENCE_NETWORK.minFrames && !live.attack, JSON.stringify(live));
});

test('screen or print: judged by the median, so one misread frame does not decide; too few frames are not judged', () => {
  const low = SEQUENCE_NETWORK.maxMedianLogit - 3;
  const high = SEQUENCE_NETWORK.maxMedianLogit + 3;
  assert.equal(judgeSequenceNetwork([high, low, high, high]).attack, false);
  assert.equal(judgeSequenceNetwork([low, low, high, low]).attack, true);
  assert.deepEqual(judgeSequenceNetwork([low, low]), { frames: 2, median: null, under: 2, attack: false });
});
