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
        summary: 'Revoke an API key',
        description: 'Revoke a key; the next request with it fails on every instance. Revoking again is a no-op',
        params: Type.Object({ key_id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, 'resource_not_found', 'console_key_protected', 'permission_not_held') },
      },
    },
    async (req, reply) => {
      const { key, tenant } = authOf(req);
      const target = await findApiKey(ctx.db, tenant, req.params.key_id);
      // No one cuts off a console credential through the API: every operator would lose it at once.
      if (target?.kind === 'console') throw new ApiError('console_key_protected', undefined, 'key_id');
      // A key revokes only what it could have created: keys whose permissions it holds. An
      // administrator, through the console, may revoke any integration key.
      const missing = target && !req.operator ? target.permissions.filter((p) => !key.permissions.includes(p)) : [];
      if (missing.length) throw new ApiError('permission_not_held', `The calling key does not hold ${missing.join(', ')}, which the key to revoke holds.`, 'key_id');
      const found = await revokeApiKey(ctx.db, tenant, req.params.key_id, ctx.now());
      if (!found) throw new ApiError('resource_not_found', 'No such API key.', 'key_id');
      return reply.code(204).send(null);
    },
  );
}
