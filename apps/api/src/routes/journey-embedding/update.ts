import { Type } from '@sinclair/typebox';
import { appendClientJournal, findEmbedding, saveEmbedding } from '@idv/db';
import { MAX_EMBEDDING_ORIGINS, normalizeOrigins } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { actorOf } from '../../http/operator.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SIGNED_ERRORS, SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { presentEmbedding } from './schemas.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerUpdateJourneyEmbedding(app: App, ctx: AppContext): void {
  app.post(
    '/v1/journey-embedding',
    {
      config: { signed: true, operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'updateJourneyEmbedding',
        tags: ['embedding'],
        summary: 'Set the framing origins',
        description: 'Replace the origins allowed to frame the journey (signed, idempotent, journaled)',
        headers: SignedOrConsoleHeaders,
        body: Type.Object(
          {
            origins: Type.Array(Type.String({ maxLength: 255 }), {
              maxItems: MAX_EMBEDDING_ORIGINS,
              description: 'Each an origin of scheme and host (and port) only, as https://www.example.com: no path, query, fragment or trailing slash; https in production',
            }),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref('JourneyEmbedding'), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...SIGNED_ERRORS, 'embedding_origin_invalid', 'permission_denied') },
      },
    },
    (req, reply) => {
      // A framing page sits around the person's capture of their data: letting a new site frame the
      // journey takes a key trusted with personal data, or an administrator in the console.
      if (!req.operator && !authOf(req).key.permissions.includes('personal_data')) {
        throw new ApiError('permission_denied', 'Replacing the embedding origins requires a key with the permission personal_data.');
      }
      return runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { tenant } = authOf(req);
        const actor = actorOf(req);
        const now = ctx.now();
        const checked = normalizeOrigins(req.body.origins, tenant.environment);
        if (!checked.ok) {
          throw new ApiError('embedding_origin_invalid', `origins[${checked.index}] ${checked.message}.`, `origins.${checked.index}`);
        }
        const before = (await findEmbedding(tx, tenant))?.origins ?? [];
        const row = await saveEmbedding(tx, tenant, checked.origins, actor, now);
        await appendClientJournal(tx, tenant, {
          actor,
          action: 'journey_embedding.updated',
          detail: {
            origins: checked.origins,
            added: checked.origins.filter((o) => !before.includes(o)),
            removed: before.filter((o) => !checked.origins.includes(o)),
          },
          at: now,
        });
        return { status: 200, body: presentEmbedding(row) };
      });
    },
  );
}
