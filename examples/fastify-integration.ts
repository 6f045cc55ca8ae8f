/**
 * A whole integration in one small Fastify server, as a client's back end would do it:
 *
 *   POST /verifications {customer_id}  opens a case and a journey link for that customer
 *   POST /webhooks                     the service's webhooks, verified on their raw bytes
 *   GET  /verifications/:case_id       what the client knows of the case (from the webhook, then the results)
 *
 *   IDV_BASE_URL=http://localhost:8080 IDV_API_KEY=sk_sandbox_… IDV_SIGNING_SECRET=… \
 *   PUBLIC_URL=http://localhost:4000 PORT=4000 npx tsx examples/fastify-integration.ts
 *
 * At start it declares PUBLIC_URL/webhooks as a webhook endpoint and keeps its secret in memory (a
 * real integration declares it once and keeps the secret with its other secrets). Memory stands in
 * for your database: record the delivery id with a unique constraint in the transaction of the
 * work it triggers, so a delivery sent twice is processed once.
 */
import Fastify from 'fastify';
import { IdvClient, WebhookVerificationError, verifyWebhookRequest } from '@idv/sdk';

const env = (name: string) => {
  const value = process.env[name];
  if (!value) throw new Error(`Set ${name} (see the comment at the top of this file).`);
  return value;
};
const idv = new IdvClient({ baseUrl: env('IDV_BASE_URL'), apiKey: env('IDV_API_KEY'), signingSecret: env('IDV_SIGNING_SECRET') });
const PUBLIC_URL = env('PUBLIC_URL');
const PORT = Number(process.env.PORT ?? 4000);

interface Verification {
  case_id: string;
  customer_id: string;
  status: string;
  outcome?: string;
  reason_code?: string | null;
  /** The checks' verdicts, read from the service once the case is decided. */
  checks?: { type: string; status: string }[];
}
const verifications = new Map<string, Verification>();
const processedDeliveries = new Set<string>();

const endpoint = await idv.createWebhookEndpoint({ url: `${PUBLIC_URL}/webhooks`, events: ['case.decided', 'case.resubmission_requested'] });
const webhookSecret = endpoint.secret;

const app = Fastify({ logger: { level: process.env.LOG_LEVEL ?? 'info' } });

app.post<{ Body: { customer_id?: unknown } }>('/verifications', async (req, reply) => {
  const customerId = typeof req.body?.customer_id === 'string' ? req.body.customer_id.slice(0, 100) : null;
  if (!customerId) return reply.code(422).send({ error: 'customer_id is required' });
  // external_ref ties the case to your customer; it comes back in every webhook.
  const created = await idv.createCase({ flow_name: 'standard', country: 'FR', external_ref: customerId });
  const session = await idv.createSession({ case_id: created.id, locale: 'en' });
  verifications.set(created.id, { case_id: created.id, customer_id: customerId, status: created.status });
  // Hand the link to the person (redirect, e-mail, SMS, or an iframe: see docs/journey.md).
  return reply.code(201).send({ case_id: created.id, journey_url: session.url });
});

// The webhook route reads its body as bytes: the signature covers them exactly as sent.
app.register(async (webhooks) => {
  webhooks.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 256 * 1024 }, (_req, body, done) => done(null, body));
  webhooks.post('/webhooks', async (req, reply) => {
    let verified;
    try {
      // The request itself: its body is the Buffer the parser above kept.
      verified = await verifyWebhookRequest(req, webhookSecret);
    } catch (err) {
      if (err instanceof WebhookVerificationError) return reply.code(400).send({ error: err.code });
      throw err;
    }
    if (processedDeliveries.has(verified.deliveryId)) return reply.send({ duplicate: true });
    processedDeliveries.add(verified.deliveryId);
    const { event } = verified;
    const known = verifications.get(event.object.id);
    if (known && event.type === 'case.decided') {
      // event.data is case.decided's (outcome, reason_code): the SDK's event union narrows on type.
      // The webhook says what was decided; the results say where the case stands and why (no
      // personal data in either).
      const results = await idv.getCaseResults(event.object.id);
      Object.assign(known, { status: results.state, outcome: event.data.outcome, reason_code: event.data.reason_code });
      known.checks = results.checks.map((c) => ({ type: c.type, status: c.status }));
    } else if (known && event.type === 'case.resubmission_requested') {
      known.status = 'resubmission_requested';
    }
    return reply.send({ ok: true });
  });
});

app.get<{ Params: { case_id: string } }>('/verifications/:case_id', async (req, reply) => {
  const known = verifications.get(req.params.case_id);
  return known ?? reply.code(404).send({ error: 'unknown case' });
});

await app.listen({ port: PORT, host: process.env.HOST ?? '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
