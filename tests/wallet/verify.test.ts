import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { buildRequest, generateVerifierIdentity, verifyPresentation, type CredentialFormat, type TrustAnchor, type VerifyInput, type WalletClaim } from '@idv/wallet';
import { TestWallet, createStatusList, createStatusListCwt, createTestIssuer, loadTestIssuer, saveTestIssuer, type Tamper, type TestPerson } from '@idv/wallet/testing';

/**
 * @idv/wallet end to end without a service: a request built and signed, the test wallet's answer
 * (on the same libraries), its verification; then each refusal with its reason. Pure and fast.
 */

const DAY = 86_400_000;
const RESPONSE_URI = 'https://verifier.example/v1/wallet/responses/r1';
const ORIGIN = 'https://journey.example';
const STATUS_URI = 'https://issuer.example/status/1';
const ALL: WalletClaim[] = ['given_names', 'surname', 'birth_date', 'nationality', 'issuing_country', 'document_number', 'expiry_date', 'portrait', 'age_over_18'];
const PORTRAIT = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 0xff, 0xd9]);
const person: TestPerson = { given_names: 'Marie Salomea', surname: 'Sklodowska', birth_date: '1990-11-07', nationality: 'FR', issuing_country: 'FR', document_number: 'X4RTBPFW4', expiry_date: '2031-06-30', portrait: PORTRAIT };

const verifier = await generateVerifierIdentity({ dnsName: 'verifier.example', organisation: 'IDV Verifier' });
const issuer = await createTestIssuer({ name: 'Test PID Provider', country: 'FR' });
const stranger = await createTestIssuer({ name: 'Unknown Issuer', country: 'FR' });
const anchors: TrustAnchor[] = [
  { kind: 'iaca', certificatePem: issuer.iacaPem },
  { kind: 'sd_jwt_issuer', certificatePem: issuer.sdJwtIssuerPem },
];
// Index 7 revoked, index 9 suspended (a two-bit list), the others valid.
const statusList = await createStatusList(issuer, [7], STATUS_URI, { suspendedIndexes: [9] });
// The same list as a CWT (bytes), the form ISO/IEC 18013-5 also allows for an mdoc.
const statusListCwt = await createStatusListCwt(issuer, [7], STATUS_URI, { suspendedIndexes: [9] });
const cwt = async () => statusListCwt;

async function walletWith(from = issuer, o: { validFrom?: Date; validUntil?: Date; statusIndex?: number; statusUri?: string } = {}) {
  const wallet = await TestWallet.create();
  const options = { validFrom: o.validFrom, validUntil: o.validUntil, statusListUri: o.statusUri ?? STATUS_URI, statusIndex: o.statusIndex ?? 3 };
  await wallet.addPid(from, person, options);
  await wallet.addMdl(from, person, options);
  return wallet;
}
const good = await walletWith();

interface Run {
  format: CredentialFormat;
  mode?: 'cross_device' | 'dc_api';
  claims?: WalletClaim[];
  wallet?: TestWallet;
  tamper?: Tamper;
  trust?: TrustAnchor[];
  now?: Date;
  fetchStatusList?: VerifyInput['fetchStatusList'];
}

async function run(r: Run) {
  const mode = r.mode ?? 'cross_device';
  const claims = r.claims ?? ['given_names', 'surname', 'birth_date'];
  const nonce = randomBytes(16).toString('base64url');
  const request = await buildRequest({
    verifier,
    claims,
    formats: [r.format],
    nonce,
    state: randomBytes(16).toString('base64url'),
    mode,
    ...(mode === 'cross_device' ? { responseUri: RESPONSE_URI } : { expectedOrigins: [ORIGIN] }),
    expiresAt: new Date(Date.now() + 600_000),
  });
  const { response } = await (r.wallet ?? good).respond({ requestJwt: mode === 'dc_api' ? request.dcApiRequest!.data.request : request.requestJwt, mode, origin: ORIGIN }, { format: r.format, tamper: r.tamper });
  const input: VerifyInput = {
    response,
    encryptionKey: request.encryptionKey,
    nonce,
    clientId: verifier.clientId,
    mode,
    ...(mode === 'cross_device' ? { responseUri: RESPONSE_URI } : { origin: ORIGIN }),
    claims,
    formats: [r.format],
    trustAnchors: r.trust ?? anchors,
    now: r.now ?? new Date(),
    fetchStatusList: r.fetchStatusList ?? (async (uri) => (uri === STATUS_URI ? statusList : Promise.reject(new Error('unknown')))),
  };
  const started = performance.now();
  const result = await verifyPresentation(input);
  return { result, ms: performance.now() - started };
}

