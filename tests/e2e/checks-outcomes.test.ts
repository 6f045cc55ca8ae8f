import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import sharp from 'sharp';
import { findCheckJob } from '@idv/db';
import { reportContradictions, STANDARD_FLOW, type CheckReport, type FlowDefinition } from '@idv/domain';
import { ChecksPool, generateDocument, type DocumentFields } from '@idv/engine';
import { verifyWebhook } from '@idv/sdk';
import { ChecksRunner, WebhookDispatcher } from '@idv/worker';
import { activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { createEndpoint, newTenant, type TestTenant } from '../helpers/webhooks.ts';
import { checksRunnerFor } from '../helpers/checks-runner.ts';

/**
 * The whole path of an automated decision: a case created by the API, the person's pieces sent
 * through the journey routes (a generated passport carrying a real photo, real fixture selfies),
 * the checks runner and its thread pool decide, and the signed webhook reaches a real receiver.
 * One test per outcome, each produced by real images where the real checks give it
 * deterministically; the sandbox test values where they cannot (a forced outcome still runs
 * every check). Then a crash before the commit and a re-run after it.
 */

const FLOW = 'checks_e2e';
/** No liveness challenge (no real turned-head photos of the fixture persons exist), one resubmission allowed. */
const DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['applicant', 'questionnaire', 'document', 'face'],
  documents: [{ country: '*', types: ['passport', 'id_card'] }],
  liveness: { challenges: [] },
  // Face thresholds: the standard flow's, set from bench:checks (docs/liveness.md).
  decision: { on_attention: 'review', max_resubmissions: 1, review_due_hours: 24 },
};

/**
 * The same flow asking for two head turns, as one still each (no real head-turn clip of the fixture
 * persons exists to film the live sequence from): a flow that allows stills, whose cases then carry
 * challenge_stills and go to review.
 */
const FLOW_LIVE = 'checks_e2e_live';
const DEFINITION_LIVE: FlowDefinition = { ...DEFINITION, liveness: { challenges: ['turn_left', 'turn_right'], allow_stills: true } };

const PHOTOS = {
  /** Printed as the document portrait. */
  portrait: 'faces/face_recognition/examples/obama.jpg',
  /** Another photo of the same person, as the selfie. */
  selfie: 'faces/face_recognition/examples/obama2.jpg',
  /** Kit Harington facing the camera, and with his head turned to his own right (as labelled by eye). */
  kitFront: 'faces/face_recognition/examples/knn_examples/train/kit_harington/john1.jpeg',
  kitTurnedRight: 'faces/face_recognition/examples/knn_examples/train/kit_harington/john2.jpeg',
  /** Another photo of him, printed as the portrait (the selfie's own photo as the portrait would be the document held as the selfie). */
  kitPortrait: 'faces/face_recognition/examples/knn_examples/test/johnsnow_test1.jpg',
  /** No human face at all. */
  noFace: 'faces/debian/baboon.jpg',
};

const PERSON = { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' };

function fieldsFor(overrides: Partial<DocumentFields> = {}): DocumentFields {
  return {
    document_code: 'P',
    issuing_country: 'FRA',
    document_number: '14FP52K81',
    surname: 'MARTIN',
    given_names: 'JULIEN',
    nationality: 'FRA',
    birth_date: PERSON.birth_date,
    sex: 'M',
    expiry_date: '2033-06-30',
    ...overrides,
  };
}

let t: JourneyTestApp;
let pool: ChecksPool;
let runner: ChecksRunner;
let dispatcher: WebhookDispatcher;
let rx: Receiver;
let who: TestTenant;
let secret: string;

before(async () => {
  t = await startJourneyApp({ WEBHOOK_POLL_MS: '50' });
  who = await newTenant(t, 'sandbox');
  await activateFlow(t, who.tenant.clientId, 'sandbox', FLOW, DEFINITION);
  await activateFlow(t, who.tenant.clientId, 'sandbox', FLOW_LIVE, DEFINITION_LIVE);
  rx = await startReceiver();
  secret = (await createEndpoint(t, who, rx.url, ['case.decided', 'case.resubmission_requested'])).secret;
  dispatcher = new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen });
  await dispatcher.start();
  // One pool for the file, two threads: a case's document and face parts run side by side.
  pool = new ChecksPool({ threads: 2 });
  runner = newRunner();
});

after(async () => {
  await dispatcher?.stop();
  await pool?.destroy();
  await rx?.close();
  await t?.close();
});

function newRunner(leaseMs = 60_000): ChecksRunner {
  return checksRunnerFor(t, pool, { leaseMs });
}

