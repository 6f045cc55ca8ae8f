import { Type } from '@sinclair/typebox';
import { listWebhookDeliveries } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { presentDelivery } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { IdParam, PageQuery, WebhookDeliveryListSchema } from '../../schemas/webhooks.ts';
import { endpointOr404 } from '../../services/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

const DAY_MS = 24 * 3_600_000;

export function registerListEndpointDeliveries(app: App, ctx: AppContext): void {
  app.get(
    '/v1/webhook-endpoints/:endpoint_id/deliveries',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'listWebhookEndpointDeliveries',
        tags: ['webhooks'],
        summary: "List an endpoint's deliveries",
        description: 'Deliveries of the last 24 hours to this endpoint only, newest first',
        params: Type.Object({ endpoint_id: IdParam('A webhook endpoint id (whe_…)') }),
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Type.Ref(WebhookDeliveryListSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const endpoint = await endpointOr404(ctx.db, tenant, req.params.endpoint_id);
      const limit = req.query.limit ?? 20;
      const rows = await listWebhookDeliveries(ctx.db, tenant, {
        endpointId: endpoint.id,
        since: new Date(ctx.now().getTime() - DAY_MS),
        startingAfter: req.query.starting_after,
        limit,
      });
      return page(rows, limit, presentDelivery);
    },
  );
}
