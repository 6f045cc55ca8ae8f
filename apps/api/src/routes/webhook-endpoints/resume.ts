import { Type } from '@sinclair/typebox';
import { resumeWebhookEndpoint } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { presentEndpoint } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { IdParam, WebhookEndpointSchema } from '../../schemas/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerResumeWebhookEndpoint(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhook-endpoints/:endpoint_id/resume',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'resumeWebhookEndpoint',
        tags: ['webhooks'],
        summary:
          'Reactivate a suspended endpoint: the deliveries that waited are sent at once. Resuming an active endpoint changes nothing; 202',
        params: Type.Object({ endpoint_id: IdParam('A webhook endpoint id (whe_…)') }),
        response: { 202: Type.Ref(WebhookEndpointSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found') },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const endpoint = await ctx.db.transaction((tx) => resumeWebhookEndpoint(tx, tenant, req.params.endpoint_id, ctx.now()));
      if (!endpoint) throw new ApiError('resource_not_found', 'No such webhook endpoint.', 'endpoint_id');
      return reply.code(202).send(presentEndpoint(endpoint));
    },
  );
}
