import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotentCreation } from '../../http/idempotent.ts';
import { createCase } from '../../services/cases.ts';
import { CaseCreatedSchema, NewCaseSchema } from '../../schemas/case.ts';
import { SIGNED_ERRORS, SignedHeaders, errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerCreateCase(app: App, ctx: AppContext): void {
  app.post(
    '/v1/cases',
    {
      config: { signed: true },
      schema: {
        operationId: 'createCase',
        tags: ['cases'],
        summary: 'Open a case for a person to verify (signed, idempotent)',
        headers: SignedHeaders,
        body: NewCaseSchema,
        response: {
          201: Type.Ref(CaseCreatedSchema),
          ...errorResponses(...INTEGRATION_ROUTE_ERRORS, ...SIGNED_ERRORS, 'invalid_country', 'unknown_flow', 'country_not_accepted', 'quota_exceeded'),
        },
      },
    },
    async (req, reply) => {
      const { key, tenant } = authOf(req);
      // The case and the request's stored response commit together, in one statement.
      return runIdempotentCreation(ctx.idempotency, req, reply, (entryOf) => createCase(ctx, ctx.idempotency.db, entryOf, { tenant, keyId: key.id }, req.body));
    },
  );
}
