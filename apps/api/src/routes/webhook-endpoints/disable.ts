import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { presentEndpoint } from '../../presenters/webhooks.ts';
import { SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { WebhookEndpointSchema } from '../../schemas/webhooks.ts';
import { disableEndpoint, enableEndpoint } from '../../services/webhook-endpoint-life.ts';
import { ENDPOINT_WRITE_ERRORS, EndpointParams, actOf, endpointWriteConfig } from './write-route.ts';

const routes = [
  {
    path: '/v1/webhook-endpoints/:endpoint_id/disable',
    operationId: 'disableWebhookEndpoint',
    summary: 'Disable an endpoint',
    description:
      'Stop sending to an endpoint (signed, idempotent, journaled): events raised while it is disabled make no delivery for it; deliveries already scheduled wait for enable',
    act: disableEndpoint,
  },
  {
    path: '/v1/webhook-endpoints/:endpoint_id/enable',
    operationId: 'enableWebhookEndpoint',
    summary: 'Enable an endpoint',
    description:
      'Make a disabled (or suspended) endpoint active again (signed, idempotent, journaled): deliveries that waited are sent at once. Enabling an active endpoint changes nothing',
    act: enableEndpoint,
  },
] as const;

export function registerDisableEnableWebhookEndpoint(app: App, ctx: AppContext): void {
  for (const route of routes) {
    app.post(
      route.path,
      {
        config: endpointWriteConfig,
        schema: {
          operationId: route.operationId,
          tags: ['webhooks'],
          summary: route.summary,
          description: route.description,
          headers: SignedOrConsoleHeaders,
          params: EndpointParams,
          response: { 200: Type.Ref(WebhookEndpointSchema), ...errorResponses(...ENDPOINT_WRITE_ERRORS) },
        },
      },
      (req, reply) =>
        runIdempotent(ctx.idempotency, req, reply, async (tx) => {
          const act = actOf(req, ctx, tx);
          return { status: 200, body: presentEndpoint(await route.act(act), act.now) };
        }),
    );
  }
}
