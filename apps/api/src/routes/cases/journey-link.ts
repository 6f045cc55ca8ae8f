import { Type } from '@sinclair/typebox';
import { findCaseForUpdate } from '@idv/db';
import { coversCountry } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { LocaleField, SessionCreatedSchema, presentSession } from '../sessions/schemas.ts';
import { issueSession } from '../../services/sessions.ts';
import { CaseParams } from './get.ts';

export function registerCaseJourneyLink(app: App, ctx: AppContext): void {
  app.post(
    '/v1/cases/:case_id/journey-link',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'createCaseJourneyLink',
        tags: ['reviews'],
        summary: 'Create a journey link (console)',
        description: 'A new journey link from the console (Op), for a case created or collecting only; returned once, journaled like a session',
        params: CaseParams,
        body: Type.Object(
          { locale: Type.Optional(LocaleField) },
          { additionalProperties: false, description: 'A JSON object, {} for the defaults' },
        ),
        response: {
          201: Type.Ref(SessionCreatedSchema),
          ...errorResponses(...BODY_ERRORS, ...OPERATOR_ROUTE_ERRORS, 'resource_not_found', 'case_not_awaiting_applicant'),
        },
      },
    },
    async (req, reply) => {
      const { operator, tenant, actor } = operatorOf(req);
      const now = ctx.now();
      const created = await ctx.db.transaction(async (tx) => {
        const found = await findCaseForUpdate(tx, tenant, req.params.case_id);
        if (!found || !coversCountry(operator, found.country)) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
        return issueSession(tx, tenant, found, { locale: req.body.locale ?? 'en', actor, journeyUrl: ctx.config.journeyUrl, now, via: 'console' });
      });
      return reply.code(201).send({ ...presentSession(created.row), url: created.url });
    },
  );
}
