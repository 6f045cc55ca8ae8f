/**
 * A test issuer generated in memory: an IACA root with a document signer per issuing country
 * (mdoc), and an SD-JWT VC issuer certificate below the same root. Its certificates are what a
 * client uploads as trust anchors in the sandbox (iacaPem for mdoc, sdJwtIssuerPem — or the IACA
 * itself, a CA above it — for SD-JWT VC). Never trusted unless uploaded.
 */
import { webcrypto } from 'node:crypto';
import { exportJWK } from 'jose';
import { x509 } from '../x509.ts';

const P256 = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
const DAY = 86_400_000;
/** ISO/IEC 18013-5 extended key usage of a document signer. */
const MDL_DS_EKU = '1.0.18013.5.1.2';

export interface IssuerKey {
  privateJwk: JsonWebKey;
  publicJwk: JsonWebKey;
  certificate: x509.X509Certificate;
}

export interface TestIssuer {
  iacaPem: string;
  sdJwtIssuerPem: string;
  name: string;
  country: string;
  /** The private material: the SD-JWT VC issuer's key and the mdoc document signer per country (made on first use). */
  keys: { iaca: CryptoKeyPair; iacaCertificate: x509.X509Certificate; sdJwt: IssuerKey; documentSigners: Map<string, IssuerKey> };
}

const serial = () => `01${Buffer.from(webcrypto.getRandomValues(new Uint8Array(15))).toString('hex')}`;

async function issue(subject: string, issuerCert: x509.X509Certificate, issuerKeys: CryptoKeyPair, extensions: x509.Extension[]): Promise<IssuerKey> {
  const keys = (await webcrypto.subtle.generateKey(P256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const certificate = await x509.X509CertificateGenerator.create({
    serialNumber: serial(),
    subject,
    issuer: issuerCert.subject,
    notBefore: new Date(now - DAY),
    notAfter: new Date(now + 3 * 365 * DAY),
    publicKey: keys.publicKey,
    signingKey: issuerKeys.privateKey,
    signingAlgorithm: P256,
    extensions: [
      ...extensions,
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(issuerCert),
    ],
  });
  return { privateJwk: (await exportJWK(keys.privateKey)) as JsonWebKey, publicJwk: (await exportJWK(keys.publicKey)) as JsonWebKey, certificate };
}

const clean = (s: string) => s.replace(/[,=+<>#;"\\]/g, ' ');

export async function createTestIssuer(opts?: { name?: string; country?: string }): Promise<TestIssuer> {
  const name = clean(opts?.name ?? 'IDV Test Issuer');
  const country = (opts?.country ?? 'FR').toUpperCase();
  const iaca = (await webcrypto.subtle.generateKey(P256, true, ['sign', 'verify'])) as CryptoKeyPair;
  const now = Date.now();
  const iacaCertificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(),
    name: `C=${country}, O=${name}, CN=${name} IACA`,
    notBefore: new Date(now - 2 * DAY),
    notAfter: new Date(now + 10 * 365 * DAY),
    keys: iaca,
    signingAlgorithm: P256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(iaca.publicKey),
    ],
  });
  const sdJwt = await issue(`C=${country}, O=${name}, CN=${name} PID Provider`, iacaCertificate, iaca, [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
  ]);
  return {
    iacaPem: iacaCertificate.toString('pem'),
    sdJwtIssuerPem: sdJwt.certificate.toString('pem'),
    name,
    country,
    keys: { iaca, iacaCertificate, sdJwt, documentSigners: new Map() },
  };
}

/** The document signer for an issuing country (ISO 18013-5: its subject's C is the mdoc's issuing_country), made once. */
export async function documentSigner(issuer: TestIssuer, country: string): Promise<IssuerKey> {
  const found = issuer.keys.documentSigners.get(country);
  if (found) return found;
  const signer = await issue(`C=${country}, O=${issuer.name}, CN=${issuer.name} Document Signer`, issuer.keys.iacaCertificate, issuer.keys.iaca, [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([MDL_DS_EKU], true),
  ]);
  issuer.keys.documentSigners.set(country, signer);
  return signer;
}
