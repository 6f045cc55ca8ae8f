import { Type } from '@sinclair/typebox';
import { findWebhookDelivery } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { presentDelivery } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { IdParam, WebhookDeliverySchema } from '../../schemas/webhooks.ts';
import { sendTestEvent } from '../../services/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerTestWebhookEndpoint(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhook-endpoints/:endpoint_id/test',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'testWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Send a test event',
        description: 'Send a signed webhook.test event to this endpoint, logged like any delivery; 202 with the delivery',
        params: Type.Object({ endpoint_id: IdParam('A webhook endpoint id (whe_…)') }),
        response: {
          202: Type.Ref(WebhookDeliverySchema),
          ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found', 'webhook_endpoint_suspended', 'webhook_endpoint_disabled'),
        },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const deliveryId = await sendTestEvent(ctx.db, tenant, req.params.endpoint_id, ctx.now());
      const delivery = await findWebhookDelivery(ctx.db, tenant, deliveryId);
      return reply.code(202).send(presentDelivery(delivery!));
    },
  );
}
