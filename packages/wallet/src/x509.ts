/**
 * X.509 through @peculiar/x509: chain building to a configured trust anchor, validity, PEM. The
 * library's dependency injection (tsyringe) needs the reflect-metadata polyfill loaded first.
 */
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { webcrypto } from 'node:crypto';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

export { x509 };

export const derOf = (cert: x509.X509Certificate) => new Uint8Array(cert.rawData);

export async function fingerprintSha256(cert: x509.X509Certificate): Promise<string> {
  return Buffer.from(await cert.getThumbprint('SHA-256', webcrypto as unknown as Crypto)).toString('hex');
}

export class ChainError extends Error {}

/**
 * The path from a credential's certificates (leaf first, as in x5c / x5chain) to one of the
 * anchors: the anchor may be the leaf itself or any CA above it (an IACA above its document
 * signer). Each certificate up to the anchor must be valid at `now` and signed by the next one;
 * the anchor's own validity counts too. Throws ChainError with a technical message.
 */
export async function chainToAnchor(chainDer: Uint8Array[], anchorsPem: string[], now: Date): Promise<{ leaf: x509.X509Certificate; anchor: x509.X509Certificate; anchorFingerprint: string }> {
  if (chainDer.length === 0) throw new ChainError('no certificate in the credential');
  if (chainDer.length > 5) throw new ChainError('certificate chain longer than 5');
  const presented = chainDer.map((der) => new x509.X509Certificate(new Uint8Array(der)));
  const anchors = anchorsPem.map((pem) => new x509.X509Certificate(pem));
  if (anchors.length === 0) throw new ChainError('no trust anchor of this kind configured');
  const leaf = presented[0];
  const builder = new x509.X509ChainBuilder({ certificates: [...presented.slice(1), ...anchors] });
  const path = await builder.build(leaf); // leaf first, up to a self-signed root or as far as it gets
  const index = path.findIndex((cert) => anchors.some((a) => a.equal(cert)));
  if (index === -1) throw new ChainError('the certificate chain does not reach a trust anchor');
  for (let i = 0; i <= index; i++) {
    const cert = path[i];
    if (now < cert.notBefore || now > cert.notAfter) throw new ChainError(`certificate ${i} of the chain is outside its validity period`);
    // Each certificate below the anchor is checked against its issuer's key; the anchor is trusted as configured.
    if (i < index && !(await cert.verify({ publicKey: path[i + 1].publicKey, signatureOnly: true }))) throw new ChainError(`certificate ${i} of the chain is not signed by its issuer`);
  }
  const anchor = path[index];
  return { leaf, anchor, anchorFingerprint: await fingerprintSha256(anchor) };
}

export const pemOf = (der: Uint8Array) => new x509.X509Certificate(new Uint8Array(der)).toString('pem');
