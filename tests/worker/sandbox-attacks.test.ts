import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ATTACK_REASONS, CHECK_REASONS, PRESENTATION_ATTACKS, STANDARD_FLOW, type AttackReason, type FlowDefinition } from '@idv/domain';
import { ChecksPool } from '@idv/engine';
import type { ChecksRunner } from '@idv/worker';
import { checksRunnerFor } from '../helpers/checks-runner.ts';
import { IMAGES, activateFlow, fixture, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';

/**
 * The sandbox value `Sandbox Attack <reason>` (docs/sandbox.md) through the API and the real checks
 * runner: the case is created by the API, its document sent through the journey routes, the real
 * engine analyses it, and the reason is raised on its check so the flow's own policy decides. The
 * default flow answers each reason with its default; a flow refusing them all refuses.
 */

const DOC_ONLY: FlowDefinition = { ...STANDARD_FLOW, steps: ['document'], documents: [{ country: '*', types: ['passport'] }], liveness: { challenges: [] } };
const STRICT: FlowDefinition = {
  ...DOC_ONLY,
  decision: { ...DOC_ONLY.decision, presentation_attacks: Object.fromEntries(ATTACK_REASONS.map((r) => [r, 'reject'])) },
};
const OUTCOME = { reject: 'rejected', retake: 'resubmission_requested', review: 'in_review' } as const;

let t: JourneyTestApp;
let pool: ChecksPool;
let runner: ChecksRunner;

before(async () => {
  t = await startJourneyApp();
  await activateFlow(t, t.demo.client_id, 'sandbox', 'doc-only', DOC_ONLY);
  await activateFlow(t, t.demo.client_id, 'sandbox', 'strict', STRICT);
  pool = new ChecksPool({ threads: 1 });
  runner = checksRunnerFor(t, pool);
});
after(async () => {
  await pool?.destroy();
  await t?.close();
});

async function submit(flow: string, reason: AttackReason): Promise<string> {
  const caseId = await openCase(t, { flow_name: flow, country: 'FR', declared: { given_names: `Sandbox Attack ${reason}`, surname: 'Martin' } });
  const token = await newSession(t, caseId);
  assert.equal((await journey(t, 'POST', '/document', token, { body: { country: 'FR', type: 'passport' } })).statusCode, 200);
  assert.equal((await journey(t, 'PUT', '/pieces/document_front', token, { bytes: fixture(IMAGES.passport) })).statusCode, 200);
  assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 200);
  return caseId;
}

test('each Sandbox Attack value raises its reason on its check, and the flow decides with its defaults', async () => {
  const ids = new Map<AttackReason, string>();
  for (const r of ATTACK_REASONS) ids.set(r, await submit('doc-only', r));
  await runner.drain();
  for (const r of ATTACK_REASONS) {
    const res = await t.request('GET', `/v1/cases/${ids.get(r)}`);
    assert.equal(res.statusCode, 200, res.body);
    const kase = res.json();
    const check = kase.checks.find((c: { type: string }) => c.type === CHECK_REASONS[r].check);
    assert.ok(check, `${r}: a ${CHECK_REASONS[r].check} report`);
    assert.equal(check.status, 'failed', r);
    assert.ok(check.reasons.includes(r), `${r}: ${JSON.stringify(check)}`);
    assert.ok(kase.checks.some((c: { reasons: string[] }) => c.reasons.includes('sandbox_forced')), r);
    assert.equal(kase.state, OUTCOME[PRESENTATION_ATTACKS[r].default], `${r}: ${JSON.stringify(kase.checks)}`);
    if (kase.state === 'resubmission_requested') assert.ok(kase.resubmission.steps.includes(PRESENTATION_ATTACKS[r].step), r);
  }
});

test('a flow answering every attack with reject refuses, with the mapped reason code', async () => {
  const face = await submit('strict', 'challenge_expired');
  const doc = await submit('strict', 'document_screen_replay_suspected');
  await runner.drain();
  const read = async (id: string) => (await t.request('GET', `/v1/cases/${id}`)).json();
  const [f, d] = [await read(face), await read(doc)];
  assert.deepEqual([f.state, f.decision.reason_code], ['rejected', 'liveness_failed']);
  assert.deepEqual([d.state, d.decision.reason_code], ['rejected', 'document_specimen']);
});
