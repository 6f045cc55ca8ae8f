import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { presentEndpoint } from '../../presenters/webhooks.ts';
import { SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { DEFAULT_OVERLAP_SECONDS, SecretRotationSchema, WebhookEndpointSecretRotatedSchema } from '../../schemas/webhooks.ts';
import { rotateSecret } from '../../services/webhook-endpoint-life.ts';
import { ENDPOINT_WRITE_ERRORS, EndpointParams, actOf, endpointWriteConfig } from './write-route.ts';

export function registerRotateWebhookEndpointSecret(app: App, ctx: AppContext): void {
  app.post(
    '/v1/webhook-endpoints/:endpoint_id/rotate-secret',
    {
      config: endpointWriteConfig,
      // Every field is optional, so a request without a body is a rotation with the defaults (a
      // signed request with an empty body, as `curl -X POST` sends). The signature, checked by an
      // app-level hook before this one, covered the empty body.
      preValidation: async (req) => {
        if (req.body === undefined || req.body === null) req.body = {};
      },
      schema: {
        operationId: 'rotateWebhookEndpointSecret',
        tags: ['webhooks'],
        summary: "Rotate an endpoint's secret",
        description:
          'Replace the signing secret (signed, idempotent, journaled); the new secret is returned once. During the overlap (default 24 h) deliveries carry both signatures, so receivers verify with either',
        headers: SignedOrConsoleHeaders,
        params: EndpointParams,
        body: SecretRotationSchema,
        response: { 200: Type.Ref(WebhookEndpointSecretRotatedSchema), ...errorResponses(...ENDPOINT_WRITE_ERRORS) },
      },
    },
    (req, reply) =>
      // The stored idempotent response holds the new secret sealed (http/idempotent.ts), so a
      // retry gets the same secret back and rotates nothing more.
      runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const act = actOf(req, ctx, tx);
        const { row, secret } = await rotateSecret(act, ctx.keyring, req.body.overlap_seconds ?? DEFAULT_OVERLAP_SECONDS);
        return { status: 200, body: { ...presentEndpoint(row, act.now), secret } };
      }),
  );
}
