import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import { findWalletRequest, insertTrustAnchor, listPieces, queryRows } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { describeCertificate } from '@idv/wallet';
import { TestWallet, createStatusList, createStatusListCwt, createTestIssuer, type TestIssuer, type TestPerson } from '@idv/wallet/testing';
import { sandboxTestIssuer } from '../../apps/api/src/services/wallet-sandbox-issuer.ts';
import { activateFlow, fixture, newSession, openCase, type JourneyTestApp } from '../helpers/journey.ts';
import { startWalletCases, reportOf as report, type WalletCases } from '../helpers/wallet-cases.ts';
import type { TestTenant } from '../helpers/webhooks.ts';

/**
 * The wallet as a way through a case (docs/wallet.md#the-wallet-in-a-case), over real HTTP: the
 * journey asks for a request, a test wallet (@idv/wallet/testing) fetches the signed request
 * object from its request_uri and posts its encrypted answer to the response_uri as a form
 * (direct_post.jwt); the checks runner decides and the signed webhook reaches a real receiver. A
 * PID as SD-JWT VC (issuer trusted by the client's own anchors, with a face match on the
 * credential's portrait) and an mDL as mdoc (the sandbox's own test issuer); then every refusal,
 * each through the API with its reason and nothing of the credential kept; then who may see or
 * answer a request.
 */

const FLOW_PID = 'wallet_pid';
const PID_DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['consent', 'wallet', 'face'],
  liveness: { challenges: [] },
  checks: { ...STANDARD_FLOW.checks, min_age: 18 },
  wallet: { formats: ['dc+sd-jwt'], document_fallback: false },
  decision: { on_attention: 'review', max_resubmissions: 0, review_due_hours: 24 },
};
const FLOW_MDL = 'wallet_mdl';
const MDL_DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['consent', 'applicant', 'wallet'],
  applicant: { fields: [{ name: 'given_names', required: true }, { name: 'surname', required: true }, { name: 'birth_date', required: true }] },
  checks: { ...STANDARD_FLOW.checks, min_age: 18 },
  wallet: { formats: ['mso_mdoc'], document_fallback: false },
  decision: { on_attention: 'review', max_resubmissions: 0, review_due_hours: 24 },
};
/** Both formats, for the refusals. */
const FLOW_ANY = 'wallet_any';
const ANY_DEFINITION: FlowDefinition = { ...PID_DEFINITION, steps: ['consent', 'wallet'], wallet: { formats: ['dc+sd-jwt', 'mso_mdoc'], document_fallback: false } };

const PERSON: TestPerson = {
  given_names: 'Julien',
  surname: 'Martin',
  birth_date: '1984-05-17',
  nationality: 'FR',
  issuing_country: 'FR',
  document_number: '14FP52K81',
  expiry_date: '2033-06-30',
};
const PORTRAIT = 'faces/face_recognition/examples/obama.jpg';
const SELFIE = 'faces/face_recognition/examples/obama2.jpg';

let cases: WalletCases;
let t: JourneyTestApp;
let base: string;
let who: TestTenant;
let page: WalletCases['page'];
let decided: WalletCases['decided'];
let eventsOf: WalletCases['eventsOf'];
let journalOf: WalletCases['journalOf'];
/** Trusted by the client (an anchor of its own). */
let trusted: TestIssuer;
/** Trusted by nobody. */
let stranger: TestIssuer;
let statusServer: Server;
let statusUri: string;
/** The same issuer's list as a CWT, served with its own type, index 5 revoked. */
let statusCwtUri: string;

