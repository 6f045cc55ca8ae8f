import { Type } from '@sinclair/typebox';
import { operatorDirectory } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { operatorOf } from '../../http/operator.ts';
import { errorResponses } from '../../schemas/common.ts';
import { OPERATOR_ROUTE_ERRORS } from './errors.ts';
import { OperatorDirectorySchema } from './schemas.ts';

/** The directory lists names only; a client with more operators than this is not expected. */
const DIRECTORY_LIMIT = 1000;

export function registerOperatorDirectory(app: App, ctx: AppContext): void {
  app.get(
    '/v1/operators/directory',
    {
      config: { operator: { ability: 'directory' } },
      schema: {
        operationId: 'operatorDirectory',
        tags: ['operators'],
        summary: "List operators' names",
        description: 'Names of the client’s active operators (any active operator; no address, no clearance)',
        response: { 200: Type.Ref(OperatorDirectorySchema), ...errorResponses(...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { tenant } = operatorOf(req);
      return { object: 'list' as const, data: await operatorDirectory(ctx.db, tenant, DIRECTORY_LIMIT) };
    },
  );
}
