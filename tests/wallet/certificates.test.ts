import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { WalletInputError, describeCertificate, generateVerifierIdentity } from '@idv/wallet';
import { createTestIssuer } from '@idv/wallet/testing';

const issuer = await createTestIssuer({ name: 'Cert Test', country: 'DE' });
const verifier = await generateVerifierIdentity({ dnsName: 'id.example.org', organisation: 'Example Org', validDays: 30 });

test('describeCertificate reads an IACA root: subject, issuer, dates, SHA-256 fingerprint, CA', () => {
  const facts = describeCertificate(issuer.iacaPem);
  assert.match(facts.subject, /CN=Cert Test IACA/);
  assert.match(facts.subject, /C=DE/);
  assert.equal(facts.issuer, facts.subject);
  assert.equal(facts.isCa, true);
  assert.match(facts.fingerprintSha256, /^[0-9a-f]{64}$/);
  assert.ok(facts.notBefore < new Date() && facts.notAfter > new Date());
});

test("describeCertificate reads an issuer's leaf (not a CA, issued by the IACA) and the verifier's self-signed certificate", () => {
  const leaf = describeCertificate(issuer.sdJwtIssuerPem);
  assert.equal(leaf.isCa, false);
  assert.match(leaf.issuer, /Cert Test IACA/);
  const own = describeCertificate(verifier.certificateChainPem[0]);
  assert.match(own.subject, /CN=Example Org/);
  assert.equal(verifier.clientId, 'x509_san_dns:id.example.org');
  assert.ok(own.notAfter.getTime() - Date.now() < 31 * 86_400_000);
});

test('describeCertificate refuses what is not one certificate, with a message safe to show', () => {
  const key = `-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n`;
  const cases: Array<[string, RegExp]> = [
    ['', /No PEM certificate/],
    ['hello', /No PEM certificate/],
    [key, /private key/],
    [issuer.iacaPem + issuer.sdJwtIssuerPem, /Several certificates/],
    [`-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----`, /could not be read/],
    [`note: ${issuer.iacaPem}`, /Text found around/],
    ['x'.repeat(30_000), /at most 20,000/],
  ];
  for (const [input, message] of cases) assert.throws(() => describeCertificate(input), (e: unknown) => e instanceof WalletInputError && message.test(e.message), input.slice(0, 30));
});

test('describeCertificate: any text either throws WalletInputError or describes a certificate (never another error)', () => {
  const pemish = fc.oneof(
    fc.string({ maxLength: 300 }),
    fc.base64String({ maxLength: 400 }).map((b) => `-----BEGIN CERTIFICATE-----\n${b}\n-----END CERTIFICATE-----`),
    fc.integer({ min: 0, max: issuer.iacaPem.length }).map((cut) => issuer.iacaPem.slice(0, cut)),
  );
  fc.assert(
    fc.property(pemish, (text) => {
      try {
        const facts = describeCertificate(text);
        assert.match(facts.fingerprintSha256, /^[0-9a-f]{64}$/);
      } catch (e) {
        assert.ok(e instanceof WalletInputError, String(e));
      }
    }),
    { numRuns: 300 },
  );
});
