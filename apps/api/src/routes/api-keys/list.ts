import { Type } from '@sinclair/typebox';
import { listApiKeys } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { ApiKeyListSchema, presentApiKey } from './schemas.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerListApiKeys(app: App, ctx: AppContext): void {
  app.get(
    '/v1/api-keys',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'listApiKeys',
        tags: ['api keys'],
        summary: 'List API keys',
        description: 'Keys of this client and environment, newest first, without secrets',
        querystring: Type.Object(
          {
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
            starting_after: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Id of the last key of the previous page' })),
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(ApiKeyListSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const rows = await listApiKeys(ctx.db, authOf(req).tenant, limit, req.query.starting_after);
      return page(rows, limit, presentApiKey);
    },
  );
}
