import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { STANDARD_FLOW, reportContradictions, type CheckReport, type FlowDefinition } from '@idv/domain';
import type { ChecksRunner } from '@idv/worker';
import { journey, newSession, openCase, type JourneyTestApp } from '../helpers/journey.ts';
import { clipFrames } from '../helpers/liveness-clips.ts';
import type { TestTenant } from '../helpers/webhooks.ts';
import { startChecksJourney, type ChecksJourney } from '../helpers/checks-journey.ts';
import { SEQUENCE_NETWORK } from '@idv/engine';

/**
 * The live sequence through the journey API on real frames (docs/liveness.md#the-live-sequence):
 * a challenge drawn by the server, the frames of a real head turn sent for it, the checks runner
 * judging them; then what is refused: another challenge's order, the recording replayed on a
 * screen, a reused, wrong or stale nonce, and frames outside the limits.
 */

const FLOW = 'sequence_api';
const DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['applicant', 'document', 'face'],
  documents: [{ country: '*', types: ['passport'] }],
  liveness: { challenges: ['turn_left', 'turn_right'] },
  decision: { on_attention: 'review', max_resubmissions: 0, review_due_hours: 24 },
};

// p01 turns to their own left, back, then to their own right (the clips' README): in time order
// it answers [turn_left, turn_right]; played backwards, a continuous [turn_right, turn_left].
const clip = clipFrames('bona_fide/bf_p01_phone_turn_right_left.mp4', { start: 0.5, duration: 9.4 });
// The selfie and the document's portrait: p01 facing the camera, at the clip's own size (358×640).
const stills = clipFrames('bona_fide/bf_p01_phone_turn_right_left.mp4', { start: 0.2, duration: 0.1, fps: 10, maxSide: 640 });
const PHONE = { label: 'Front Camera', width: 720, height: 1280, frame_rate: 30, facing_mode: 'user', video_inputs: 2 };

let t: JourneyTestApp;
let who: TestTenant;
let runner: ChecksRunner;
let document: Buffer;
let journeyChecks: ChecksJourney | undefined;

before(async () => {
  journeyChecks = await startChecksJourney({ [FLOW]: DEFINITION }, stills.frames[0]!);
  ({ t, who, runner, document } = journeyChecks);
});

after(() => journeyChecks?.close());

