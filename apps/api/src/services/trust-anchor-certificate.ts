import { X509Certificate, createHash } from 'node:crypto';
import { ApiError } from '../http/api-error.ts';

/** The most a certificate_pem may hold (a root certificate is 1–2 KB; 16 KB leaves room for long extensions). */
export const MAX_ANCHOR_PEM_CHARS = 16_384;

export type AnchorKind = 'iaca' | 'sd_jwt_issuer';

export interface AnchorCertificate {
  /** The certificate re-encoded from its DER: one canonical PEM whatever the line endings sent. */
  pem: string;
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the DER, lower-case hex. */
  fingerprint: string;
  isCa: boolean;
}

/** `BEGIN <label>`: what a PEM block says it holds. */
const PEM_LABEL = /-----BEGIN ([A-Z0-9 ]{1,40})-----/g;
const HEADER = '-----BEGIN CERTIFICATE-----';
const FOOTER = '-----END CERTIFICATE-----';
/** Checked apart from the header and footer: one character class, linear on any input (no backtracking). */
const BASE64_LINES = /^[A-Za-z0-9+/=\s]+$/;

/** Node writes a name one attribute per line (`C=FR\nO=…\nCN=…`); shown on one line, commas between. */
const oneLine = (name: string) => name.split('\n').join(', ');

/**
 * Reads one PEM certificate. Refuses, with a message safe to show (it never repeats what was
 * sent), anything else: text that is no PEM, a private key or any other block, several
 * certificates (a chain: the anchor is the root alone), or bytes that do not decode.
 */
export function readCertificate(text: string): AnchorCertificate {
  const trimmed = text.trim();
  const labels = [...trimmed.matchAll(PEM_LABEL)].map((m) => m[1]);
  const invalid = (why: string) => new ApiError('trust_anchor_certificate_invalid', why, 'certificate_pem');
  if (labels.length === 0) throw invalid('certificate_pem holds no PEM block: send the certificate as -----BEGIN CERTIFICATE----- … -----END CERTIFICATE-----.');
  const other = labels.find((l) => l !== 'CERTIFICATE');
  if (other?.includes('PRIVATE KEY')) throw invalid('certificate_pem holds a private key: a trust anchor is a certificate, and a private key should never be sent (consider it exposed).');
  if (other) throw invalid(`certificate_pem holds a ${other} block, not a certificate.`);
  if (labels.length > 1) throw invalid(`certificate_pem holds ${labels.length} certificates: send one, the root (or the issuer's own certificate), alone.`);
  const body = trimmed.startsWith(HEADER) && trimmed.endsWith(FOOTER) ? trimmed.slice(HEADER.length, -FOOTER.length) : '';
  if (!BASE64_LINES.test(body)) throw invalid('certificate_pem holds text before or after the certificate, or its base64 is malformed: send the PEM block alone.');
  let cert: X509Certificate;
  try {
    cert = new X509Certificate(Buffer.from(body.replace(/\s+/g, ''), 'base64'));
  } catch {
    throw invalid('certificate_pem does not decode as an X.509 certificate.');
  }
  return {
    pem: cert.toString(),
    subject: oneLine(cert.subject),
    issuer: oneLine(cert.issuer),
    notBefore: new Date(cert.validFrom),
    notAfter: new Date(cert.validTo),
    fingerprint: createHash('sha256').update(cert.raw).digest('hex'),
    isCa: cert.ca,
  };
}

/**
 * The certificate of a new anchor of `kind`, checked for what an anchor needs at upload: not
 * expired (a certificate not valid yet is accepted: a new root is often published ahead of its
 * use), and for an IACA a CA certificate. An SD-JWT VC issuer may be a CA or the issuer's own
 * (leaf) certificate.
 */
export function checkAnchorCertificate(text: string, kind: AnchorKind, now: Date): AnchorCertificate {
  const cert = readCertificate(text);
  if (cert.notAfter.getTime() <= now.getTime()) {
    throw new ApiError('trust_anchor_certificate_expired', `The certificate expired on ${cert.notAfter.toISOString()}.`, 'certificate_pem');
  }
  if (kind === 'iaca' && !cert.isCa) {
    throw new ApiError('trust_anchor_not_ca', 'The certificate is not a CA certificate (no basic constraints CA:TRUE): an IACA is the issuing authority\'s root.', 'certificate_pem');
  }
  return cert;
}
