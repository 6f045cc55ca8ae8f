import { createHash, webcrypto } from 'node:crypto';
import { exportJWK } from 'jose';
import { x509 } from './x509.ts';
import { WalletInputError, type CertificateFacts, type VerifierIdentity } from './types.ts';

const P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;

const serial = () => Buffer.from(webcrypto.getRandomValues(new Uint8Array(16))).toString('hex').replace(/^[89a-f]/, '1');

/** A self-signed P-256 certificate for the verifier (CN = name, SAN dNSName = dnsName), for the demo client or when none is configured. */
export async function generateVerifierIdentity(input: { dnsName: string; organisation: string; validDays?: number }): Promise<VerifierIdentity> {
  if (!/^[a-z0-9.-]{1,253}$/i.test(input.dnsName)) throw new WalletInputError('The DNS name is not valid.');
  const keys = (await webcrypto.subtle.generateKey(P256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: [{ CN: [input.organisation], O: [input.organisation] }],
    notBefore: new Date(now - 60_000),
    notAfter: new Date(now + (input.validDays ?? 365) * DAY),
    keys,
    signingAlgorithm: P256,
    extensions: [
      new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: input.dnsName }]),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.BasicConstraintsExtension(false, undefined, true),
    ],
  });
  return {
    privateJwk: (await exportJWK(keys.privateKey)) as JsonWebKey,
    certificateChainPem: [cert.toString('pem')],
    dnsName: input.dnsName,
    clientId: `x509_san_dns:${input.dnsName}`,
  };
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]+)-----END CERTIFICATE-----/g;

/** Parses one PEM certificate (throws WalletInputError with a message safe to show on anything else: several certificates, a key, garbage). */
export function describeCertificate(pem: string): CertificateFacts {
  if (typeof pem !== 'string' || pem.length > 20_000) throw new WalletInputError('The certificate must be one PEM certificate of at most 20,000 characters.');
  const blocks = [...pem.matchAll(PEM_CERT)];
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) throw new WalletInputError('This is a private key, not a certificate: never upload a private key.');
  if (blocks.length === 0) throw new WalletInputError('No PEM certificate found (-----BEGIN CERTIFICATE-----).');
  if (blocks.length > 1) throw new WalletInputError('Several certificates found: upload one certificate per trust anchor.');
  if (pem.replace(PEM_CERT, '').trim() !== '') throw new WalletInputError('Text found around the certificate: upload the PEM certificate alone.');
  let cert: x509.X509Certificate;
  try {
    cert = new x509.X509Certificate(blocks[0][0]);
  } catch {
    throw new WalletInputError('The certificate could not be read (not DER X.509 in PEM).');
  }
  const basic = cert.getExtension(x509.BasicConstraintsExtension);
  return {
    subject: cert.subject,
    issuer: cert.issuer,
    notBefore: cert.notBefore,
    notAfter: cert.notAfter,
    // The contract's function is synchronous: node's hash of the DER (what x509.ts's fingerprintSha256 computes too).
    fingerprintSha256: createHash('sha256').update(new Uint8Array(cert.rawData)).digest('hex'),
    isCa: basic?.ca ?? false,
  };
}
