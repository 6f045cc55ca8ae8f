import { Type } from '@sinclair/typebox';
import { appendClientJournal, countTrustAnchors, findTrustAnchorByFingerprint, insertTrustAnchor, lockTrustAnchors } from '@idv/db';
import { newId } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { actorOf } from '../../http/operator.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SIGNED_ERRORS, SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { checkAnchorCertificate } from '../../services/trust-anchor-certificate.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { NewTrustAnchorSchema, presentTrustAnchor } from './schemas.ts';
import { requireAnchorWriter } from './write-permission.ts';

/** Per client and environment: a trusted list of a few dozen issuers fits; more is a mistake or an abuse. */
export const MAX_TRUST_ANCHORS = 100;

export function registerCreateTrustAnchor(app: App, ctx: AppContext): void {
  app.post(
    '/v1/trust-anchors',
    {
      config: { signed: true, operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'createTrustAnchor',
        tags: ['wallet'],
        summary: 'Add a trust anchor',
        description:
          'Trust a certificate as the root of wallet credentials: an IACA (mdoc) or an SD-JWT VC issuer\'s certificate (signed, idempotent, journaled; an integration key needs the permission decisions)',
        headers: SignedOrConsoleHeaders,
        body: NewTrustAnchorSchema,
        response: {
          201: Type.Ref('TrustAnchor'),
          ...errorResponses(
            ...ALSO_CONSOLE_ROUTE_ERRORS,
            ...SIGNED_ERRORS,
            'permission_denied',
            'trust_anchor_certificate_invalid',
            'trust_anchor_certificate_expired',
            'trust_anchor_not_ca',
            'trust_anchor_exists',
            'trust_anchor_limit_reached',
          ),
        },
      },
    },
    (req, reply) => {
      requireAnchorWriter(req, 'Adding a trust anchor');
      return runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { tenant } = authOf(req);
        const actor = actorOf(req);
        const now = ctx.now();
        const cert = checkAnchorCertificate(req.body.certificate_pem, req.body.kind, now);
        await lockTrustAnchors(tx, tenant);
        const existing = await findTrustAnchorByFingerprint(tx, tenant, cert.fingerprint);
        if (existing) throw new ApiError('trust_anchor_exists', `The certificate is already the anchor ${existing.id}.`, 'certificate_pem');
        if ((await countTrustAnchors(tx, tenant)) >= MAX_TRUST_ANCHORS) throw new ApiError('trust_anchor_limit_reached');
        const row = await insertTrustAnchor(tx, {
          id: newId('tan', now.getTime()),
          clientId: tenant.clientId,
          environment: tenant.environment,
          kind: req.body.kind,
          label: req.body.label ?? null,
          certificatePem: cert.pem,
          fingerprint: cert.fingerprint,
          subject: cert.subject,
          notBefore: cert.notBefore,
          notAfter: cert.notAfter,
          createdBy: actor,
          createdAt: now,
        });
        // The lock above makes the duplicate visible first; the unique index stays the last word.
        if (!row) throw new ApiError('trust_anchor_exists', 'The certificate is already a trust anchor.', 'certificate_pem');
        await appendClientJournal(tx, tenant, {
          actor,
          action: 'trust_anchor.added',
          detail: { anchor_id: row.id, kind: row.kind, subject: row.subject, fingerprint_sha256: row.fingerprint, not_after: row.notAfter.toISOString() },
          at: now,
        });
        return { status: 201, body: presentTrustAnchor(row) };
      });
    },
  );
}