before(async () => {
  cases = await startWalletCases({ threads: 2 });
  ({ t, base, who, page, decided, eventsOf, journalOf } = cases);
  for (const [name, def] of [[FLOW_PID, PID_DEFINITION], [FLOW_MDL, MDL_DEFINITION], [FLOW_ANY, ANY_DEFINITION]] as const) {
    await activateFlow(t, who.tenant.clientId, 'sandbox', name, def);
  }
  [trusted, stranger] = await Promise.all([createTestIssuer({ name: 'Trusted PID provider', country: 'FR' }), createTestIssuer({ name: 'Unknown issuer' })]);
  for (const [kind, pem] of [['sd_jwt_issuer', trusted.sdJwtIssuerPem], ['iaca', trusted.iacaPem]] as const) {
    const facts = describeCertificate(pem);
    await insertTrustAnchor(t.database.db, {
      id: `ta_${randomUUID()}`,
      ...who.tenant,
      kind,
      label: null,
      certificatePem: pem,
      fingerprint: facts.fingerprintSha256,
      subject: facts.subject,
      notBefore: facts.notBefore,
      notAfter: facts.notAfter,
      createdBy: 'test',
      createdAt: t.clock.now(),
    });
  }
  // The trusted issuer's status list, index 7 revoked, served over real HTTP on the local machine (allowed in the sandbox only).
  let statusToken = '';
  let statusCwt: Uint8Array = new Uint8Array();
  statusServer = createServer((req, res) => {
    if (req.url === '/status/cwt') {
      res.writeHead(200, { 'content-type': 'application/statuslist+cwt' });
      res.end(statusCwt);
      return;
    }
    res.writeHead(200, { 'content-type': 'application/statuslist+jwt' });
    res.end(statusToken);
  });
  await new Promise<void>((r) => statusServer.listen(0, '127.0.0.1', r));
  statusUri = `http://127.0.0.1:${(statusServer.address() as AddressInfo).port}/status/1`;
  statusCwtUri = `http://127.0.0.1:${(statusServer.address() as AddressInfo).port}/status/cwt`;
  statusToken = await createStatusList(trusted, [7], statusUri);
  statusCwt = await createStatusListCwt(trusted, [5], statusCwtUri);
});

after(async () => {
  await new Promise((r) => statusServer?.close(r));
  await cases?.close();
});

// ------------------------------------------------------------------------------------ helpers

/** A case of the flow with a session whose consent (and applicant data) is given; returns its id and token. */
async function startCase(flow: string, declared?: Record<string, string>): Promise<{ caseId: string; token: string }> {
  // The service's clock follows the wall clock: the test wallet signs its device binding with the real time.
  t.clock.set(new Date());
  const caseId = await openCase(t, { flow_name: flow, country: 'FR', ...(declared ? { declared } : {}) }, who.key);
  const token = await newSession(t, caseId, 'en', who.key);
  assert.equal((await page(token, 'POST', '/consent', { accepted: true })).status, 200);
  if (flow === FLOW_MDL) {
    const res = await page(token, 'POST', '/applicant', { given_names: PERSON.given_names, surname: PERSON.surname, birth_date: PERSON.birth_date });
    assert.equal(res.status, 200, JSON.stringify(res.json));
  }
  return { caseId, token };
}

/** The page asks for a cross-device request; the wallet fetches its request object like a wallet does (the request_uri's path, at this server). */
async function crossDeviceRequest(token: string): Promise<{ id: string; requestJwt: string; created: any }> {
  const created = await page(token, 'POST', '/wallet/requests', { mode: 'cross_device' });
  assert.equal(created.status, 201, JSON.stringify(created.json));
  const uri = new URL(created.json.cross_device.request_uri);
  assert.match(created.json.cross_device.wallet_link, /^openid4vp:\/\/\?client_id=x509_san_dns%3Awallet-verifier\.idv\.test&request_uri=/);
  const fetched = await fetch(`${base}${uri.pathname}`);
  assert.equal(fetched.status, 200);
  assert.equal(fetched.headers.get('content-type'), 'application/oauth-authz-req+jwt');
  return { id: created.json.id, requestJwt: await fetched.text(), created: created.json };
}

