import { Type } from '@sinclair/typebox';
import { revokeApiKey } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { errorResponses } from '../../schemas/common.ts';

export function registerRevokeApiKey(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/api-keys/:key_id',
    {
      schema: {
        operationId: 'revokeApiKey',
        tags: ['api keys'],
        summary: 'Revoke a key; the next request with it fails on every instance. Revoking again is a no-op',
        params: Type.Object({ key_id: Type.String({ maxLength: 64 }) }),
        response: { 204: Type.Null({ description: 'Revoked' }), ...errorResponses('resource_not_found') },
      },
    },
    async (req, reply) => {
      const found = await revokeApiKey(ctx.db, authOf(req).tenant, req.params.key_id, ctx.now());
      if (!found) throw new ApiError('resource_not_found', 'No such API key.', 'key_id');
      return reply.code(204).send(null);
    },
  );
}
