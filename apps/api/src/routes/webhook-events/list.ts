import { Type } from '@sinclair/typebox';
import { WEBHOOK_EVENT_CATALOGUE } from '@idv/domain';
import { CONSOLE_SETTINGS_ERRORS, throughConsole } from '../console-settings.ts';
import type { App } from '../../context.ts';
import { errorResponses } from '../../schemas/common.ts';
import { WebhookEventTypeListSchema } from '../../schemas/webhooks.ts';

export function registerListWebhookEvents(app: App): void {
  app.get(
    '/v1/webhook-events',
    {
      config: throughConsole('manageIntegration'),
      schema: {
        operationId: 'listWebhookEvents',
        tags: ['webhooks'],
        summary: 'Every event an endpoint can subscribe to: when it is sent, what its data holds, and an example body',
        response: { 200: Type.Ref(WebhookEventTypeListSchema), ...errorResponses(...CONSOLE_SETTINGS_ERRORS) },
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
