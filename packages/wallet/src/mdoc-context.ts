/**
 * The crypto @owf/mdoc asks its caller for (it ships none): node's WebCrypto for ES256 and
 * digests, @peculiar/x509 for certificates. Certificate chains are checked by x509.ts before the
 * library runs, so its own chain callback is not used (disableCertificateChainValidation).
 * Device MAC (ISO 18013-5 proximity with a reader key) has no place in OpenID4VP: refused.
 */
import { webcrypto } from 'node:crypto';
import { CoseKey, type MdocContext } from '@owf/mdoc';
import { x509 } from './x509.ts';

const ES256 = { name: 'ECDSA', namedCurve: 'P-256' } as const;
const bytes = (b: Uint8Array) => new Uint8Array(b) as Uint8Array<ArrayBuffer>;

async function importCose(key: CoseKey, use: 'sign' | 'verify') {
  const jwk = { ...key.jwk } as JsonWebKey & Record<string, unknown>;
  if (use === 'verify') delete jwk.d;
  delete jwk.alg;
  delete jwk.kid;
  delete jwk.key_ops;
  return webcrypto.subtle.importKey('jwk', jwk, ES256, false, [use]);
}

export const mdocContext: MdocContext = {
  crypto: {
    random: (length) => webcrypto.getRandomValues(new Uint8Array(length)),
    digest: async ({ digestAlgorithm, bytes: input }) => new Uint8Array(await webcrypto.subtle.digest(digestAlgorithm, bytes(input))),
    calculateEphemeralMacKey: () => {
      throw new Error('device MAC is not supported over OpenID4VP');
    },
  },
  cose: {
    sign1: {
      sign: async ({ toBeSigned, key }) => new Uint8Array(await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, await importCose(key, 'sign'), bytes(toBeSigned))),
      verify: async ({ key, sign1 }) => {
        try {
          return await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, await importCose(key, 'verify'), bytes(sign1.signature), bytes(sign1.toBeSigned));
        } catch {
          return false;
        }
      },
    },
    mac0: {
      sign: () => {
        throw new Error('device MAC is not supported over OpenID4VP');
      },
      verify: () => false,
    },
  },
  x509: {
    getIssuerNameField: ({ certificate, field }) => new x509.X509Certificate(bytes(certificate)).issuerName.getField(field),
    getPublicKey: async ({ certificate }) => {
      const cert = new x509.X509Certificate(bytes(certificate));
      const key = await cert.publicKey.export(ES256, ['verify'], webcrypto as unknown as Crypto);
      return CoseKey.fromJwk((await webcrypto.subtle.exportKey('jwk', key as unknown as webcrypto.CryptoKey)) as Record<string, unknown>);
    },
    verifyCertificateChain: () => {
      throw new Error('certificate chains are checked by the service (x509.ts)');
    },
    getCertificateData: async ({ certificate }) => {
      const cert = new x509.X509Certificate(bytes(certificate));
      return {
        issuerName: cert.issuer,
        subjectName: cert.subject,
        serialNumber: cert.serialNumber,
        thumbprint: Buffer.from(await cert.getThumbprint('SHA-256', webcrypto as unknown as Crypto)).toString('hex'),
        notBefore: cert.notBefore,
        notAfter: cert.notAfter,
        pem: cert.toString('pem'),
      };
    },
  },
};
