import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { actorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { issueApiKey } from '../../services/api-keys.ts';
import { ApiKeyCreatedSchema, PermissionSchema, presentApiKey } from './schemas.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerCreateApiKey(app: App, ctx: AppContext): void {
  app.post(
    '/v1/api-keys',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'createApiKey',
        tags: ['api keys'],
        summary: 'Create an API key',
        description:
          'Create an integration key in the environment of the calling key; its secrets are returned once. Through the console, an administrator may grant either permission',
        body: Type.Object(
          {
            name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
            permissions: Type.Optional(Type.Array(PermissionSchema, { uniqueItems: true, maxItems: 2, description: 'None by default' })),
          },
          { additionalProperties: false },
        ),
        response: { 201: Type.Ref(ApiKeyCreatedSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...BODY_ERRORS, 'permission_not_held') },
      },
    },
    async (req, reply) => {
      const { key, tenant } = authOf(req);
      const permissions = req.body?.permissions ?? [];
      // A key grants only what it holds. Through the console an administrator grants either
      // permission (the spec: keys are created in the console), though the console credential holds
      // none; the body has no kind, so a key made here is an integration key, never a console one.
      const missing = req.operator ? [] : permissions.filter((p) => !key.permissions.includes(p));
      if (missing.length) {
        throw new ApiError('permission_not_held', `The calling key does not hold ${missing.join(', ')}.`, 'permissions');
      }
      const issued = await issueApiKey(ctx.db, ctx.keyring, {
        ...tenant,
        name: req.body?.name,
        permissions,
        createdBy: actorOf(req),
        now: ctx.now(),
      });
      return reply.code(201).send({ ...presentApiKey(issued.row), secret: issued.secret, signing_secret: issued.signingSecret });
    },
  );
}