const FORMATS: CredentialFormat[] = ['dc+sd-jwt', 'mso_mdoc'];

/** The bytes with their last one changed (a COSE signature's last byte). */
const flipLast = (b: Uint8Array) => {
  const copy = new Uint8Array(b);
  copy[copy.length - 1] ^= 0xff;
  return copy;
};

for (const format of FORMATS) {
  for (const mode of ['cross_device', 'dc_api'] as const) {
    test(`${format} over ${mode}: accepted, every claim read`, async () => {
      const { result } = await run({ format, mode, claims: ALL });
      assert.ok(result.ok, JSON.stringify(result));
      const p = result.presentation;
      assert.equal(p.format, format);
      assert.equal(p.docType, format === 'dc+sd-jwt' ? 'urn:eudi:pid:1' : 'org.iso.18013.5.1.mDL');
      assert.deepEqual(p.claims, {
        given_names: 'Marie Salomea',
        surname: 'Sklodowska',
        birth_date: '1990-11-07',
        nationality: 'FR',
        issuing_country: 'FR',
        document_number: 'X4RTBPFW4',
        expiry_date: '2031-06-30',
        age_over_18: true,
      });
      assert.deepEqual([...p.portrait!], [...PORTRAIT]);
      assert.equal(p.claimsDisclosed, 9);
      assert.equal(p.statusChecked, true);
      assert.match(p.issuer.subject, /Test PID Provider/);
      assert.match(p.issuer.anchorFingerprint, /^[0-9a-f]{64}$/);
      assert.ok(p.validUntil.getTime() > Date.now());
    });
  }

  test(`${format}: only the age asked, only the age read`, async () => {
    const { result } = await run({ format, claims: ['age_over_18'] });
    assert.ok(result.ok, JSON.stringify(result));
    assert.deepEqual(result.presentation.claims, { age_over_18: true });
    assert.equal(result.presentation.portrait, undefined);
  });

  const refusals: Array<[string, Partial<Run>, string]> = [
    ['an untrusted issuer', { wallet: await walletWith(stranger) }, 'wallet_issuer_untrusted'],
    ['no anchor at all', { trust: [] }, 'wallet_issuer_untrusted'],
    ['an expired credential', { wallet: await walletWith(issuer, { validFrom: new Date(Date.now() - 400 * DAY), validUntil: new Date(Date.now() - DAY) }) }, 'wallet_credential_expired'],
    ['a tampered disclosure', { tamper: 'disclosure' }, 'wallet_presentation_invalid'],
    ['a replayed presentation (another nonce)', { tamper: 'nonce' }, 'wallet_device_binding_invalid'],
    ['a presentation for another verifier', { tamper: 'audience' }, 'wallet_device_binding_invalid'],
    ['a device signature by another key', { tamper: 'device_signature' }, 'wallet_device_binding_invalid'],
    ['no device signature', { tamper: 'omit_device_signature' }, 'wallet_device_binding_invalid'],
    ['claims not requested', { tamper: 'extra_claim' }, 'wallet_claims_not_requested'],
  ];
  // The token status list, the same rules for both formats (an mdoc's reference is in its MSO).
  refusals.push(
    ['a revoked credential (status list)', { wallet: await walletWith(issuer, { statusIndex: 7 }) }, 'wallet_credential_revoked'],
    ['a suspended credential (status list)', { wallet: await walletWith(issuer, { statusIndex: 9 }) }, 'wallet_credential_revoked'],
    ['a status list that cannot be fetched', { fetchStatusList: async () => Promise.reject(new Error('timeout')) }, 'wallet_status_unavailable'],
    ['a status list signed by another issuer', { fetchStatusList: async () => createStatusList(stranger, [], STATUS_URI) }, 'wallet_status_unavailable'],
    ['a status list for another uri (its sub)', { fetchStatusList: async () => createStatusList(issuer, [], 'https://issuer.example/status/2') }, 'wallet_status_unavailable'],
    ['a status list too short for the index', { wallet: await walletWith(issuer, { statusIndex: 5000 }) }, 'wallet_status_unavailable'],
    ['a revoked credential (status list as a CWT)', { wallet: await walletWith(issuer, { statusIndex: 7 }), fetchStatusList: cwt }, 'wallet_credential_revoked'],
    ['a suspended credential (status list as a CWT)', { wallet: await walletWith(issuer, { statusIndex: 9 }), fetchStatusList: cwt }, 'wallet_credential_revoked'],
    ['a CWT status list signed by another issuer', { fetchStatusList: async () => createStatusListCwt(stranger, [], STATUS_URI) }, 'wallet_status_unavailable'],
    ['a CWT status list for another uri (its sub, claim 2)', { fetchStatusList: async () => createStatusListCwt(issuer, [], 'https://issuer.example/status/2') }, 'wallet_status_unavailable'],
    ['a CWT status list whose signature does not verify', { fetchStatusList: async () => flipLast(statusListCwt) }, 'wallet_status_unavailable'],
    ['a status list that is neither a JWT nor a COSE_Sign1', { fetchStatusList: async () => new Uint8Array([0xa0]) }, 'wallet_status_unavailable'],
    ['a status reference that is not an http(s) URI', { wallet: await walletWith(issuer, { statusUri: 'ftp://issuer.example/status/1' }) }, 'wallet_presentation_invalid'],
  );
  for (const [what, r, reason] of refusals) {
    test(`${format}: refused, ${what} → ${reason}`, async () => {
      const { result } = await run({ format, ...r });
      assert.equal(result.ok, false, what);
      if (result.ok) return;
      assert.equal(result.reason, reason, result.detail);
      for (const value of Object.values(person)) if (typeof value === 'string') assert.ok(!result.detail.includes(value), `the detail names no personal data: ${result.detail}`);
    });
  }

  test(`${format}: dc_api, refused for another origin`, async () => {
    const nonce = randomBytes(16).toString('base64url');
    const claims: WalletClaim[] = ['surname'];
    const request = await buildRequest({ verifier, claims, formats: [format], nonce, state: nonce, mode: 'dc_api', expectedOrigins: [ORIGIN], expiresAt: new Date(Date.now() + 600_000) });
    const { response } = await good.respond({ requestJwt: request.dcApiRequest!.data.request, mode: 'dc_api', origin: 'https://phishing.example' }, { format });
    const result = await verifyPresentation({ response, encryptionKey: request.encryptionKey, nonce, clientId: verifier.clientId, mode: 'dc_api', origin: ORIGIN, claims, formats: [format], trustAnchors: anchors, now: new Date(), fetchStatusList: async () => statusList });
    assert.deepEqual(result.ok ? 'accepted' : result.reason, 'wallet_device_binding_invalid');
  });

  test(`${format}: a response encrypted to another request's key is refused`, async () => {
    const { result: first } = await run({ format });
    assert.ok(first.ok);
    const other = await buildRequest({ verifier, claims: ['surname'], formats: [format], nonce: randomBytes(16).toString('base64url'), state: randomBytes(16).toString('base64url'), mode: 'cross_device', responseUri: RESPONSE_URI, expiresAt: new Date(Date.now() + 600_000) });
    const nonce = randomBytes(16).toString('base64url');
    const mine = await buildRequest({ verifier, claims: ['surname'], formats: [format], nonce, state: nonce, mode: 'cross_device', responseUri: RESPONSE_URI, expiresAt: new Date(Date.now() + 600_000) });
    const { response } = await good.respond({ requestJwt: other.requestJwt, mode: 'cross_device' }, { format });
    const result = await verifyPresentation({ response, encryptionKey: mine.encryptionKey, nonce, clientId: verifier.clientId, mode: 'cross_device', responseUri: RESPONSE_URI, claims: ['surname'], formats: [format], trustAnchors: anchors, now: new Date(), fetchStatusList: async () => statusList });
    assert.deepEqual(result.ok ? 'accepted' : result.reason, 'wallet_presentation_invalid');
  });
}