/** A case at its face step with its selfie sent; returns the journey token. */
async function atFaceStep(): Promise<{ caseId: string; token: string }> {
  const caseId = await openCase(t, { flow_name: FLOW, country: 'FR' }, who.key);
  const token = await newSession(t, caseId, 'en', who.key);
  for (const [path, body] of [
    ['/applicant', { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' }],
    ['/document', { country: 'FR', type: 'passport' }],
  ] as const) {
    const res = await journey(t, 'POST', path, token, { body });
    assert.equal(res.statusCode, 200, res.body);
  }
  for (const [kind, bytes] of [['document_front', document], ['selfie', stills.frames[0]!]] as const) {
    const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    assert.equal(res.statusCode, 200, res.body);
  }
  return { caseId, token };
}

async function challenge(token: string): Promise<{ id: string; nonce: string; movements: string[]; issued_at: string; expires_at: string; max_frames: number }> {
  const res = await journey(t, 'POST', '/face/challenge', token);
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}

/** A clip's frames in the order that performs `movements` (forwards or backwards), with a camera's jittered times. */
function framesFor(movements: string[], of: Buffer[] = clip.frames): { t: number; image: string }[] {
  const forwards = movements[0] === 'turn_left';
  const frames = forwards ? of : [...of].reverse();
  return frames.map((f, i) => ({ t: 1000.5 + i * 100 + ((i * 7) % 5) - 2, image: f.toString('base64') }));
}

function send(token: string, body: Record<string, unknown>) {
  return journey(t, 'POST', '/face/sequence', token, { body: { camera: PHONE, ...body } });
}

async function livenessOf(caseId: string): Promise<{ status: string; reasons: string[]; measures: Record<string, number> }> {
  const ran = await runner.drain();
  assert.ok(ran.find((r) => r.caseId === caseId), 'the runner judged the case');
  const res = await t.request('GET', `/v1/cases/${caseId}`, { key: who.key });
  assert.equal(res.statusCode, 200, res.body);
  const found = res.json().checks.find((c: { type: string }) => c.type === 'liveness');
  assert.ok(found, JSON.stringify(res.json().checks));
  assert.deepEqual(reportContradictions(found as CheckReport), [], JSON.stringify(found));
  return found;
}

test('the server draws the challenge: the flow’s movements in a random order, a nonce, a minute to answer', async () => {
  const { token } = await atFaceStep();
  const orders = new Set<string>();
  const nonces = new Set<string>();
  // Drawn until both orders are seen: with a fair draw, 40 draws of one order only would happen
  // once in 2^39 runs (a fixed 8 draws would fail once in 128).
  for (let i = 0; i < 40 && orders.size < 2; i++) {
    const c = await challenge(token);
    assert.deepEqual([...c.movements].sort(), ['turn_left', 'turn_right']);
    assert.equal(Date.parse(c.expires_at) - Date.parse(c.issued_at), 60_000);
    assert.ok(c.nonce.length >= 32);
    assert.ok(!nonces.has(c.nonce), 'every challenge has its own nonce');
    nonces.add(c.nonce);
    orders.add(c.movements.join());
  }
  assert.equal(orders.size, 2, 'both orders are drawn');
});

test('a real head turn filmed for its challenge passes end to end; its frames are pieces in capture order', async () => {
  const { caseId, token } = await atFaceStep();
  const c = await challenge(token);
  t.clock.advance(14_000); // the capture (9.4 s) and its upload
  const res = await send(token, { challenge_id: c.id, nonce: c.nonce, frames: framesFor(c.movements) });
  assert.equal(res.statusCode, 200, res.body);
  const state = res.json();
  const frames = state.pieces.filter((p: { kind: string }) => p.kind === 'liveness_frame');
  assert.equal(frames.length, clip.frames.length);
  assert.deepEqual(frames.map((p: { id: string }) => p.id), [...frames.map((p: { id: string }) => p.id)].sort(), 'ids in capture order');
  assert.equal(state.step, 'check');
  assert.deepEqual(state.missing, []);
  // The answer is used once, on every instance (it is in the database).
  const again = await send(token, { challenge_id: c.id, nonce: c.nonce, frames: framesFor(c.movements) });
  assert.equal(again.statusCode, 409, again.body);
  assert.equal(again.json().error.code, 'face_challenge_invalid');

  const done = await journey(t, 'POST', '/finish', token);
  assert.equal(done.statusCode, 200, done.body);
  const liveness = await livenessOf(caseId);
  assert.equal(liveness.status, 'ok', JSON.stringify(liveness));
  assert.equal(liveness.measures.challenges_performed, 2);
  assert.equal(liveness.measures.sequence_frames, clip.frames.length);
});

test('the same recording sent for a challenge drawn in the other order is not performed', async () => {
  const { caseId, token } = await atFaceStep();
  const c = await challenge(token);
  t.clock.advance(14_000);
  const wrong = c.movements[0] === 'turn_left' ? ['turn_right', 'turn_left'] : ['turn_left', 'turn_right'];
  const res = await send(token, { challenge_id: c.id, nonce: c.nonce, frames: framesFor(wrong) });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);
  const liveness = await livenessOf(caseId);
  assert.ok(liveness.reasons.includes('challenge_not_performed'), JSON.stringify(liveness));
  assert.notEqual(liveness.status, 'ok');
});

test('the same recording replayed on a phone screen and filmed for the challenge is read as a screen', async () => {
  // Real: p01's recording played on a phone and filmed by a second camera (the clips' README).
  const replay = clipFrames('replay_attack/ra_p01_screen_turn_right_left.mp4', { start: 0.5, duration: 9.4 });
  const { caseId, token } = await atFaceStep();
  const c = await challenge(token);
  t.clock.advance(14_000);
  const res = await send(token, { challenge_id: c.id, nonce: c.nonce, frames: framesFor(c.movements, replay.frames) });
  assert.equal(res.statusCode, 200, res.body);
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);
  const liveness = await livenessOf(caseId);
  assert.ok(liveness.reasons.includes('challenge_screen_or_print'), JSON.stringify(liveness));
  assert.ok(liveness.measures.sequence_network_live_median! < SEQUENCE_NETWORK.maxMedianLogit, JSON.stringify(liveness.measures));
  assert.equal(liveness.status, 'attention', 'what follows is the flow’s choice (review by default)');
});

