import { Type } from '@sinclair/typebox';
import { resumeWebhookEndpoint } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { endpointOr404 } from '../../services/webhooks.ts';
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
        summary: 'Resume a suspended endpoint',
        description:
          'Reactivate a suspended endpoint: the deliveries that waited are sent at once. Resuming an active endpoint changes nothing; a disabled one is enabled instead (409); 202',
        params: Type.Object({ endpoint_id: IdParam('A webhook endpoint id (whe_…)') }),
        response: { 202: Type.Ref(WebhookEndpointSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found', 'webhook_endpoint_disabled') },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const now = ctx.now();
      const endpoint = await ctx.db.transaction(async (tx) => {
        // Resume answers a suspension by the deliveries; a client's own disable is undone by enable.
        if ((await endpointOr404(tx, tenant, req.params.endpoint_id)).status === 'disabled') throw new ApiError('webhook_endpoint_disabled');
        return resumeWebhookEndpoint(tx, tenant, req.params.endpoint_id, now);
      });
      return reply.code(202).send(presentEndpoint(endpoint!, now));
    },
  );
}