test('an SD-JWT VC is trusted through a CA above its issuer certificate (the IACA as sd_jwt_issuer anchor)', async () => {
  const { result } = await run({ format: 'dc+sd-jwt', trust: [{ kind: 'sd_jwt_issuer', certificatePem: issuer.iacaPem }] });
  assert.ok(result.ok, JSON.stringify(result));
});

test('an anchor of the wrong kind does not count (an IACA is not an SD-JWT VC issuer unless configured so)', async () => {
  const { result } = await run({ format: 'mso_mdoc', trust: [{ kind: 'sd_jwt_issuer', certificatePem: issuer.iacaPem }] });
  assert.deepEqual(result.ok ? 'accepted' : result.reason, 'wallet_issuer_untrusted');
});

test('a format the request did not accept is refused', async () => {
  const nonce = randomBytes(16).toString('base64url');
  const request = await buildRequest({ verifier, claims: ['surname'], formats: ['dc+sd-jwt', 'mso_mdoc'], nonce, state: nonce, mode: 'cross_device', responseUri: RESPONSE_URI, expiresAt: new Date(Date.now() + 600_000) });
  const { response } = await good.respond({ requestJwt: request.requestJwt, mode: 'cross_device' }, { format: 'mso_mdoc' });
  const result = await verifyPresentation({ response, encryptionKey: request.encryptionKey, nonce, clientId: verifier.clientId, mode: 'cross_device', responseUri: RESPONSE_URI, claims: ['surname'], formats: ['dc+sd-jwt'], trustAnchors: anchors, now: new Date(), fetchStatusList: async () => statusList });
  assert.deepEqual(result.ok ? 'accepted' : result.reason, 'wallet_presentation_invalid');
});

