import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, randomBytes, randomUUID } from 'node:crypto';
import { insertTrustAnchor, listClientJournal, listTrustAnchors, type OperatorRow } from '@idv/db';
import { newId, type OperatorRole } from '@idv/domain';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { selfSigned, signedBy, type MadeCertificate } from '../helpers/certificates.ts';
import { addOperator, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';

/**
 * Wallet trust anchors through the API (GET/POST/DELETE /v1/trust-anchors), with real
 * certificates made by openssl: who may read and change them (any key reads; a key needs
 * `decisions` to add or remove; in the console an administrator only), what a certificate must be
 * (one PEM certificate, not expired, a CA for an IACA, at most 16 KB), one anchor per certificate,
 * at most 100 per client and environment, another client's anchor out of reach, and the journal.
 */

let t: ReviewTestApp;
let none: Credentials;
let personalData: Credentials;
let decisions: Credentials;
let iaca: MadeCertificate;
let signer: MadeCertificate;
let pidIssuer: MadeCertificate;
const ops = new Map<OperatorRole, OperatorRow>();

before(async () => {
  t = await startReviewApp();
  none = await issueKey(t, { clientId: t.tenant.clientId });
  personalData = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data'] });
  decisions = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['decisions'] });
  for (const role of ['administrator', 'supervisor', 'reviewer', 'support'] as const) ops.set(role, await addOperator(t, { role }));
  iaca = selfSigned('/C=FR/O=Test Authority/CN=Test IACA FR');
  signer = signedBy(iaca, '/C=FR/O=Test Authority/CN=Test Document Signer');
  pidIssuer = selfSigned('/C=DE/O=Test PID Provider/CN=Test PID Issuer', { ca: false });
});
after(() => t.close());

/** Each addition a second after the last: the test clock stands still otherwise, and the list is in order of addition. */
const add = (key: Credentials, body: unknown) => {
  t.clock.advance(1000);
  return t.request('POST', '/v1/trust-anchors', { key, body, signed: true });
};
const remove = (key: Credentials, id: string) => t.request('DELETE', `/v1/trust-anchors/${id}`, { key, signed: true });
const list = (key: Credentials = none) => t.request('GET', '/v1/trust-anchors', { key });
const idem = () => ({ 'idempotency-key': randomUUID() });
const journalOf = async (action: string) => (await listClientJournal(t.database.db, t.tenant)).filter((e) => e.action === action);

function refused(res: Awaited<ReturnType<typeof add>>, status: number, code: string) {
  assert.equal(res.statusCode, status, res.body);
  const error = errorOf(res);
  assert.equal(error.code, code, res.body);
  return error;
}

