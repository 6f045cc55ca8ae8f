import { Type } from '@sinclair/typebox';
import { appendClientJournal, deleteTrustAnchor } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { actorOf } from '../../http/operator.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SIGNED_ERRORS, SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { IdParam } from '../../schemas/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { requireAnchorWriter } from './write-permission.ts';

export function registerDeleteTrustAnchor(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/trust-anchors/:anchor_id',
    {
      config: { signed: true, operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'deleteTrustAnchor',
        tags: ['wallet'],
        summary: 'Remove a trust anchor',
        description:
          'Stop trusting a certificate: presentations verified from now on no longer chain to it (signed, idempotent, journaled; an integration key needs the permission decisions)',
        headers: SignedOrConsoleHeaders,
        params: Type.Object({ anchor_id: IdParam('A trust anchor id (tan_…)') }),
        response: { 204: Type.Null({ description: 'Removed' }), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...SIGNED_ERRORS, 'permission_denied', 'resource_not_found') },
      },
    },
    (req, reply) => {
      requireAnchorWriter(req, 'Removing a trust anchor');
      return runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { tenant } = authOf(req);
        const actor = actorOf(req);
        const now = ctx.now();
        const row = await deleteTrustAnchor(tx, tenant, req.params.anchor_id);
        if (!row) throw new ApiError('resource_not_found', 'No such trust anchor.', 'anchor_id');
        await appendClientJournal(tx, tenant, {
          actor,
          action: 'trust_anchor.removed',
          detail: { anchor_id: row.id, kind: row.kind, subject: row.subject, fingerprint_sha256: row.fingerprint },
          at: now,
        });
        return { status: 204, body: null };
      });
    },
  );
}
