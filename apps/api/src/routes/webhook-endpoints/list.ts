import { Type } from '@sinclair/typebox';
import { listWebhookEndpoints } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { presentEndpoint } from '../../presenters/webhooks.ts';
import { VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { PageQuery, WebhookEndpointListSchema } from '../../schemas/webhooks.ts';

export function registerListWebhookEndpoints(app: App, ctx: AppContext): void {
  app.get(
    '/v1/webhook-endpoints',
    {
      schema: {
        operationId: 'listWebhookEndpoints',
        tags: ['webhooks'],
        summary: 'Webhook endpoints of this client and environment, newest first, without their secrets',
        querystring: Type.Object(PageQuery, { additionalProperties: false }),
        response: { 200: Type.Ref(WebhookEndpointListSchema), ...errorResponses(...VALIDATION_ERRORS) },
      },
    },
    async (req) => {
      const limit = req.query.limit ?? 20;
      const rows = await listWebhookEndpoints(ctx.db, authOf(req).tenant, limit, req.query.starting_after);
      return page(rows, limit, presentEndpoint);
    },
  );
}
