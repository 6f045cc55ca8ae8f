import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq } from 'drizzle-orm';
import { schema } from '@idv/db';
import { STANDARD_FLOW, reportContradictions, type CheckReport, type FlowDefinition } from '@idv/domain';
import type { ChecksRunner } from '@idv/worker';
import { IMAGES, fixture, journey, newSession, openCase, type JourneyTestApp } from '../helpers/journey.ts';
import { clipFrames } from '../helpers/liveness-clips.ts';
import type { TestTenant } from '../helpers/webhooks.ts';
import { startChecksJourney, type ChecksJourney } from '../helpers/checks-journey.ts';

/**
 * One still per movement, the capture that carries no challenge drawn by the service
 * (docs/flows.md#the-live-sequence-or-stills): refused by the standard flow and by any flow that
 * does not say `liveness.allow_stills`, in the spec's error shape and before anything is stored;
 * accepted by a flow that allows it, whose case then carries `challenge_stills` and goes to review.
 */

const BASE: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['applicant', 'document', 'face'],
  documents: [{ country: '*', types: ['passport'] }],
  decision: { on_attention: 'review', max_resubmissions: 0, review_due_hours: 24 },
};
/** A flow stored before the setting existed: no `allow_stills` at all. */
const OLDER: FlowDefinition = { ...BASE, liveness: { challenges: ['turn_left', 'turn_right'] } };
/** A kiosk that takes photos: stills allowed, on purpose. */
const KIOSK: FlowDefinition = { ...BASE, liveness: { challenges: ['turn_left', 'turn_right'], allow_stills: true } };

// p01 facing the camera (the selfie), then two more frames of the same phone clip (the stills).
const clip = clipFrames('bona_fide/bf_p01_phone_turn_right_left.mp4', { start: 0.2, duration: 3, fps: 1, maxSide: 640 });

let t: JourneyTestApp;
let who: TestTenant;
let runner: ChecksRunner;
let document: Buffer;
let journeyChecks: ChecksJourney | undefined;

before(async () => {
  journeyChecks = await startChecksJourney({ older: OLDER, kiosk: KIOSK }, fixture(IMAGES.selfie));
  ({ t, who, runner, document } = journeyChecks);
});

after(() => journeyChecks?.close());

/** A case of the flow at its face step, the document and the selfie sent; returns its id and journey token. */
async function atFaceStep(flow: string, key = who.key): Promise<{ caseId: string; token: string }> {
  const caseId = await openCase(t, { flow_name: flow, country: 'FR' }, key);
  const token = await newSession(t, caseId, 'en', key);
  const steps: [string, unknown][] =
    flow === 'standard'
      ? [
          ['/consent', { accepted: true }],
          ['/applicant', { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' }],
          ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
          ['/document', { country: 'FR', type: 'passport' }],
        ]
      : [
          ['/applicant', { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' }],
          ['/document', { country: 'FR', type: 'passport' }],
        ];
  for (const [path, body] of steps) {
    const res = await journey(t, 'POST', path, token, { body });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
  }
  for (const [kind, bytes] of [['document_front', document], ['selfie', clip.frames[0]!]] as const) {
    const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    assert.equal(res.statusCode, 200, res.body);
  }
  return { caseId, token };
}

const stillRows = async (caseId: string) =>
  (await t.database.db.select().from(schema.pieces).where(eq(schema.pieces.caseId, caseId))).filter((p) => p.kind.startsWith('liveness_'));

test('the standard flow and a flow stored before the setting refuse stills: 422 face_sequence_required, in the error shape, nothing stored', async () => {
  for (const [flow, key] of [['standard', t.demoKey], ['older', who.key]] as const) {
    const { caseId, token } = await atFaceStep(flow, key);
    const res = await journey(t, 'PUT', '/pieces/liveness_turn_left', token, { bytes: fixture(IMAGES.turnLeft) });
    assert.equal(res.statusCode, 422, `${flow}: ${res.body}`);
    const { error } = res.json();
    assert.deepEqual([error.type, error.code, error.field], ['validation_error', 'face_sequence_required', 'kind'], flow);
    assert.match(error.message, /live sequence/);
    assert.match(error.doc_url, /\/errors\/face_sequence_required$/);
    assert.match(error.request_id, /^req_/);
    assert.deepEqual(await stillRows(caseId), [], `${flow}: no piece stored`);
    const state = (await journey(t, 'GET', '', token)).json();
    assert.equal(state.step, 'face');
    assert.deepEqual(state.missing, ['liveness_frame'], flow);
    const finish = await journey(t, 'POST', '/finish', token);
    assert.deepEqual([finish.statusCode, finish.json().error.code], [409, 'journey_incomplete'], flow);
  }
});

test('a flow that allows stills accepts them; the checks record challenge_stills and the case goes to review', async () => {
  const { caseId, token } = await atFaceStep('kiosk');
  let res = await journey(t, 'GET', '', token);
  assert.deepEqual(res.json().required_pieces, ['document_front', 'selfie', 'liveness_frame'], 'the live sequence is still what the journey asks');
  for (const [kind, bytes] of [['liveness_turn_left', clip.frames[1]!], ['liveness_turn_right', clip.frames[2]!]] as const) {
    res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
  }
  assert.equal(res.json().step, 'check', 'the stills complete the face step');
  assert.equal((await stillRows(caseId)).length, 2);
  res = await journey(t, 'POST', '/finish', token);
  assert.equal(res.statusCode, 200, res.body);

  const ran = await runner.drain();
  const kase = (await t.request('GET', `/v1/cases/${caseId}`, { key: who.key })).json();
  assert.deepEqual(ran.filter((r) => r.caseId === caseId).map((r) => r.outcome), ['in_review'], JSON.stringify(kase.checks));
  assert.equal(kase.state, 'in_review');
  const liveness = (kase.checks as CheckReport[]).find((c) => c.type === 'liveness')!;
  assert.ok(liveness.reasons.includes('challenge_stills'), JSON.stringify(liveness));
  assert.notEqual(liveness.status, 'ok', 'a liveness judged on stills is never ok');
  assert.equal(liveness.measures.challenges, 2, 'the stills were judged, movement by movement');
  for (const report of kase.checks as CheckReport[]) assert.deepEqual(reportContradictions(report), [], report.type);
  const results = (await t.request('GET', `/v1/cases/${caseId}/results`, { key: who.key })).json();
  assert.ok(JSON.stringify(results).includes('challenge_stills'), 'the client reads the reason in the results');
});
