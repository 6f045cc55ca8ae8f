import { Type } from '@sinclair/typebox';
import { countRecentDeliveries, listWebhookEndpoints } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { presentEndpoint } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { PageQuery, WebhookEndpointListSchema } from '../../schemas/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

const DAY_MS = 24 * 3_600_000;

export function registerListWebhookEndpoints(app: App, ctx: AppContext): void {
  app.get(
    '/v1/webhook-endpoints',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['webhooks'],
        summary: 'List endpoints',
        description: 'Webhook endpoints of this client and environment, newest first, without their secrets, each with its deliveries of the last 24 hours by status',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Type.Ref(WebhookEndpointListSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...VALIDATION_ERRORS) },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const limit = req.query.limit ?? 20;
      const rows = await listWebhookEndpoints(ctx.db, tenant, limit, req.query.starting_after);
      const now = ctx.now().getTime();
      const recent = await countRecentDeliveries(ctx.db, tenant, rows.slice(0, limit).map((r) => r.id), new Date(now - DAY_MS));
      return page(rows, limit, (row) => ({ ...presentEndpoint(row, ctx.now()), recent_deliveries: { window_hours: 24 as const, ...recent.get(row.id)! } }));
    },
  );
}