test('verifyPresentation: time per format (printed)', async () => {
  for (const format of FORMATS) {
    const times: number[] = [];
    for (let i = 0; i < 10; i++) {
      const { result, ms } = await run({ format, claims: ALL });
      assert.ok(result.ok);
      times.push(ms);
    }
    times.sort((a, b) => a - b);
    console.log(`verifyPresentation ${format}: median ${times[5].toFixed(1)} ms, max ${times[9].toFixed(1)} ms over 10`);
  }
});

test('a saved test issuer, loaded again (a sandbox across restarts), still issues credentials its anchors trust', async () => {
  const saved = await saveTestIssuer(issuer);
  const again = await loadTestIssuer(saved);
  assert.equal(again.iacaPem, issuer.iacaPem);
  assert.equal(again.sdJwtIssuerPem, issuer.sdJwtIssuerPem);
  const wallet = await walletWith(again);
  for (const format of FORMATS) {
    const { result } = await run({ format, wallet });
    assert.ok(result.ok, JSON.stringify(result));
  }
});

test('the PID as mdoc (eu.europa.ec.eudi.pid.1) is accepted too, its nationality list read as one country', async () => {
  const wallet = await TestWallet.create();
  await wallet.addPidMdoc(issuer, person);
  const { result } = await run({ format: 'mso_mdoc', wallet, claims: ['surname', 'nationality', 'age_over_18'] });
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.presentation.docType, 'eu.europa.ec.eudi.pid.1');
  assert.deepEqual(result.presentation.claims, { surname: 'Sklodowska', nationality: 'FR', age_over_18: true });
});

test('an mdoc without a status reference is accepted without a status check (statusChecked false, nothing fetched)', async () => {
  const wallet = await TestWallet.create();
  await wallet.addMdl(issuer, person);
  await wallet.addPid(issuer, person);
  for (const format of FORMATS) {
    let fetched = 0;
    const { result } = await run({ format, wallet, fetchStatusList: async () => (fetched++, statusList) });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.presentation.statusChecked, false);
    assert.equal(fetched, 0);
  }
});

test("an mdoc's status list is fetched at the uri its MSO names, and checked under the iaca anchors alone", async () => {
  const uris: string[] = [];
  const { result } = await run({
    format: 'mso_mdoc',
    trust: [{ kind: 'iaca', certificatePem: issuer.iacaPem }],
    fetchStatusList: async (uri) => (uris.push(uri), statusList),
  });
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.presentation.statusChecked, true);
  assert.deepEqual(uris, [STATUS_URI]);
});

test('a PID as mdoc carries a status reference too, and is refused once revoked', async () => {
  for (const [statusIndex, expected] of [[3, 'accepted'], [7, 'wallet_credential_revoked']] as const) {
    const wallet = await TestWallet.create();
    await wallet.addPidMdoc(issuer, person, { statusListUri: STATUS_URI, statusIndex });
    const { result } = await run({ format: 'mso_mdoc', wallet, claims: ['surname'] });
    assert.equal(result.ok ? 'accepted' : result.reason, expected);
    if (result.ok) assert.equal(result.presentation.statusChecked, true);
  }
});

test('a status list served as a CWT (application/statuslist+cwt) is read for both formats: valid accepted, status checked', async () => {
  for (const format of FORMATS) {
    const { result } = await run({ format, fetchStatusList: cwt });
    assert.ok(result.ok, JSON.stringify(result));
    assert.equal(result.presentation.statusChecked, true);
  }
});
