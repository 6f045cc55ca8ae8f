import { randomBytes } from 'node:crypto';
import { Type } from '@sinclair/typebox';
import { appendJournal, findCaseForUpdate, insertSession } from '@idv/db';
import { awaitsApplicant, coversCountry, newId } from '@idv/domain';
import { secretHash } from '@idv/vault';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { OPERATOR_ROUTE_ERRORS } from '../operators/errors.ts';
import { SessionCreatedSchema, presentSession } from '../sessions/schemas.ts';
import { CaseParams } from './get.ts';

const SESSION_TTL_MS = 3_600_000;

export function registerCaseJourneyLink(app: App, ctx: AppContext): void {
  app.post(
    '/v1/cases/:case_id/journey-link',
    {
      config: { operator: { ability: 'review' } },
      schema: {
        operationId: 'createCaseJourneyLink',
        tags: ['reviews'],
        summary: 'A new journey link from the console (Op), for a case created or collecting only; returned once, journaled like a session',
        params: CaseParams,
        body: Type.Object(
          { locale: Type.Optional(Type.String({ pattern: '^[a-z]{2}(-[A-Z]{2})?$', description: 'Journey language (en, fr, de, es; others fall back to en)' })) },
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
        if (!awaitsApplicant(found.state) || found.expiresAt <= now) {
          const where = found.expiresAt <= now ? `expired at ${found.expiresAt.toISOString()}` : `is ${found.state} (status ${found.status})`;
          throw new ApiError(
            'case_not_awaiting_applicant',
            `The case ${where}; a journey link can be issued only while the case awaits the person (status created or collecting).`,
            'case_id',
          );
        }
        const token = randomBytes(32).toString('base64url');
        const id = newId('ses', now.getTime());
        const row = await insertSession(tx, {
          id,
          ...tenant,
          caseId: found.id,
          tokenHash: secretHash(token),
          locale: req.body.locale ?? 'en',
          createdBy: actor,
          createdAt: now,
          expiresAt: new Date(Math.min(now.getTime() + SESSION_TTL_MS, found.expiresAt.getTime())),
        });
        await appendJournal(tx, tenant, { caseId: found.id, actor, action: 'session.created', detail: { session_id: id, via: 'console' }, at: now });
        return { row, token };
      });
      return reply.code(201).send({ ...presentSession(created.row), url: `${ctx.config.journeyUrl}/#${created.token}` });
    },
  );
}
