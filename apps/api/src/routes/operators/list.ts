import { Type } from '@sinclair/typebox';
import { listOperators } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { OPERATOR_ROUTE_ERRORS } from './errors.ts';
import { OperatorListSchema, presentOperator } from './schemas.ts';

export function registerListOperators(app: App, ctx: AppContext): void {
  app.get(
    '/v1/operators',
    {
      config: { operator: { ability: 'manageOperators' } },
      schema: {
        operationId: 'listOperators',
        tags: ['operators'],
        summary: 'List operators',
        description: 'Operators with their clearance and last connection, oldest first (administrator)',
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
            starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Id of the last operator of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(OperatorListSchema), ...errorResponses(...VALIDATION_ERRORS, ...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 50;
      const rows = await listOperators(ctx.db, operatorOf(req).tenant, limit, req.query.starting_after);
      return page(rows, limit, presentOperator);
    },
  );
}
