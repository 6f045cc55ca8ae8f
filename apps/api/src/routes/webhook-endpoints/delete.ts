import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { WebhookEndpointDeletedSchema } from '../../schemas/webhooks.ts';
import { deleteEndpoint } from '../../services/webhook-endpoint-life.ts';
import { ENDPOINT_WRITE_ERRORS, EndpointParams, actOf, endpointWriteConfig } from './write-route.ts';

export function registerDeleteWebhookEndpoint(app: App, ctx: AppContext): void {
  app.delete(
    '/v1/webhook-endpoints/:endpoint_id',
    {
      config: endpointWriteConfig,
      schema: {
        operationId: 'deleteWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Delete an endpoint',
        description:
          'Delete an endpoint (signed, idempotent, journaled): its scheduled deliveries are cancelled, its secrets erased; its deliveries stay in the log for their 30 days',
        headers: SignedOrConsoleHeaders,
        params: EndpointParams,
        response: { 200: Type.Ref(WebhookEndpointDeletedSchema), ...errorResponses(...ENDPOINT_WRITE_ERRORS) },
      },
    },
    (req, reply) =>
      // A 200 with a body rather than a 204: the idempotent replay returns the same answer, and
      // the count of cancelled deliveries says what the deletion stopped.
      runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const act = actOf(req, ctx, tx);
        const { cancelled } = await deleteEndpoint(act);
        return { status: 200, body: { id: act.endpointId, object: 'webhook_endpoint' as const, deleted: true as const, cancelled_deliveries: cancelled } };
      }),
  );
}
