import { Type } from '@sinclair/typebox';
import { findCase } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SIGNED_ERRORS, SignedHeaders, errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';
import { issueSession } from '../../services/sessions.ts';
import { LocaleField, SessionCreatedSchema, presentSession } from './schemas.ts';

export function registerCreateSession(app: App, ctx: AppContext): void {
  app.post(
    '/v1/sessions',
    {
      config: { signed: true },
      schema: {
        operationId: 'createSession',
        tags: ['sessions'],
        summary: 'Create a journey link',
        description: 'Issue a journey link for a case that awaits the person (signed, idempotent)',
        headers: SignedHeaders,
        body: Type.Object(
          {
            case_id: Type.String({ minLength: 1, maxLength: 64 }),
            locale: Type.Optional(LocaleField),
          },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Ref(SessionCreatedSchema),
          ...errorResponses(...INTEGRATION_ROUTE_ERRORS, ...SIGNED_ERRORS, 'resource_not_found', 'case_not_awaiting_applicant'),
        },
      },
    },
    (req, reply) =>
      runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { key, tenant } = authOf(req);
        const now = ctx.now();
        const found = await findCase(tx, tenant, req.body.case_id);
        if (!found) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
        const { row, url } = await issueSession(tx, tenant, found, {
          locale: req.body.locale ?? 'en',
          actor: `key:${key.id}`,
          journeyUrl: ctx.config.journeyUrl,
          now,
        });
        return { status: 201, body: { ...presentSession(row), url } };
      }),
  );
}
