import { Type } from '@sinclair/typebox';
import type { TrustAnchorRow } from '@idv/db';
import { Timestamp } from '../../schemas/common.ts';
import { MAX_ANCHOR_PEM_CHARS, readCertificate } from '../../services/trust-anchor-certificate.ts';

export const TrustAnchorKindSchema = Type.Union([Type.Literal('iaca'), Type.Literal('sd_jwt_issuer')], {
  description: 'iaca: an IACA root, for mdoc credentials (mobile driving licence, PID as mdoc); sd_jwt_issuer: a certificate of an SD-JWT VC issuer (a PID provider), CA or leaf',
});

export const TrustAnchorSchema = Type.Object(
  {
    id: Type.String({ description: 'tan_…' }),
    object: Type.Literal('trust_anchor'),
    kind: TrustAnchorKindSchema,
    label: Type.Union([Type.String(), Type.Null()], { description: 'Your own name for it' }),
    subject: Type.String({ description: 'The certificate\'s subject, one line, attributes in certificate order' }),
    issuer: Type.String({ description: 'The certificate\'s issuer (its subject again for a root)' }),
    not_before: Timestamp,
    not_after: Timestamp,
    fingerprint_sha256: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'SHA-256 of the certificate\'s DER, lower-case hex' }),
    created_at: Timestamp,
  },
  { $id: 'TrustAnchor', description: 'A certificate the client trusts as the root of wallet credentials (docs/wallet.md#trust-anchors)' },
);

export const TrustAnchorListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(TrustAnchorSchema), { maxItems: 100, description: 'Every anchor of this client and environment (at most 100), oldest first' }),
  },
  { $id: 'TrustAnchorList' },
);

export const NewTrustAnchorSchema = Type.Object(
  {
    kind: TrustAnchorKindSchema,
    certificate_pem: Type.String({
      minLength: 1,
      maxLength: MAX_ANCHOR_PEM_CHARS,
      description: 'One X.509 certificate, PEM (-----BEGIN CERTIFICATE----- …), alone: no chain, no key; not expired; for iaca a CA certificate',
    }),
    label: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'Your own name for it, shown in the console' })),
  },
  { additionalProperties: false },
);

export function presentTrustAnchor(row: TrustAnchorRow) {
  return {
    id: row.id,
    object: 'trust_anchor' as const,
    kind: row.kind,
    label: row.label,
    subject: row.subject,
    // Not a column: read again from the stored certificate (a few microseconds; at most 100 a list).
    issuer: readCertificate(row.certificatePem).issuer,
    not_before: row.notBefore.toISOString(),
    not_after: row.notAfter.toISOString(),
    fingerprint_sha256: row.fingerprint,
    created_at: row.createdAt.toISOString(),
  };
}
