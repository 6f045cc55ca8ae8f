import { Type } from '@sinclair/typebox';
import { findWebhookDeliveryDetail } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { presentDeliveryDetail } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { IdParam, WebhookDeliveryDetailSchema } from '../../schemas/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerGetWebhookDelivery(app: App, ctx: AppContext): void {
  app.get(
    '/v1/webhook-deliveries/:delivery_id',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'getWebhookDelivery',
        tags: ['webhooks'],
        summary: 'Get a delivery',
        description: 'One delivery, its attempts, and the body exactly as the destination received it',
        params: Type.Object({ delivery_id: IdParam('A delivery id (dlv_…)') }),
        response: { 200: Type.Ref(WebhookDeliveryDetailSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const detail = await findWebhookDeliveryDetail(ctx.db, authOf(req).tenant, req.params.delivery_id);
      if (!detail) throw new ApiError('resource_not_found', 'No such webhook delivery.', 'delivery_id');
      return presentDeliveryDetail(detail);
    },
  );
}
