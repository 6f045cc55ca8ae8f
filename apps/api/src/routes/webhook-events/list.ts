import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_CATALOGUE } from '@idv/domain';
import type { App } from '../../context.ts';
import { errorResponses } from '../../schemas/common.ts';
import { WebhookEventTypeListSchema } from '../../schemas/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerListWebhookEvents(app: App): void {
  app.get(
    '/v1/webhook-events',
    {
      config: { operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'listWebhookEvents',
        tags: ['webhooks'],
        summary: 'List event types',
        description: 'Every event an endpoint can subscribe to: when it is sent, what its data holds, and an example body',
        response: { 200: Type.Ref(WebhookEventTypeListSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async () => ({
      object: 'list' as const,
      data: WEBHOOK_EVENT_CATALOGUE.map((e) => ({ ...e })),
      has_more: false,
      next_cursor: null,
    }),
  );
}
