import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { actorOf } from '../../http/operator.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { presentEndpoint } from '../../presenters/webhooks.ts';
import { SIGNED_ERRORS, SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { NewWebhookEndpointSchema, WebhookEndpointCreatedSchema } from '../../schemas/webhooks.ts';
import { checkNewEndpoint, createEndpoint } from '../../services/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerCreateWebhookEndpoint(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhook-endpoints',
    {
      config: { signed: true, operator: { ability: 'manageIntegration', alsoIntegration: true } },
      schema: {
        operationId: 'createWebhookEndpoint',
        tags: ['webhooks'],
        summary: 'Create an endpoint',
        description: 'Declare a destination for events (signed, idempotent, journaled); the signing secret is returned once',
        headers: SignedOrConsoleHeaders,
        body: NewWebhookEndpointSchema,
        response: {
          201: Type.Ref(WebhookEndpointCreatedSchema),
          ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS, ...SIGNED_ERRORS, 'unknown_event_type', 'webhook_url_refused', 'webhook_endpoint_limit_reached'),
        },
      },
    },
    async (req, reply) => {
      const { tenant } = authOf(req);
      const events = await checkNewEndpoint(req.body, tenant, ctx.config.webhooks.allowPrivateNetworks);
      await runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const now = ctx.now();
        const { row, secret } = await createEndpoint(tx, ctx.keyring, tenant, {
          url: req.body.url,
          events,
          description: req.body.description ?? null,
          createdBy: actorOf(req),
          now,
        });
        return { status: 201, body: { ...presentEndpoint(row, now), secret } };
      });
    },
  );
}
