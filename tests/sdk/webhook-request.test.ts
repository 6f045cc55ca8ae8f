import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import { WebhookVerificationError, signWebhook, verifyWebhookRequest } from '@idv/sdk';

/**
 * verifyWebhookRequest in the routes of real servers over real HTTP: Fastify keeping the raw
 * bytes (parseAs: 'buffer'), Fastify's default JSON parser (the mistake it must refuse), and a
 * plain node:http server whose request stream is still unread.
 */
const SECRET = 'whsec_test_secret';
let fastify: FastifyInstance;
let fastifyBase: string;
let plain: Server;
let plainBase: string;

/** What the route answers: the verified delivery, or the refusal's class and code. */
async function outcome(run: () => Promise<{ deliveryId: string; event: { type: string } }>): Promise<Record<string, unknown>> {
  try {
    const v = await run();
    return { deliveryId: v.deliveryId, type: v.event.type };
  } catch (err) {
    return { refused: (err as Error).name, code: err instanceof WebhookVerificationError ? err.code : undefined, message: (err as Error).message };
  }
}

before(async () => {
  fastify = Fastify();
  fastify.register(async (raw) => {
    raw.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_req, body, done) => done(null, body));
    raw.post('/raw', (req) => outcome(() => verifyWebhookRequest(req, SECRET)));
  });
  fastify.post('/parsed', (req) => outcome(() => verifyWebhookRequest(req, SECRET)));
  fastifyBase = await fastify.listen({ port: 0, host: '127.0.0.1' });
  plain = createServer(async (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(await outcome(() => verifyWebhookRequest(req, [SECRET, 'whsec_next']))));
  });
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  plainBase = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
});
after(async () => {
  await fastify?.close();
  if (plain) await new Promise((r) => plain.close(r));
});

/** A delivery as the service sends it (same signing code), with the body bytes exactly as given. */
function deliver(url: string, opts: { body?: string; secret?: string; timestamp?: number; tamper?: (body: string) => string } = {}) {
  // Spaces and key order a parser would not give back: the signature covers these exact bytes.
  const body = opts.body ?? '{ "id": "evt_1",  "type": "webhook.test", "data": {"note": "é"} }';
  const timestamp = opts.timestamp ?? Math.floor(Date.now() / 1000);
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'webhook.test',
      'x-service-delivery': 'dlv_1',
      'x-service-timestamp': String(timestamp),
      'x-service-signature': signWebhook(opts.secret ?? SECRET, timestamp, body),
    },
    body: opts.tamper ? opts.tamper(body) : body,
  }).then((r) => r.json() as Promise<Record<string, unknown>>);
}

describe('verifyWebhookRequest', () => {
  test('Fastify with the raw bytes kept: a genuine delivery verifies; a wrong secret or an old timestamp is refused', async () => {
    assert.deepEqual(await deliver(`${fastifyBase}/raw`), { deliveryId: 'dlv_1', type: 'webhook.test' });
    assert.equal((await deliver(`${fastifyBase}/raw`, { secret: 'whsec_other' })).code, 'signature_invalid');
    assert.equal((await deliver(`${fastifyBase}/raw`, { timestamp: Math.floor(Date.now() / 1000) - 301 })).code, 'timestamp_out_of_tolerance');
  });

  test('a body the framework already parsed is refused with how to keep the raw bytes', async () => {
    const refused = await deliver(`${fastifyBase}/parsed`);
    assert.equal(refused.refused, 'TypeError');
    assert.match(String(refused.message), /parseAs: 'buffer'/);
    assert.match(String(refused.message), /express\.raw/);
  });

  test('node:http: the unread request stream is read and verified (several secrets while rolling one)', async () => {
    assert.deepEqual(await deliver(plainBase), { deliveryId: 'dlv_1', type: 'webhook.test' });
    assert.deepEqual(await deliver(plainBase, { secret: 'whsec_next' }), { deliveryId: 'dlv_1', type: 'webhook.test' });
    // The same JSON value with one space less: another byte string, so another signature.
    const tampered = await deliver(plainBase, { tamper: (body) => body.replace('  ', ' ') });
    assert.equal(tampered.code, 'signature_invalid');
  });
});