describe('adding, reading and removing with API keys', () => {
  let anchorId = '';

  test('any key reads the list; only a key holding decisions adds', async () => {
    const empty = await list();
    assert.equal(empty.statusCode, 200, empty.body);
    assert.deepEqual(empty.json(), { object: 'list', data: [] });
    for (const key of [none, personalData]) {
      const res = await add(key, { kind: 'iaca', certificate_pem: iaca.pem, label: 'France IACA' });
      assert.match(refused(res, 403, 'permission_denied').message, /decisions/);
    }
    assert.equal((await listTrustAnchors(t.database.db, t.tenant)).length, 0, 'nothing added by a refused key');

    const res = await add(decisions, { kind: 'iaca', certificate_pem: iaca.pem, label: 'France IACA' });
    assert.equal(res.statusCode, 201, res.body);
    const anchor = res.json();
    const x509 = new X509Certificate(iaca.pem);
    assert.match(anchor.id, /^tan_/);
    assert.deepEqual(
      { ...anchor, id: undefined, created_at: undefined },
      {
        id: undefined,
        object: 'trust_anchor',
        kind: 'iaca',
        label: 'France IACA',
        subject: 'C=FR, O=Test Authority, CN=Test IACA FR',
        issuer: 'C=FR, O=Test Authority, CN=Test IACA FR',
        not_before: new Date(x509.validFrom).toISOString(),
        not_after: new Date(x509.validTo).toISOString(),
        fingerprint_sha256: x509.fingerprint256.replaceAll(':', '').toLowerCase(),
        created_at: undefined,
      },
    );
    assert.equal(anchor.created_at, t.clock.now().toISOString());
    anchorId = anchor.id;
    const listed = await list(none);
    assert.deepEqual(listed.json().data, [anchor]);
    // What the wallet check reads (issue-42c): the kind and the certificate, as one canonical PEM.
    const [row] = await listTrustAnchors(t.database.db, t.tenant);
    assert.equal(row.kind, 'iaca');
    assert.equal(new X509Certificate(row.certificatePem).fingerprint256, x509.fingerprint256);
    assert.equal(row.createdBy, `key:${decisions.id}`);
    assert.equal((await listTrustAnchors(t.database.db, { ...t.tenant, environment: 'prod' })).length, 0, 'the other environment has none');
  });

  test('an SD-JWT VC issuer may be a leaf or a CA; an IACA must be a CA', async () => {
    const leaf = await add(decisions, { kind: 'sd_jwt_issuer', certificate_pem: pidIssuer.pem });
    assert.equal(leaf.statusCode, 201, leaf.body);
    assert.equal(leaf.json().label, null);
    const signed = await add(decisions, { kind: 'sd_jwt_issuer', certificate_pem: signer.pem, label: 'Signer' });
    assert.equal(signed.statusCode, 201, signed.body);
    assert.equal(signed.json().issuer, 'C=FR, O=Test Authority, CN=Test IACA FR');
    assert.equal(signed.json().subject, 'C=FR, O=Test Authority, CN=Test Document Signer');
    const notCa = await add(decisions, { kind: 'iaca', certificate_pem: selfSigned('/CN=Not a CA', { ca: false }).pem });
    assert.equal(refused(notCa, 422, 'trust_anchor_not_ca').field, 'certificate_pem');
    const docSigner = await add(decisions, { kind: 'iaca', certificate_pem: signedBy(iaca, '/CN=Another signer').pem });
    refused(docSigner, 422, 'trust_anchor_not_ca');
    assert.deepEqual(
      (await list()).json().data.map((a: { kind: string; subject: string }) => [a.kind, a.subject]),
      [
        ['iaca', 'C=FR, O=Test Authority, CN=Test IACA FR'],
        ['sd_jwt_issuer', 'C=DE, O=Test PID Provider, CN=Test PID Issuer'],
        ['sd_jwt_issuer', 'C=FR, O=Test Authority, CN=Test Document Signer'],
      ],
      'oldest first',
    );
  });

  test('what is not exactly one valid certificate is refused, with a message that repeats nothing of it', async () => {
    const other = selfSigned('/CN=Chain root');
    const cases: [string, string, string, RegExp][] = [
      ['garbage', 'not a certificate at all', 'trust_anchor_certificate_invalid', /no PEM block/],
      ['a private key', iaca.keyPem, 'trust_anchor_certificate_invalid', /private key/],
      ['a certificate with its key', `${pidIssuer.pem}${pidIssuer.keyPem}`, 'trust_anchor_certificate_invalid', /private key/],
      ['two certificates', `${signer.pem}${other.pem}`, 'trust_anchor_certificate_invalid', /2 certificates/],
      ['text around the certificate', `Subject: CN=Test\n${other.pem}`, 'trust_anchor_certificate_invalid', /before or after/],
      ['a public key', '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAE\n-----END PUBLIC KEY-----\n', 'trust_anchor_certificate_invalid', /PUBLIC KEY block/],
      ['base64 that is no certificate', `-----BEGIN CERTIFICATE-----\n${randomBytes(300).toString('base64')}\n-----END CERTIFICATE-----\n`, 'trust_anchor_certificate_invalid', /does not decode/],
      ['a truncated certificate', other.pem.replace(/\n[^\n]+\n-----END/, '\n-----END'), 'trust_anchor_certificate_invalid', /does not decode/],
    ];
    for (const [what, pem, code, message] of cases) {
      const res = await add(decisions, { kind: 'sd_jwt_issuer', certificate_pem: pem });
      const error = refused(res, 422, code);
      assert.match(error.message, message, what);
      assert.equal(error.field, 'certificate_pem', what);
      assert.ok(!res.body.includes(iaca.keyPem.split('\n')[1]) && !res.body.includes(pidIssuer.keyPem.split('\n')[1]), `${what}: the key is not echoed`);
    }
    // A crafted text at the size limit is answered at once (the PEM's reading never backtracks).
    const started = performance.now();
    const crafted = await add(decisions, { kind: 'iaca', certificate_pem: `-----BEGIN CERTIFICATE-----${' \n'.repeat(8_000)}x` });
    refused(crafted, 422, 'trust_anchor_certificate_invalid');
    assert.ok(performance.now() - started < 2_000, `answered in ${Math.round(performance.now() - started)} ms`);
    const tooLarge = await add(decisions, { kind: 'iaca', certificate_pem: `${iaca.pem}${' '.repeat(16_384)}` });
    assert.equal(refused(tooLarge, 422, 'parameter_invalid').field, 'certificate_pem');
    const unknownKind = await add(decisions, { kind: 'x509', certificate_pem: iaca.pem });
    refused(unknownKind, 422, 'parameter_invalid');
    const extra = await add(decisions, { kind: 'iaca', certificate_pem: iaca.pem, trusted: true });
    refused(extra, 422, 'parameter_unknown');
    assert.equal((await list()).json().data.length, 3, 'none of them added');
  });

  test('a certificate is one anchor: the same certificate again, in any kind or line endings, is a conflict', async () => {
    const again = await add(decisions, { kind: 'sd_jwt_issuer', certificate_pem: iaca.pem.replaceAll('\n', '\r\n'), label: 'twice' });
    assert.match(refused(again, 409, 'trust_anchor_exists').message, new RegExp(anchorId));
  });

  test('an idempotent retry answers the same anchor once; unsigned is refused', async () => {
    const cert = selfSigned('/CN=Retried');
    const key = randomUUID();
    const first = await t.request('POST', '/v1/trust-anchors', { key: decisions, signed: true, idempotencyKey: key, body: { kind: 'iaca', certificate_pem: cert.pem } });
    const second = await t.request('POST', '/v1/trust-anchors', { key: decisions, signed: true, idempotencyKey: key, body: { kind: 'iaca', certificate_pem: cert.pem } });
    assert.equal(first.statusCode, 201, first.body);
    assert.equal(second.statusCode, 201);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal(second.json().id, first.json().id);
    const unsigned = await t.request('POST', '/v1/trust-anchors', { key: decisions, body: { kind: 'iaca', certificate_pem: selfSigned('/CN=Unsigned').pem } });
    refused(unsigned, 401, 'signature_missing');
    const removed = await remove(decisions, first.json().id);
    assert.equal(removed.statusCode, 204, removed.body);
  });

  test('removing takes decisions too; a removed anchor is gone; removing it again is not found', async () => {
    for (const key of [none, personalData]) refused(await remove(key, anchorId), 403, 'permission_denied');
    const res = await remove(decisions, anchorId);
    assert.equal(res.statusCode, 204, res.body);
    assert.equal(res.body, '');
    assert.ok(!(await list()).json().data.some((a: { id: string }) => a.id === anchorId));
    refused(await remove(decisions, anchorId), 404, 'resource_not_found');
    refused(await remove(decisions, newId('tan')), 404, 'resource_not_found');
  });

  test('every change is in the client journal, by whom, with the certificate named but not its bytes', async () => {
    const added = await journalOf('trust_anchor.added');
    const removed = await journalOf('trust_anchor.removed');
    assert.equal(added.length, 4, 'iaca, two issuers and the retried one (once)');
    assert.equal(removed.length, 2);
    const first = added.find((e) => (e.detail as { anchor_id: string }).anchor_id === anchorId)!;
    assert.equal(first.actor, `key:${decisions.id}`);
    assert.deepEqual(Object.keys(first.detail as object).sort(), ['anchor_id', 'fingerprint_sha256', 'kind', 'not_after', 'subject']);
    assert.ok(removed.some((e) => (e.detail as { anchor_id: string }).anchor_id === anchorId && e.actor === `key:${decisions.id}`));
    assert.ok(!JSON.stringify([...added, ...removed]).includes('BEGIN CERTIFICATE'));
  });

  test('an expired certificate is refused; one not valid yet is accepted (a new root published ahead)', async () => {
    const expired = selfSigned('/CN=Expired IACA', { notBefore: new Date('2024-01-01T00:00:00Z'), notAfter: new Date('2025-01-01T00:00:00Z') });
    const res = await add(decisions, { kind: 'iaca', certificate_pem: expired.pem });
    assert.match(refused(res, 422, 'trust_anchor_certificate_expired').message, /expired on 2025-01-01T00:00:00.000Z/);
    const ahead = new Date(t.clock.now().getTime() + 30 * 86_400_000);
    const future = await add(decisions, { kind: 'iaca', certificate_pem: selfSigned('/CN=Next IACA', { notBefore: ahead, days: 3650 }).pem });
    assert.equal(future.statusCode, 201, future.body);
    assert.equal(future.json().not_before, new Date(Math.floor(ahead.getTime() / 1000) * 1000).toISOString());
  });
});

