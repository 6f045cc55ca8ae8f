import { Type } from '@sinclair/typebox';
import { findApiKey, revokeApiKey } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerRevokeApiKey(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/api-keys/:key_id',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'revokeApiKey',
        tags: ['api keys'],
        summary: 'Revoke a key; the next request with it fails on every instance. Revoking again is a no-op',
        params: Type.Object({ key_id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, 'resource_not_found', 'console_key_protected') },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      // The console never cuts off its own credential (nor another console's): every operator would lose it at once.
      if (req.operator && (await findApiKey(ctx.db, tenant, req.params.key_id))?.kind === 'console') throw new ApiError('console_key_protected', undefined, 'key_id');
      const found = await revokeApiKey(ctx.db, tenant, req.params.key_id, ctx.now());
      if (!found) throw new ApiError('resource_not_found', 'No such API key.', 'key_id');
      return reply.code(204).send(null);
    },
  );
}
