import { Type } from '@sinclair/typebox';
import { listWebhookDeliveries } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { presentDelivery } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { PageQuery, WebhookDeliveryListSchema, WebhookDeliveryStatusSchema } from '../../schemas/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

const DAY_MS = 24 * 3_600_000;

export function registerListWebhookDeliveries(app: App, ctx: AppContext): void {
  app.get(
    '/v1/webhook-deliveries',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'listWebhookDeliveries',
        tags: ['webhooks'],
        summary: 'List deliveries',
        description: 'Log of all deliveries to all endpoints of this client and environment, newest first',
        querystring: Type.Object(
          {
            status: Type.Optional(WebhookDeliveryStatusSchema),
            event_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
            endpoint_id: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
            days: Type.Optional(Type.Integer({ minimum: 1, maximum: 30, default: 7, description: 'Deliveries created in the last N days' })),
            ...PageQuery,
          },
          { additionalProperties: false },
        ),
        response: { 200: Type.Ref(WebhookDeliveryListSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS) },
      },
    },
    async (req) => {
      const q = req.query;
      const limit = q.limit ?? 20;
      const rows = await listWebhookDeliveries(ctx.db, authOf(req).tenant, {
        status: q.status,
        eventType: q.event_type,
        endpointId: q.endpoint_id,
        since: new Date(ctx.now().getTime() - (q.days ?? 7) * DAY_MS),
        startingAfter: q.starting_after,
        limit,
      });
      return page(rows, limit, presentDelivery);
    },
  );
}