describe('another client', () => {
  test('never sees nor removes this client\'s anchors; its own limit is 100', async () => {
    const other = await otherClient(t);
    const mine = (await list()).json().data[0].id;
    assert.deepEqual((await list(other.key)).json().data, []);
    refused(await remove(other.key, mine), 404, 'resource_not_found');
    assert.ok((await list()).json().data.some((a: { id: string }) => a.id === mine), 'still there');

    // 99 anchors written directly (fingerprints made up), the hundredth through the API, then no more.
    const tenant = { clientId: other.clientId, environment: 'sandbox' as const };
    const filler = selfSigned('/CN=Filler');
    const now = t.clock.now();
    for (let i = 0; i < 99; i++) {
      await insertTrustAnchor(t.database.db, {
        id: newId('tan', now.getTime()),
        ...tenant,
        kind: 'iaca',
        label: null,
        certificatePem: filler.pem,
        fingerprint: randomBytes(32).toString('hex'),
        subject: 'CN=Filler',
        notBefore: now,
        notAfter: new Date(now.getTime() + 86_400_000),
        createdBy: 'test',
        createdAt: now,
      });
    }
    const hundredth = await add(other.key, { kind: 'iaca', certificate_pem: selfSigned('/CN=Hundredth').pem });
    assert.equal(hundredth.statusCode, 201, hundredth.body);
    refused(await add(other.key, { kind: 'iaca', certificate_pem: selfSigned('/CN=Too many').pem }), 409, 'trust_anchor_limit_reached');
    assert.equal((await list(other.key)).json().data.length, 100);
    // The demo client is not limited by the other's count.
    assert.equal((await add(decisions, { kind: 'iaca', certificate_pem: selfSigned('/CN=Demo again').pem })).statusCode, 201);
  });
});