interface Submission {
  /** The client and environment (default: the sandbox tenant of the file). */
  as?: TestTenant;
  flow?: string;
  /** Challenge images by piece kind (liveness_turn_left…). */
  challenges?: Record<string, Buffer>;
  entered?: typeof PERSON;
  declared?: Record<string, string>;
  answers?: Record<string, string>;
  document?: Buffer;
  selfie?: Buffer;
}

const documents = new Map<string, Buffer>();
/** A generated passport page photographed like a phone would (same fields and seed, same bytes). */
async function passport(fields: DocumentFields, portrait = PHOTOS.portrait, seed = 7): Promise<Buffer> {
  const key = JSON.stringify([fields, portrait, seed]);
  if (!documents.has(key)) {
    const doc = await generateDocument({ format: 'TD3', fields, portrait: fixture(portrait), seed, degrade: { maxGlare: 0.2, blurSigma: [0.3, 0.6] } });
    documents.set(key, doc.image);
  }
  return documents.get(key)!;
}

/** Creates a case by API and sends everything through the journey routes; returns its id. */
async function submit(s: Submission): Promise<string> {
  const body: Record<string, unknown> = { flow_name: s.flow ?? FLOW, country: 'FR', external_ref: `e2e-${Math.random().toString(36).slice(2, 10)}` };
  if (s.declared) body.declared = s.declared;
  const key = (s.as ?? who).key;
  const caseId = await openCase(t, body, key);
  const token = await newSession(t, caseId, 'en', key);
  const steps: [string, unknown][] = [
    ['/applicant', s.entered ?? PERSON],
    ['/questionnaire', { answers: s.answers ?? { source_of_funds: 'salary', politically_exposed: 'no' } }],
    ['/document', { country: 'FR', type: 'passport' }],
  ];
  for (const [path, payload] of steps) {
    const res = await journey(t, 'POST', path, token, { body: payload });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
  }
  const pieces: [string, Buffer][] = [
    ['document_front', s.document ?? (await passport(fieldsFor()))],
    ['selfie', s.selfie ?? fixture(PHOTOS.selfie)],
    ...Object.entries(s.challenges ?? {}),
  ];
  for (const [kind, bytes] of pieces) {
    const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
  }
  const done = await journey(t, 'POST', '/finish', token);
  assert.equal(done.statusCode, 200, done.body);
  tokens.set(caseId, token);
  return caseId;
}

/** The journey token of each case submitted (the person comes back with it after a resubmission). */
const tokens = new Map<string, string>();

/** The verified webhooks the receiver got for a case, in order. */
function eventsOf(caseId: string): { type: string; data: Record<string, unknown> }[] {
  return rx.received
    .map((r) => verifyWebhook(r.body, r.headers, secret).event)
    .filter((e) => (e.object as { id: string }).id === caseId)
    .map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
}

async function webhookFor(caseId: string, count = 1): Promise<{ type: string; data: Record<string, unknown> }[]> {
  await rx.waitFor(() => eventsOf(caseId).length >= count, 15_000, `${count} webhook(s) of ${caseId}`);
  return eventsOf(caseId);
}

async function caseRead(caseId: string): Promise<Record<string, any>> {
  const res = await t.request('GET', `/v1/cases/${caseId}`, { key: who.key });
  assert.equal(res.statusCode, 200, res.body);
  const kase = res.json();
  // Every report the real engine made agrees with itself (issue 37; the property test covers the judging functions).
  for (const c of kase.checks as CheckReport[]) assert.deepEqual(reportContradictions(c), [], JSON.stringify(c));
  return kase;
}

function report(kase: Record<string, any>, type: string): { status: string; reasons: string[]; measures: Record<string, number> } {
  const found = (kase.checks as any[]).find((c) => c.type === type);
  assert.ok(found, `the case has a ${type} report: ${JSON.stringify(kase.checks)}`);
  return found;
}

/** Runs every due job; returns the outcome of the case's job. */
async function decide(caseId: string): Promise<string> {
  const ran = await runner.drain();
  const mine = ran.find((r) => r.caseId === caseId);
  assert.ok(mine, `the runner ran the job of ${caseId}`);
  return mine.outcome;
}

/** Runs the jobs and asserts the case's outcome, showing the reports when it differs. */
async function expectOutcome(caseId: string, expected: string): Promise<void> {
  const outcome = await decide(caseId);
  if (outcome !== expected) assert.fail(`outcome ${outcome}, expected ${expected}; checks: ${JSON.stringify((await caseRead(caseId)).checks)}`);
}