/** The wallet's direct_post.jwt: the form field response, to the response_uri. */
async function post(id: string, response: string): Promise<{ status: number; json: any }> {
  const res = await fetch(`${base}/v1/wallet/responses/${id}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ response }).toString(),
  });
  return { status: res.status, json: await res.json() };
}

async function walletWith(add: (w: TestWallet) => Promise<void>): Promise<TestWallet> {
  const w = await TestWallet.create();
  await add(w);
  return w;
}

// -------------------------------------------------------------------------------- the two paths

describe('a wallet presentation through the journey to a decided case', () => {
  test('a PID as SD-JWT VC, cross-device, matched with a selfie: approved, its webhook received, the claims read into the vault', async () => {
    const { caseId, token } = await startCase(FLOW_PID, { given_names: 'Julien', surname: 'Martin', birth_date: '1984-05-17' });
    const state = await page(token, 'GET', '');
    assert.equal(state.json.step, 'wallet');
    assert.deepEqual(state.json.wallet.claims, ['given_names', 'surname', 'birth_date', 'issuing_country', 'document_number', 'expiry_date', 'portrait']);
    const wallet = await walletWith((w) => w.addPid(trusted, { ...PERSON, portrait: fixture(PORTRAIT) }, { statusListUri: statusUri, statusIndex: 3 }));
    const { id, requestJwt } = await crossDeviceRequest(token);
    assert.equal((await page(token, 'GET', `/wallet/requests/${id}`)).json.status, 'fetched');
    const { response } = await wallet.respond({ requestJwt, mode: 'cross_device' });
    const answer = await post(id, response);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.deepEqual(answer.json, {});
    assert.equal((await page(token, 'GET', `/wallet/requests/${id}`)).json.status, 'accepted');

    // The wallet step is done; the selfie follows, then the journey ends.
    const after = await page(token, 'GET', '');
    assert.equal(after.json.step, 'face');
    assert.equal(after.json.wallet.status, 'accepted');
    const selfie = await fetch(`${base}/v1/sessions/current/pieces/selfie`, { method: 'PUT', headers: { authorization: `Session ${token}`, 'content-type': 'image/jpeg' }, body: new Uint8Array(fixture(SELFIE)) });
    assert.equal(selfie.status, 200, await selfie.text());
    assert.equal((await page(token, 'POST', '/finish')).status, 200);

    const kase = await decided(caseId);
    assert.equal(kase.state, 'approved', JSON.stringify(kase.checks));
    const w = report(kase, 'wallet')!;
    assert.equal(w.status, 'ok');
    assert.equal(w.measures.presentation_accepted, 1);
    assert.equal(w.measures.credential_mdoc, 0);
    assert.equal(w.measures.status_checked, 1);
    assert.equal(w.measures.presentations_refused, 0);
    assert.equal(report(kase, 'face_match')!.status, 'ok');
    assert.equal(report(kase, 'data_comparison')!.status, 'ok');
    assert.equal(report(kase, 'document_validity')!.status, 'ok');
    assert.ok(kase.pieces.some((p: { kind: string }) => p.kind === 'wallet_portrait'), 'the portrait is a piece of the case');
    const events = eventsOf(caseId);
    assert.equal(events[0]!.type, 'case.decided');
    assert.equal((events[0]!.data as { outcome?: string }).outcome ?? (events[0]!.data as any).decision?.outcome, 'approved');

    // The identity read is kept exactly like a document's: sealed, in the case's reading.
    const readings = await queryRows<{ fields_sealed: string | null }>(t.database.db, sql`SELECT fields_sealed FROM document_readings WHERE case_id = ${caseId}`);
    assert.equal(readings.length, 1);
    assert.ok(readings[0]!.fields_sealed && !readings[0]!.fields_sealed.includes('Martin'), 'sealed, never in clear');
    const row = await findWalletRequest(t.database.db, id);
    assert.ok(row!.presentationSealed && !row!.presentationSealed.includes('Martin'));
    const presented = await journalOf(caseId, 'journey.wallet_presented');
    assert.equal(presented.length, 1);
    assert.ok(!JSON.stringify(presented).includes('Martin'), 'no personal data in the journal');
  });

  test('an mDL as mdoc from the sandbox test issuer, cross-device, compared with what the person entered: approved with its webhook', async () => {
    const sandbox = await sandboxTestIssuer(t.ctx);
    const { caseId, token } = await startCase(FLOW_MDL);
    const state = await page(token, 'GET', '');
    assert.equal(state.json.step, 'wallet');
    assert.ok(!state.json.wallet.claims.includes('portrait'), 'no face step: no portrait asked');
    const wallet = await walletWith((w) => w.addMdl(sandbox, { ...PERSON, issuing_country: sandbox.country }));
    const { id, requestJwt } = await crossDeviceRequest(token);
    const { response } = await wallet.respond({ requestJwt, mode: 'cross_device' }, { format: 'mso_mdoc' });
    const answer = await post(id, response);
    assert.equal(answer.status, 200, JSON.stringify(answer.json));
    assert.equal((await page(token, 'POST', '/finish')).status, 200);
    const kase = await decided(caseId);
    assert.equal(kase.state, 'approved', JSON.stringify(kase.checks));
    assert.equal(report(kase, 'wallet')!.measures.credential_mdoc, 1);
    assert.equal(report(kase, 'data_comparison')!.status, 'ok');
    assert.equal(eventsOf(caseId)[0]!.type, 'case.decided');
  });
});

// ------------------------------------------------------------------------------------ refusals

describe('refused presentations: each reason told, nothing of the credential kept', () => {
  const past = () => new Date(t.clock.now().getTime() - 86_400_000);

  async function refused(how: {
    wallet: () => Promise<TestWallet>;
    tamper?: 'disclosure' | 'device_signature' | 'omit_device_signature' | 'nonce' | 'audience' | 'extra_claim';
    reason: string;
    format?: 'dc+sd-jwt' | 'mso_mdoc';
  }): Promise<void> {
    const { caseId, token } = await startCase(FLOW_ANY);
    const wallet = await how.wallet();
    const { id, requestJwt } = await crossDeviceRequest(token);
    const { response } = await wallet.respond({ requestJwt, mode: 'cross_device' }, { ...(how.tamper ? { tamper: how.tamper } : {}), ...(how.format ? { format: how.format } : {}) });
    const answer = await post(id, response);
    assert.equal(answer.status, 400, JSON.stringify(answer.json));
    assert.equal(answer.json.error, 'invalid_request');
    const followed = await page(token, 'GET', `/wallet/requests/${id}`);
    assert.deepEqual([followed.json.status, followed.json.reason], ['refused', how.reason]);
    await assertNothingKept(caseId, id, how.reason);
  }

  async function assertNothingKept(caseId: string, requestId: string, reason: string): Promise<void> {
    const row = await findWalletRequest(t.database.db, requestId);
    assert.equal(row!.outcome, reason);
    assert.equal(row!.presentationSealed, null);
    assert.deepEqual((await listPieces(t.database.db, caseId)).map((p) => p.kind), []);
    assert.deepEqual(await journalOf(caseId, 'journey.wallet_refused'), [{ request_id: requestId, reason }]);
    assert.deepEqual(await journalOf(caseId, 'journey.wallet_presented'), []);
  }

  test('an issuer the client does not trust', () => refused({ wallet: () => walletWith((w) => w.addPid(stranger, PERSON)), reason: 'wallet_issuer_untrusted' }));
  test('an expired credential', () =>
    refused({ wallet: () => walletWith((w) => w.addPid(trusted, PERSON, { validFrom: new Date(past().getTime() - 86_400_000 * 30), validUntil: past() })), reason: 'wallet_credential_expired' }));
  test('a revoked credential (its status list over HTTP)', () =>
    refused({ wallet: () => walletWith((w) => w.addPid(trusted, PERSON, { statusListUri: statusUri, statusIndex: 7 })), reason: 'wallet_credential_revoked' }));
  test('a revoked credential whose status list is served as a CWT (the service reads both forms)', () =>
    refused({ wallet: () => walletWith((w) => w.addPid(trusted, PERSON, { statusListUri: statusCwtUri, statusIndex: 5 })), reason: 'wallet_credential_revoked' }));
  test('a tampered disclosure', () => refused({ wallet: () => walletWith((w) => w.addPid(trusted, PERSON)), tamper: 'disclosure', reason: 'wallet_presentation_invalid' }));
  test('a presentation for another verifier (wrong audience)', () =>
    refused({ wallet: () => walletWith((w) => w.addPid(trusted, PERSON)), tamper: 'audience', reason: 'wallet_device_binding_invalid' }));
  test('a missing device signature (mdoc)', () =>
    refused({ wallet: () => walletWith((w) => w.addMdl(trusted, PERSON)), tamper: 'omit_device_signature', format: 'mso_mdoc', reason: 'wallet_device_binding_invalid' }));
  test('claims the request did not ask for', () => refused({ wallet: () => walletWith((w) => w.addPid(trusted, PERSON)), tamper: 'extra_claim', reason: 'wallet_claims_not_requested' }));

  test('a replayed presentation: an old nonce refused, a second answer to the same request refused', async () => {
    const wallet = await walletWith((w) => w.addPid(trusted, PERSON));
    const first = await startCase(FLOW_ANY);
    const a = await crossDeviceRequest(first.token);
    const { response } = await wallet.respond({ requestJwt: a.requestJwt, mode: 'cross_device' });
    assert.equal((await post(a.id, response)).status, 200);
    // The same answer again: the request is answered once.
    const again = await post(a.id, response);
    assert.equal(again.status, 400);
    assert.equal(again.json.error, 'invalid_request');
    assert.equal((await findWalletRequest(t.database.db, a.id))!.outcome, 'accepted');
    // The old answer to a new request of another case: its nonce is not this request's. It is
    // encrypted to the old request's key, so the new one cannot even open it.
    const second = await startCase(FLOW_ANY);
    const b = await crossDeviceRequest(second.token);
    const replay = await post(b.id, response);
    assert.equal(replay.status, 400);
    const followed = await page(second.token, 'GET', `/wallet/requests/${b.id}`);
    assert.equal(followed.json.status, 'refused');
    assert.equal(followed.json.reason, 'wallet_presentation_invalid');
    await assertNothingKept(second.caseId, b.id, 'wallet_presentation_invalid');
  });

  test('as many refusals as a round allows end the step: the case is decided on the wallet check failed with the last reason', async () => {
    const { caseId, token } = await startCase(FLOW_ANY);
    const wallet = await walletWith((w) => w.addPid(stranger, PERSON));
    for (let i = 0; i < 3; i++) {
      const { id, requestJwt } = await crossDeviceRequest(token);
      assert.equal((await post(id, (await wallet.respond({ requestJwt, mode: 'cross_device' })).response)).status, 400);
    }
    const state = await page(token, 'GET', '');
    assert.equal(state.json.wallet.status, 'refused');
    assert.equal(state.json.step, 'check');
    assert.equal((await page(token, 'POST', '/wallet/requests', { mode: 'cross_device' })).status, 409);
    assert.equal((await page(token, 'POST', '/finish')).status, 200);
    const kase = await decided(caseId);
    assert.equal(kase.state, 'rejected');
    assert.equal(kase.decision.reason_code, 'document_not_accepted');
    assert.deepEqual(report(kase, 'wallet'), { type: 'wallet', status: 'failed', reasons: ['wallet_issuer_untrusted'], measures: { presentation_accepted: 0, presentations_refused: 3 } });
  });
});

// -------------------------------------------------------------------------------- authorisation

describe('who may see and answer a request', () => {
  test('another session neither reads nor answers a request; the wallet-facing routes know only live requests', async () => {
    const mine = await startCase(FLOW_ANY);
    const other = await startCase(FLOW_ANY);
    const dc = await page(mine.token, 'POST', '/wallet/requests', { mode: 'dc_api' });
    assert.equal(dc.status, 201, JSON.stringify(dc.json));
    assert.equal(dc.json.dc_api.protocol, 'openid4vp-v1-signed');
    assert.equal((await page(other.token, 'GET', `/wallet/requests/${dc.json.id}`)).status, 404);
    assert.equal((await page(other.token, 'POST', `/wallet/requests/${dc.json.id}/response`, { response: 'x.y.z.a.b' })).status, 404);
    assert.equal((await findWalletRequest(t.database.db, dc.json.id))!.answeredAt, null, 'nothing was recorded');
    // A same-device request is not fetched by reference; an unknown id is no request.
    assert.equal((await fetch(`${base}/v1/wallet/requests/${dc.json.id}`)).status, 404);
    assert.equal((await fetch(`${base}/v1/wallet/requests/wrq_unknown`)).status, 404);
    assert.equal((await post('wrq_unknown', 'x.y.z.a.b')).status, 404);
    // Without a session, the journey routes answer nothing.
    assert.equal((await fetch(`${base}/v1/sessions/current/wallet/requests/${dc.json.id}`)).status, 401);
    // The same-device answer, through the page of the session that asked.
    const wallet = await walletWith((w) => w.addPid(trusted, PERSON));
    const { response } = await wallet.respond({ requestJwt: dc.json.dc_api.data.request, mode: 'dc_api', origin: new URL(t.config.journeyUrl).origin });
    const answered = await page(mine.token, 'POST', `/wallet/requests/${dc.json.id}/response`, { response });
    assert.equal(answered.status, 200, JSON.stringify(answered.json));
    assert.equal(answered.json.status, 'accepted');
  });

  test('an expired request is not answered', async () => {
    const { token } = await startCase(FLOW_ANY);
    const wallet = await walletWith((w) => w.addPid(trusted, PERSON));
    const { id, requestJwt } = await crossDeviceRequest(token);
    const { response } = await wallet.respond({ requestJwt, mode: 'cross_device' });
    t.clock.advance(6 * 60_000);
    try {
      assert.equal((await page(token, 'GET', `/wallet/requests/${id}`)).json.status, 'expired');
      assert.equal((await post(id, response)).status, 400);
      assert.equal((await findWalletRequest(t.database.db, id))!.answeredAt, null);
    } finally {
      t.clock.advance(-6 * 60_000);
    }
  });
});
