import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { reportContradictions, STANDARD_FLOW, type CheckReport, type FlowDefinition } from '@idv/domain';
import { ChecksPool, generateDocument, type DocumentFields } from '@idv/engine';
import type { ChecksRunner } from '@idv/worker';
import { checksRunnerFor } from '../helpers/checks-runner.ts';
import { generateDocumentAttack, type DocumentAttackSpecies } from '../../packages/engine/src/generator/attacks/species.ts';
import { activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';
import { newTenant, type TestTenant } from '../helpers/webhooks.ts';

/**
 * Presentation attacks on the document side, through the journey API and the real checks: the
 * same generated passport (a real portrait, the person's real selfie) photographed as held in
 * hand is approved; shown on a screen and photographed, or copied (in black and white, or in
 * faded colour) and photographed (GENERATED attacks, packages/engine/src/generator/attacks), the case goes to a person with the
 * document_quality reason saying why, under a flow that reviews attention, and is refused under
 * one that rejects on attention. Each case belongs to a client of its own and carries its own
 * passport number: the same face or number in another case of the client would be a duplicate,
 * another reason for review.
 */

const REVIEW_FLOW = 'pad_documents_review';
const REJECT_FLOW = 'pad_documents_reject';
const DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['applicant', 'questionnaire', 'document', 'face'],
  documents: [{ country: '*', types: ['passport', 'id_card'] }],
  liveness: { challenges: [] },
  decision: { on_attention: 'review', max_resubmissions: 1, review_due_hours: 24 },
};
const PORTRAIT = 'faces/face_recognition/examples/obama.jpg';
const SELFIE = 'faces/face_recognition/examples/obama2.jpg';
const PERSON = { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' };

const fields = (documentNumber: string): DocumentFields => ({
  document_code: 'P',
  issuing_country: 'FRA',
  document_number: documentNumber,
  surname: 'MARTIN',
  given_names: 'JULIEN',
  nationality: 'FRA',
  birth_date: PERSON.birth_date,
  sex: 'M',
  expiry_date: '2033-06-30',
});
const SEED = 7;
const passport = (n: string) => ({ format: 'TD3' as const, fields: fields(n), portrait: fixture(PORTRAIT), seed: SEED });

let t: JourneyTestApp;
let pool: ChecksPool;
let runner: ChecksRunner;

before(async () => {
  t = await startJourneyApp();
  pool = new ChecksPool({ threads: 2 });
  runner = checksRunnerFor(t, pool, { leaseMs: 60_000 });
});

after(async () => {
  await pool?.destroy();
  await t?.close();
});

/** A case opened by API, the pieces sent through the journey routes; runs the checks and returns the outcome and the case. */
async function submit(document: Buffer, flow: string): Promise<{ outcome: string; kase: Record<string, any> }> {
  const who: TestTenant = await newTenant(t, 'sandbox');
  await activateFlow(t, who.tenant.clientId, 'sandbox', REVIEW_FLOW, DEFINITION);
  await activateFlow(t, who.tenant.clientId, 'sandbox', REJECT_FLOW, { ...DEFINITION, decision: { ...DEFINITION.decision, presentation_attacks: { document_screen_replay_suspected: 'reject' } } });
  const caseId = await openCase(t, { flow_name: flow, country: 'FR', external_ref: `pad-${Math.random().toString(36).slice(2, 10)}` }, who.key);
  const token = await newSession(t, caseId, 'en', who.key);
  for (const [path, payload] of [
    ['/applicant', PERSON],
    ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
    ['/document', { country: 'FR', type: 'passport' }],
  ] as const) {
    const res = await journey(t, 'POST', path, token, { body: payload });
    assert.equal(res.statusCode, 200, `${path}: ${res.body}`);
  }
  for (const [kind, bytes] of [['document_front', document], ['selfie', fixture(SELFIE)]] as const) {
    const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    assert.equal(res.statusCode, 200, `${kind}: ${res.body}`);
  }
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);
  const ran = await runner.drain();
  const mine = ran.find((r) => r.caseId === caseId);
  assert.ok(mine, `the runner ran the job of ${caseId}`);
  const res = await t.request('GET', `/v1/cases/${caseId}`, { key: who.key });
  assert.equal(res.statusCode, 200, res.body);
  const kase = res.json();
  for (const c of kase.checks as CheckReport[]) assert.deepEqual(reportContradictions(c), [], JSON.stringify(c));
  return { outcome: mine.outcome, kase };
}

const quality = (kase: Record<string, any>) => (kase.checks as CheckReport[]).find((c) => c.type === 'document_quality')!;

describe('a document shown on a screen or photocopied goes to a person; the document in hand passes', { timeout: 300_000 }, () => {
  test('approved: the ordinary phone photo of the passport', async () => {
    const { outcome, kase } = await submit((await generateDocument(passport('31KP07D22'))).image, REVIEW_FLOW);
    assert.equal(outcome, 'approved', JSON.stringify(kase.checks));
    assert.deepEqual([quality(kase).status, quality(kase).reasons], ['ok', []]);
  });

  const attacks: [DocumentAttackSpecies, string, string][] = [
    ['screen_replay', 'document_screen_replay_suspected', '52RT19K40'],
    ['photocopy_grey', 'document_photocopy_suspected', '63WX28L51'],
    ['photocopy_colour', 'document_photocopy_suspected', '85ZA39N73'],
  ];
  const shown = { screen_replay: 'shown on a screen', photocopy_grey: 'photocopied in black and white', photocopy_colour: 'copied in faded colour' } as const;
  for (const [species, reason, number] of attacks) {
    test(`in review: the passport ${shown[species]} and photographed (${reason})`, async () => {
      const { outcome, kase } = await submit((await generateDocumentAttack(species, passport(number))).image, REVIEW_FLOW);
      assert.equal(outcome, 'in_review', JSON.stringify(kase.checks));
      assert.equal(kase.state, 'in_review');
      assert.deepEqual([quality(kase).status, quality(kase).reasons], ['attention', [reason]]);
      // The presentation attack is the only thing wrong: every other check is ok.
      for (const c of kase.checks as CheckReport[]) if (c.type !== 'document_quality') assert.equal(c.status, 'ok', JSON.stringify(c));
    });
  }

  test('rejected: the screen replay under a flow that refuses a document on a screen', async () => {
    const { outcome, kase } = await submit((await generateDocumentAttack('screen_replay', passport('74YZ37M62'))).image, REJECT_FLOW);
    assert.equal(outcome, 'rejected', JSON.stringify(kase.checks));
    assert.equal(kase.decision.reason_code, 'document_specimen');
    assert.deepEqual(quality(kase).reasons, ['document_screen_replay_suspected']);
  });
});
