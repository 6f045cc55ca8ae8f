import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { findWalletRequest, listPieces, queryRows } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { activateFlow, newSession, openCase, type JourneyTestApp } from '../helpers/journey.ts';
import { startWalletCases, reportOf as report, type WalletCases } from '../helpers/wallet-cases.ts';
import { newTenant, type TestTenant } from '../helpers/webhooks.ts';

/**
 * The sandbox test wallet (docs/wallet.md#try-the-whole-path-in-the-sandbox), over real HTTP: the
 * journey asks for a request and the service's own test wallet answers it with a credential of
 * the sandbox test issuer through the same verification as a real wallet's answer; the checks
 * runner decides and the signed webhook reaches a real receiver (the SD-JWT VC's revocation read
 * from the sandbox issuer's own status list, signature checked). A rehearsed refusal gives its
 * reason and keeps nothing; production has no such wallet; every bad input is refused clearly.
 */

const FLOW_ANY = 'wallet_any';
const ANY_DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['consent', 'wallet'],
  liveness: { challenges: [] },
  // Not an age alone (18 without other steps asks for age_over_18 only): the identity is asked and compared.
  checks: { ...STANDARD_FLOW.checks, min_age: 21 },
  wallet: { formats: ['dc+sd-jwt', 'mso_mdoc'], document_fallback: false },
  decision: { on_attention: 'review', max_resubmissions: 0, review_due_hours: 24 },
};
const FLOW_MDOC = 'wallet_mdoc';
const MDOC_DEFINITION: FlowDefinition = { ...ANY_DEFINITION, wallet: { formats: ['mso_mdoc'], document_fallback: false } };
const DECLARED = { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' };

let cases: WalletCases;
let t: JourneyTestApp;
let base: string;
let who: TestTenant;
let prod: TestTenant;
let page: WalletCases['page'];
let decided: WalletCases['decided'];
let eventsOf: WalletCases['eventsOf'];
let journalOf: WalletCases['journalOf'];

before(async () => {
  cases = await startWalletCases({ threads: 1 });
  ({ t, base, who, page, decided, eventsOf, journalOf } = cases);
  prod = await newTenant(t, 'prod');
  for (const [name, def] of [[FLOW_ANY, ANY_DEFINITION], [FLOW_MDOC, MDOC_DEFINITION]] as const) await activateFlow(t, who.tenant.clientId, 'sandbox', name, def);
  await activateFlow(t, prod.tenant.clientId, 'prod', FLOW_ANY, ANY_DEFINITION);
});

after(async () => {
  await cases?.close();
});

async function startCase(tenant: TestTenant, flow: string, declared?: Record<string, string>): Promise<{ caseId: string; token: string }> {
  // The service's clock follows the wall clock: the test wallet signs its device binding with the real time.
  t.clock.set(new Date());
  const caseId = await openCase(t, { flow_name: flow, country: 'FR', ...(declared ? { declared } : {}) }, tenant.key);
  const token = await newSession(t, caseId, 'en', tenant.key);
  assert.equal((await page(token, 'POST', '/consent', { accepted: true })).status, 200);
  return { caseId, token };
}

async function request(token: string, mode: 'cross_device' | 'dc_api' = 'cross_device'): Promise<string> {
  const created = await page(token, 'POST', '/wallet/requests', { mode });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  return created.json.id;
}

const present = (token: string, id: string, body: Record<string, unknown> = {}) => page(token, 'POST', `/wallet/requests/${id}/sandbox-presentation`, body);

describe('the sandbox test wallet presents through the same path as a real wallet', () => {
  test('a PID as SD-JWT VC with the declared names: accepted, the case approved with its webhook, the identity sealed in the vault', async () => {
    const { caseId, token } = await startCase(who, FLOW_ANY, DECLARED);
    const state = await page(token, 'GET', '');
    assert.equal(state.json.wallet.sandbox_wallet, true);
    const id = await request(token);
    const answered = await present(token, id, { credential: 'pid_sd_jwt' });
    assert.equal(answered.status, 200, JSON.stringify(answered.json));
    assert.deepEqual([answered.json.object, answered.json.id, answered.json.status], ['wallet_request', id, 'accepted']);
    assert.equal((await page(token, 'GET', '')).json.wallet.status, 'accepted');
    const [presented] = await journalOf(caseId, 'journey.wallet_presented');
    assert.equal(presented!.format, 'dc+sd-jwt');
    assert.ok(!JSON.stringify(presented).includes('Martin'), 'no personal data in the journal');
    assert.equal((await page(token, 'POST', '/finish')).status, 200);

    const kase = await decided(caseId);
    assert.equal(kase.state, 'approved', JSON.stringify(kase.checks));
    assert.equal(report(kase, 'wallet')!.status, 'ok');
    assert.equal(report(kase, 'wallet')!.measures.credential_mdoc, 0);
    assert.equal(report(kase, 'wallet')!.measures.status_checked, 1, 'the sandbox issuer’s status list was read and its signature checked');
    assert.equal(report(kase, 'data_comparison')!.status, 'ok', 'the credential carries the declared names and birth date');
    const [event] = eventsOf(caseId);
    assert.equal(event!.type, 'case.decided');
    // The identity read is the vault's, sealed; revealed, it is the declared person's.
    const readings = await queryRows<{ fields_sealed: string | null }>(t.database.db, sql`SELECT fields_sealed FROM document_readings WHERE case_id = ${caseId}`);
    assert.equal(readings.length, 1);
    assert.ok(readings[0]!.fields_sealed && !readings[0]!.fields_sealed.includes('Martin'), 'sealed, never in clear');
    assert.ok(!(await findWalletRequest(t.database.db, id))!.presentationSealed!.includes('Martin'));
  });

  test('an mDL as mdoc, same-device, with the sandbox person when nothing is declared: accepted and decided', async () => {
    const { caseId, token } = await startCase(who, FLOW_MDOC);
    const id = await request(token, 'dc_api');
    // Without a choice, the first credential the request asks for: here an mdoc.
    const answered = await present(token, id, { credential: 'mdl' });
    assert.equal(answered.status, 200, JSON.stringify(answered.json));
    assert.equal(answered.json.status, 'accepted');
    assert.equal((await journalOf(caseId, 'journey.wallet_presented'))[0]!.doc_type, 'org.iso.18013.5.1.mDL');
    assert.equal((await page(token, 'POST', '/finish')).status, 200);
    const kase = await decided(caseId);
    assert.equal(kase.state, 'approved', JSON.stringify(kase.checks));
    assert.equal(report(kase, 'wallet')!.measures.credential_mdoc, 1);
  });
});

describe('rehearsed refusals: the reason told, nothing of the credential kept', () => {
  for (const [outcome, credential, reason] of [
    ['untrusted_issuer', 'pid_sd_jwt', 'wallet_issuer_untrusted'],
    ['expired', 'pid_sd_jwt', 'wallet_credential_expired'],
    ['revoked', 'pid_sd_jwt', 'wallet_credential_revoked'],
    ['revoked', 'mdl', 'wallet_credential_revoked'],
    ['tampered', 'pid_mdoc', 'wallet_presentation_invalid'],
    ['wrong_audience', 'mdl', 'wallet_device_binding_invalid'],
    ['wrong_device_key', 'pid_sd_jwt', 'wallet_device_binding_invalid'],
    ['extra_claim', 'pid_sd_jwt', 'wallet_claims_not_requested'],
  ] as const) {
    test(`${outcome} (${credential}): refused with ${reason}`, async () => {
      const { caseId, token } = await startCase(who, FLOW_ANY, DECLARED);
      const id = await request(token);
      const answered = await present(token, id, { credential, outcome });
      assert.equal(answered.status, 200, JSON.stringify(answered.json));
      assert.deepEqual([answered.json.status, answered.json.reason], ['refused', reason]);
      const row = await findWalletRequest(t.database.db, id);
      assert.equal(row!.outcome, reason);
      assert.equal(row!.presentationSealed, null);
      assert.deepEqual((await listPieces(t.database.db, caseId)).map((p) => p.kind), []);
      assert.deepEqual(await journalOf(caseId, 'journey.wallet_refused'), [{ request_id: id, reason }]);
      assert.deepEqual(await journalOf(caseId, 'journey.wallet_presented'), []);
      assert.equal((await page(token, 'GET', '')).json.wallet.refusals_left, 2);
    });
  }
});

describe('bad inputs and the wrong environment', () => {
  test('production has no sandbox wallet: 404 sandbox_only, the request left open', async () => {
    const { token } = await startCase(prod, FLOW_ANY, DECLARED);
    assert.equal((await page(token, 'GET', '')).json.wallet.sandbox_wallet, false);
    const id = await request(token);
    const refused = await present(token, id);
    assert.equal(refused.status, 404);
    assert.equal(refused.json.error.code, 'sandbox_only');
    assert.equal((await findWalletRequest(t.database.db, id))!.answeredAt, null);
  });

  test('an unknown credential or outcome, a credential the flow does not ask for, an unknown or answered or expired request', async () => {
    const { token } = await startCase(who, FLOW_MDOC);
    const id = await request(token);
    const unknownFormat = await present(token, id, { credential: 'passport' });
    assert.equal(unknownFormat.status, 422, JSON.stringify(unknownFormat.json));
    assert.equal(unknownFormat.json.error.type, 'validation_error');
    assert.equal((await present(token, id, { outcome: 'revoked_forever' })).status, 422);
    assert.equal((await present(token, id, { extra: true })).status, 422);
    const notAsked = await present(token, id, { credential: 'pid_sd_jwt' });
    assert.equal(notAsked.status, 422);
    assert.equal(notAsked.json.error.code, 'sandbox_wallet_choice_invalid');
    assert.match(notAsked.json.error.message, /pid_mdoc or mdl/);
    const unknown = await present(token, 'wrq_unknown');
    assert.deepEqual([unknown.status, unknown.json.error.code], [404, 'resource_not_found']);
    // Another session's request is not this session's.
    const other = await startCase(who, FLOW_MDOC);
    assert.equal((await present(other.token, id)).status, 404);
    // Answered once: the default credential (the first asked for) is accepted, a second answer refused.
    assert.equal((await present(token, id)).json.status, 'accepted');
    const again = await present(token, id);
    assert.deepEqual([again.status, again.json.error.code], [409, 'wallet_request_answered']);
    // An expired request.
    const late = await request(other.token);
    t.clock.advance(6 * 60_000);
    try {
      const expired = await present(other.token, late);
      assert.deepEqual([expired.status, expired.json.error.code], [409, 'wallet_request_expired']);
    } finally {
      t.clock.advance(-6 * 60_000);
    }
    // Without a session, nothing.
    assert.equal((await fetch(`${base}/v1/sessions/current/wallet/requests/${id}/sandbox-presentation`, { method: 'POST' })).status, 401);
  });
});
