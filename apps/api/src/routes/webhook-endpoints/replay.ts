import { Type } from '@sinclair/typebox';
import { findWebhookDelivery } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { presentDelivery } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { IdParam, WebhookDeliverySchema } from '../../schemas/webhooks.ts';
import { endpointOr404, replayDelivery } from '../../services/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerReplayEndpointDelivery(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhook-endpoints/:endpoint_id/replay',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'replayWebhookEndpointDelivery',
        tags: ['webhooks'],
        summary: "Replay an endpoint's delivery",
        description: 'Send a delivery of this endpoint again, as a new delivery (new id) of the same event; 202 with the new delivery',
        params: Type.Object({ endpoint_id: IdParam('A webhook endpoint id (whe_…)') }),
        querystring: Type.Object(
          { delivery_id: IdParam('The delivery to replay; it must belong to this endpoint') },
          { additionalProperties: false },
        ),
        response: {
          202: Type.Ref(WebhookDeliverySchema),
          ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found', 'webhook_endpoint_suspended', 'webhook_endpoint_disabled', 'webhook_delivery_scheduled'),
        },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const endpoint = await endpointOr404(ctx.db, tenant, req.params.endpoint_id);
      const original = await findWebhookDelivery(ctx.db, tenant, req.query.delivery_id);
      if (!original || original.endpointId !== endpoint.id) {
        throw new ApiError('resource_not_found', 'No such delivery for this webhook endpoint.', 'delivery_id');
      }
      const replay = await replayDelivery(ctx.db, tenant, original, ctx.now());
      return reply.code(202).send(presentDelivery(replay));
    },
  );
}