describe('automated checks decide and the webhook arrives', { timeout: 240_000 }, () => {
  test('approved: generated passport with a real portrait, a selfie of the same person, data that agree', async () => {
    const caseId = await submit({ declared: { surname: 'Martin', given_names: 'Julien', birth_date: PERSON.birth_date } });
    await expectOutcome(caseId, 'approved');
    const [event] = await webhookFor(caseId);
    assert.deepEqual(event, { type: 'case.decided', data: { outcome: 'approved', reason_code: null } });
    const kase = await caseRead(caseId);
    assert.equal(kase.state, 'approved');
    for (const type of ['mrz', 'document_validity', 'face_match', 'duplicates', 'data_comparison', 'questionnaire']) {
      assert.equal(report(kase, type).status, 'ok', `${type}: ${JSON.stringify(report(kase, type))}`);
    }
    // The flow's thresholds judge the quality-corrected score (docs/face-match.md), stored beside the distance.
    assert.ok(report(kase, 'face_match').measures.match_score! <= DEFINITION.checks.face_match_max_distance);
    assert.deepEqual(kase.duplicates, []);
  });

  test('rejected: the same person with an expired passport (definitive: document_expired)', async () => {
    const caseId = await submit({ document: await passport(fieldsFor({ document_number: '19XR03T55', expiry_date: '2021-01-31' })) });
    await expectOutcome(caseId, 'rejected');
    const [event] = await webhookFor(caseId);
    assert.deepEqual(event, { type: 'case.decided', data: { outcome: 'rejected', reason_code: 'document_expired' } });
    const kase = await caseRead(caseId);
    assert.equal(kase.state, 'rejected');
    assert.equal(kase.decision.reason_code, 'document_expired');
    assert.deepEqual(report(kase, 'document_validity').reasons, ['document_expired']);
  });

  test('in_review: answers reaching the flow threshold with a flag; the same document as another case is a duplicate', async () => {
    const caseId = await submit({ answers: { source_of_funds: 'other', politically_exposed: 'yes' } });
    await expectOutcome(caseId, 'in_review');
    const [event] = await webhookFor(caseId);
    assert.deepEqual(event, { type: 'case.decided', data: { outcome: 'manual_review', reason_code: null } });
    const kase = await caseRead(caseId);
    assert.equal(kase.state, 'in_review');
    assert.deepEqual(report(kase, 'questionnaire').reasons, ['questionnaire_threshold', 'questionnaire_flagged']);
    // The approved case of the first test carried the same passport number and the same face.
    const dup = report(kase, 'duplicates');
    assert.equal(dup.status, 'attention');
    assert.ok(dup.reasons.includes('duplicate_document'), JSON.stringify(dup));
    assert.equal(kase.duplicates.length >= 1, true);
  });

  test('resubmission_requested: a selfie without any face asks for the face step again', async () => {
    const caseId = await submit({ selfie: fixture(PHOTOS.noFace), document: await passport(fieldsFor({ document_number: '27LM81Q04' })) });
    await expectOutcome(caseId, 'resubmission_requested');
    const [event] = await webhookFor(caseId);
    assert.equal(event.type, 'case.resubmission_requested');
    assert.deepEqual(event.data.steps, ['face']);
    assert.equal(event.data.reason_code, 'face_unclear');
    const kase = await caseRead(caseId);
    assert.equal(kase.state, 'resubmission_requested');
    assert.deepEqual(kase.resubmission.steps, ['face']);
    assert.ok(report(kase, 'face_match').reasons.includes('selfie_face_not_found'));

    // The person comes back: round 2 asks only for the face; the checks take the document of round 1.
    const token = tokens.get(caseId)!;
    const retake = await journey(t, 'PUT', '/pieces/selfie', token, { bytes: fixture(PHOTOS.selfie) });
    assert.equal(retake.statusCode, 200, retake.body);
    const done = await journey(t, 'POST', '/finish', token);
    assert.equal(done.statusCode, 200, done.body);
    const second = await decide(caseId);
    assert.notEqual(second, 'resubmission_requested');
    assert.equal((await findCheckJob(t.database.db, caseId, 2))?.status, 'done');
    const after = await caseRead(caseId);
    assert.deepEqual(report(after, 'face_match').reasons.filter((r) => r.startsWith('selfie_') || r.startsWith('document_face')), []);
    const events = await webhookFor(caseId, 2);
    assert.equal(events[1].type, 'case.decided', 'the second round is decided in its turn');
  });

  test('sandbox test value: "Sandbox Reject underage" forces the outcome, every check still reported, plus sandbox_forced', async () => {
    const caseId = await submit({ entered: { ...PERSON, given_names: 'Sandbox Reject underage' }, document: await passport(fieldsFor({ document_number: '33AB12C45' })) });
    await expectOutcome(caseId, 'rejected');
    const [event] = await webhookFor(caseId);
    assert.deepEqual(event, { type: 'case.decided', data: { outcome: 'rejected', reason_code: 'underage' } });
    const kase = await caseRead(caseId);
    assert.ok(report(kase, 'document_validity').reasons.includes('sandbox_forced'));
    assert.ok(report(kase, 'face_match'), 'the real face check ran');
    // The entered name differs from the document: the real comparison says so.
    assert.ok(report(kase, 'data_comparison').reasons.includes('subject_mismatch'));
  });

  test('in production the sandbox values mean nothing: "Sandbox Approve" with a faceless selfie is asked for a new selfie', async () => {
    const prod = await newTenant(t, 'prod');
    await activateFlow(t, prod.tenant.clientId, 'prod', FLOW, DEFINITION);
    const caseId = await submit({
      as: prod,
      entered: { ...PERSON, given_names: 'Sandbox Approve' },
      selfie: fixture(PHOTOS.noFace),
      document: await passport(fieldsFor({ document_number: '38PR77D21' })),
    });
    await expectOutcome(caseId, 'resubmission_requested');
    const kase = (await t.request('GET', `/v1/cases/${caseId}`, { key: prod.key })).json();
    assert.equal(kase.state, 'resubmission_requested');
    assert.ok(!(kase.checks as { reasons: string[] }[]).some((c) => c.reasons.includes('sandbox_forced')));
  });

  test('liveness stills, where the flow allows them: the turns asked for are performed, swapped turns are not; both recorded as stills and sent to review', async () => {
    const front = fixture(PHOTOS.kitFront);
    const turnedRight = fixture(PHOTOS.kitTurnedRight);
    // A mirror image of a head turned to the person's own right is a head turned to their own left.
    const turnedLeft = await sharp(turnedRight).flop().jpeg({ quality: 92 }).toBuffer();
    const document = await passport(fieldsFor({ document_number: '52KH11J08', surname: 'HARINGTON', given_names: 'KIT' }), PHOTOS.kitPortrait);
    const entered = { given_names: 'Kit', surname: 'Harington', birth_date: PERSON.birth_date };

    const performed = await submit({ flow: FLOW_LIVE, entered, document, selfie: front, challenges: { liveness_turn_left: turnedLeft, liveness_turn_right: turnedRight } });
    await expectOutcome(performed, 'in_review');
    const ok = report(await caseRead(performed), 'liveness');
    // Every movement performed, and only the capture's nature raised: photos, not a filmed challenge.
    assert.deepEqual([ok.status, ok.reasons], ['attention', ['challenge_stills']], JSON.stringify(ok));
    assert.equal(ok.measures.challenges_performed, 2);

    const other = await passport(fieldsFor({ document_number: '52KH11J19', surname: 'HARINGTON', given_names: 'KIT' }), PHOTOS.kitPortrait);
    const swapped = await submit({ flow: FLOW_LIVE, entered, document: other, selfie: front, challenges: { liveness_turn_left: turnedRight, liveness_turn_right: turnedLeft } });
    await expectOutcome(swapped, 'in_review');
    const [event] = await webhookFor(swapped);
    assert.deepEqual(event, { type: 'case.decided', data: { outcome: 'manual_review', reason_code: null } });
    const kase = await caseRead(swapped);
    assert.deepEqual(report(kase, 'liveness').reasons, ['challenge_not_performed', 'challenge_stills']);
  });

  test('crash before the commit: the job runs again after its lease; a re-run after the commit does nothing; one decision, one event', async () => {
    const caseId = await submit({ selfie: fixture(PHOTOS.noFace), document: await passport(fieldsFor({ document_number: '41ZZ70K12' })) });
    const crashed = newRunner(1_000);
    // The first runner claims the job and dies before writing anything.
    const [claim] = await crashed.claim(1);
    assert.equal(claim.caseId, caseId);
    assert.equal((await runner.drain()).length, 0, 'a live lease keeps the job from other runners');
    t.clock.advance(2_000);
    await expectOutcome(caseId, 'resubmission_requested');
    // The crashed runner comes back and finishes its stale run: its claim is gone, nothing is written.
    assert.equal(await crashed.runJob(claim), 'lost');
    assert.equal((await runner.drain()).length, 0, 'the job is done');
    const job = await findCheckJob(t.database.db, caseId, 1);
    assert.equal(job?.status, 'done');
    assert.equal(job?.attempts, 2);
    await webhookFor(caseId);
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(eventsOf(caseId).length, 1, 'one event');
    const journal = await t.request('GET', `/v1/cases/${caseId}`, { key: who.key });
    assert.equal(journal.json().state, 'resubmission_requested');
  });
});
