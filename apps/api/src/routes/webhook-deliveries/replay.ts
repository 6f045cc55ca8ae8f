import { Type } from '@sinclair/typebox';
import { findWebhookDelivery } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { presentDelivery } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { IdParam, WebhookDeliverySchema } from '../../schemas/webhooks.ts';
import { replayDelivery } from '../../services/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerReplayWebhookDelivery(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhook-deliveries/:delivery_id/replay',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'replayWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Replay a delivery',
        description: 'Send a delivery from the log again, as a new delivery (new id) of the same event; 202 with the new delivery',
        params: Type.Object({ delivery_id: IdParam('A delivery id (dlv_…)') }),
        response: {
          202: Type.Ref(WebhookDeliverySchema),
          ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found', 'webhook_endpoint_suspended', 'webhook_endpoint_disabled', 'webhook_delivery_scheduled'),
        },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const original = await findWebhookDelivery(ctx.db, tenant, req.params.delivery_id);
      if (!original) throw new ApiError('resource_not_found', 'No such webhook delivery.', 'delivery_id');
      const replay = await replayDelivery(ctx.db, tenant, original, ctx.now());
      return reply.code(202).send(presentDelivery(replay));
    },
  );
}