describe('through the console', () => {
  test('an administrator lists, adds and removes (journaled as the operator); other roles are refused; the operator must be named', async () => {
    const cert = selfSigned('/CN=Console IACA');
    for (const role of ['supervisor', 'reviewer', 'support'] as const) {
      for (const [method, url, body] of [
        ['GET', '/v1/trust-anchors', undefined],
        ['POST', '/v1/trust-anchors', { kind: 'iaca', certificate_pem: cert.pem }],
        ['DELETE', `/v1/trust-anchors/${newId('tan')}`, undefined],
      ] as const) {
        const res = await t.asOperator(ops.get(role)!, method, url, { body, headers: idem() });
        refused(res, 403, 'operator_role_insufficient');
      }
    }
    refused(await t.request('GET', '/v1/trust-anchors', { key: t.consoleKey }), 401, 'operator_required');
    refused(await t.request('POST', '/v1/trust-anchors', { key: t.consoleKey, body: { kind: 'iaca', certificate_pem: cert.pem }, headers: idem() }), 401, 'operator_required');

    const admin = ops.get('administrator')!;
    assert.equal((await t.asOperator(admin, 'GET', '/v1/trust-anchors')).statusCode, 200);
    // The console sends an Idempotency-Key, no signature; without one it is refused.
    refused(await t.asOperator(admin, 'POST', '/v1/trust-anchors', { body: { kind: 'iaca', certificate_pem: cert.pem } }), 422, 'idempotency_key_missing');
    const created = await t.asOperator(admin, 'POST', '/v1/trust-anchors', { body: { kind: 'iaca', certificate_pem: cert.pem, label: 'From the console' }, headers: idem() });
    assert.equal(created.statusCode, 201, created.body);
    const id = created.json().id;
    const removed = await t.asOperator(admin, 'DELETE', `/v1/trust-anchors/${id}`, { headers: idem() });
    assert.equal(removed.statusCode, 204, removed.body);
    assert.ok((await journalOf('trust_anchor.added')).some((e) => e.actor === `op:${admin.id}` && (e.detail as { anchor_id: string }).anchor_id === id));
    assert.ok((await journalOf('trust_anchor.removed')).some((e) => e.actor === `op:${admin.id}` && (e.detail as { anchor_id: string }).anchor_id === id));
  });
});
