/**
 * An example webhook receiver for integrators: verifies every delivery with the SDK helper,
 * answers within the five seconds the service waits, and processes each delivery once even though
 * the service may send it more than once (at-least-once delivery: after a timeout, a crash or a
 * lost answer it sends the same X-Service-Delivery again).
 *
 *   WEBHOOK_SECRET=whsec_… PORT=4000 npx tsx examples/webhook-receiver.ts
 *
 * then declare http://localhost:4000/webhooks as an endpoint (sandbox), or your https address.
 * While you rotate the endpoint's secret, give both, comma-separated (WEBHOOK_SECRET=whsec_new,whsec_old):
 * a delivery signed by either is accepted, and once the overlap ends keep the new one only.
 *
 * The deduplication here is kept in memory to stay short. In production record the delivery id in
 * your database with a unique constraint, in the same transaction as the work it triggers, so a
 * duplicate is refused by the database even across restarts and several receiver instances.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { verifyWebhook, WebhookVerificationError, type WebhookEventBody } from '@idv/sdk';

/** One secret, or several while one is rotated (a delivery then carries both signatures). */
const SECRETS = (process.env.WEBHOOK_SECRET ?? '').split(',').map((s) => s.trim()).filter(Boolean);
const PORT = Number(process.env.PORT ?? 4000);
/** A delivery is a few kilobytes; anything much larger is not from the service. */
const MAX_BODY_BYTES = 256 * 1024;
/** Retries of one delivery span about 33 hours (10 s … 24 h); keep ids a little longer than that. */
const REMEMBER_MS = 3 * 24 * 3_600_000;
const MAX_REMEMBERED = 100_000;

if (SECRETS.length === 0) {
  console.error('Set WEBHOOK_SECRET to the secret returned when the endpoint was created or its secret rotated (whsec_…).');
  process.exit(1);
}

/** Delivery ids already processed, oldest first (a Map keeps insertion order). */
const processed = new Map<string, number>();

function alreadyProcessed(deliveryId: string, now: number): boolean {
  for (const [id, at] of processed) {
    if (now - at < REMEMBER_MS && processed.size <= MAX_REMEMBERED) break;
    processed.delete(id);
  }
  return processed.has(deliveryId);
}

/** Your business logic. Runs after the answer, so slow work never makes the service time out. */
async function handle(event: WebhookEventBody, deliveryId: string): Promise<void> {
  switch (event.type) {
    case 'case.decided':
      // Narrowed by its type: event.data is case.decided's, outcome and reason_code typed.
      console.log(`processed ${deliveryId}: case ${event.object.id} (${event.object.external_ref ?? 'no ref'}) ${event.data.outcome}`);
      break;
    case 'webhook.test':
      console.log(`processed ${deliveryId}: test from endpoint ${event.object.id}`);
      break;
    default:
      // Subscribe only to what you handle; acknowledge the rest so it is not retried.
      console.log(`processed ${deliveryId}: ${event.type} for ${event.object.id}`);
  }
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        resolve(null);
        req.destroy();
      } else chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function answer(res: ServerResponse, status: number, text: string): void {
  res.writeHead(status, { 'content-type': 'text/plain' });
  res.end(text);
}

const server = createServer(async (req, res) => {
  if (req.method !== 'POST' || req.url !== '/webhooks') return answer(res, 404, 'not found');
  const raw = await readBody(req);
  if (!raw) return answer(res, 413, 'too large');
  let verified;
  try {
    // The raw bytes, exactly as received: parse the JSON only after the signature checks out.
    verified = verifyWebhook(raw, req.headers, SECRETS);
  } catch (err) {
    if (err instanceof WebhookVerificationError) return answer(res, 400, err.code);
    throw err;
  }
  const now = Date.now();
  if (alreadyProcessed(verified.deliveryId, now)) {
    console.log(`duplicate ${verified.deliveryId}: acknowledged, not processed again`);
    return answer(res, 200, 'duplicate');
  }
  processed.set(verified.deliveryId, now);
  answer(res, 200, 'ok');
  handle(verified.event, verified.deliveryId).catch((err) => {
    // Processing failed after the answer: forget the id, and replay the delivery from the API
    // (POST /v1/webhook-deliveries/{id}/replay) once fixed, or keep your own retry queue.
    processed.delete(verified.deliveryId);
    console.error(`failed ${verified.deliveryId}: ${err instanceof Error ? err.message : err}`);
  });
});

server.listen(PORT, () => console.log(`listening on http://localhost:${PORT}/webhooks`));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