test('a wrong, another case’s or a stale nonce is refused and stores nothing', async () => {
  const { token } = await atFaceStep();
  const mine = await challenge(token);
  const frames = framesFor(mine.movements);
  const wrongNonce = await send(token, { challenge_id: mine.id, nonce: 'x'.repeat(32), frames });
  assert.equal(wrongNonce.statusCode, 409);
  assert.equal(wrongNonce.json().error.code, 'face_challenge_invalid');
  const elsewhere = await atFaceStep();
  const theirs = await challenge(elsewhere.token);
  const crossed = await send(token, { challenge_id: theirs.id, nonce: theirs.nonce, frames });
  assert.equal(crossed.json().error.code, 'face_challenge_invalid', 'another case’s challenge is not found');
  t.clock.advance(60_001);
  const stale = await send(token, { challenge_id: mine.id, nonce: mine.nonce, frames });
  assert.equal(stale.statusCode, 409, stale.body);
  assert.equal(stale.json().error.code, 'face_challenge_expired');
  const state = (await journey(t, 'GET', '', token)).json();
  assert.equal(state.pieces.filter((p: { kind: string }) => p.kind === 'liveness_frame').length, 0);
  assert.equal(state.step, 'face');
});

test('frames outside the limits are refused in the spec’s error shape, before the challenge is used', async () => {
  const { token } = await atFaceStep();
  const c = await challenge(token);
  const good = framesFor(c.movements);
  const refused = async (frames: unknown, status: number, code: string, field?: string) => {
    const res = await send(token, { challenge_id: c.id, nonce: c.nonce, frames });
    assert.equal(res.statusCode, status, res.body);
    assert.equal(res.json().error.code, code);
    if (field) assert.equal(res.json().error.field, field);
  };
  await refused(good.slice(0, 10), 422, 'sequence_invalid', 'frames');
  await refused([...good, ...good].slice(0, 101), 422, 'parameter_invalid');
  await refused(good.map((f, i) => ({ ...f, t: i * 200 })), 422, 'sequence_invalid', 'frames');
  const large = (await sharp(stills.frames[0]!).jpeg().toBuffer()).toString('base64');
  await refused([{ t: good[0]!.t, image: large }, ...good.slice(1)], 422, 'image_dimensions_invalid', 'frames.0.image');
  const webp = (await sharp(clip.frames[0]!).webp({ quality: 50 }).toBuffer()).toString('base64');
  await refused([...good.slice(0, 3), { t: good[3]!.t, image: webp }, ...good.slice(4)], 415, 'image_type_unsupported', 'frames.3.image');
  const noise = (await sharp({ create: { width: 240, height: 320, channels: 3, background: { r: 0, g: 0, b: 0 }, noise: { type: 'gaussian', mean: 128, sigma: 90 } } }).jpeg({ quality: 100 }).toBuffer()).toString('base64');
  const heavy = good.map((f) => ({ ...f, image: noise }));
  const tooLarge = await send(token, { challenge_id: c.id, nonce: c.nonce, frames: heavy });
  assert.ok([413, 422].includes(tooLarge.statusCode), tooLarge.body);
  // None of this used the challenge: the capture, sent right, is accepted.
  t.clock.advance(14_000);
  const res = await send(token, { challenge_id: c.id, nonce: c.nonce, frames: good });
  assert.equal(res.statusCode, 200, res.body);
});
