import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { presentEndpoint } from '../../presenters/webhooks.ts';
import { SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { WebhookEndpointChangeSchema, WebhookEndpointSchema } from '../../schemas/webhooks.ts';
import { changeEndpoint } from '../../services/webhook-endpoint-life.ts';
import { checkDestination, checkEvents } from '../../services/webhooks.ts';
import { ENDPOINT_WRITE_ERRORS, EndpointParams, actOf, endpointWriteConfig } from './write-route.ts';

export function registerUpdateWebhookEndpoint(app: App, ctx: AppContext): void {
  app.patch(
    '/v1/webhook-endpoints/:endpoint_id',
    {
      config: endpointWriteConfig,
      schema: {
        operationId: 'updateWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Update an endpoint',
        description:
          'Change the url, the events or the description of an endpoint (signed, idempotent, journaled); deliveries still scheduled go to the new url',
        headers: SignedOrConsoleHeaders,
        params: EndpointParams,
        body: WebhookEndpointChangeSchema,
        response: {
          200: Type.Ref(WebhookEndpointSchema),
          ...errorResponses(...ENDPOINT_WRITE_ERRORS, 'unknown_event_type', 'webhook_url_refused'),
        },
      },
    },
    async (req, reply) => {
      const { url, events, description } = req.body;
      if (url === undefined && events === undefined && description === undefined) {
        throw new ApiError('parameter_missing', 'Send at least one of url, events and description.');
      }
      // Checked before any transaction opens: in production the new host is resolved (DNS).
      const checkedEvents = events === undefined ? undefined : checkEvents(events);
      if (url !== undefined) await checkDestination(url, authOf(req).tenant, ctx.config.webhooks.allowPrivateNetworks);
      await runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const act = actOf(req, ctx, tx);
        const row = await changeEndpoint(act, { url, events: checkedEvents, description });
        return { status: 200, body: presentEndpoint(row, act.now) };
      });
    },
  );
}
