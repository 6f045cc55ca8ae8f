import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertWebhookEndpoint } from '@idv/db';
import { newId } from '@idv/domain';
import { verifyWebhook, WebhookVerificationError } from '@idv/sdk';
import { WebhookDispatcher } from '@idv/worker';
import { errorOf, startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { createEndpoint, emitCaseDecided, newTenant, waitForDelivery, type TestTenant } from '../helpers/webhooks.ts';

// The spec's schedule (10 s … 24 h) shrunk through configuration, as an operator could.
const DELAYS = [100, 150, 200, 250, 300, 350, 400];
const TIMEOUT_MS = 400;

let t: TestApp;
let dispatcher: WebhookDispatcher;
const receivers: Receiver[] = [];

before(async () => {
  t = await startTestApp({
    WEBHOOK_RETRY_DELAYS_MS: DELAYS.join(','),
    WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_LEASE_MS: '2000',
  });
  // A real dispatcher on the same database, as `npm start` runs it.
  dispatcher = new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen });
  await dispatcher.start();
});
after(async () => {
  await dispatcher.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await t.close();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<Receiver> {
  const r = await startReceiver(...args);
  receivers.push(r);
  return r;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Reads as the given tenant's key. */
const get = (who: TestTenant, url: string) => t.request('GET', url, { key: who.key });
const post = (who: TestTenant, url: string) => t.request('POST', url, { key: who.key });

describe('webhook delivery', () => {
  test('sends a signed event the SDK helper verifies; the log keeps the exact body received', async () => {
    const who = await newTenant(t);
    const rx = await receiver();
    const endpoint = await createEndpoint(t, who, `${rx.url}/hooks`);
    const emitted = await emitCaseDecided(t, who.tenant, { outcome: 'rejected' });
    await rx.waitFor((r) => r.length === 1);
    const [req] = rx.received;

    assert.equal(req.method, 'POST');
    assert.equal(req.path, '/hooks');
    assert.equal(req.headers['content-type'], 'application/json');
    assert.equal(req.headers['x-service-event'], 'case.decided');
    assert.equal(req.headers['x-service-delivery'], emitted.deliveryIds[0]);
    assert.match(String(req.headers['x-service-signature']), /^v1=[0-9a-f]{64}$/);

    const verified = verifyWebhook(req.body, req.headers, endpoint.secret);
    assert.equal(verified.deliveryId, emitted.deliveryIds[0]);
    assert.deepEqual(Object.keys(verified.event), ['data', 'object', 'occurred_at', 'type']);
    assert.deepEqual(verified.event.data, { outcome: 'rejected', reason_code: null });
    assert.deepEqual(verified.event.object, {
      environment: 'sandbox',
      external_ref: 'ref-42',
      flow_name: 'standard',
      id: 'case_01m7ym09t80f4fggxqxy1yr50c',
      type: 'case',
    });
    assert.throws(() => verifyWebhook(req.body, req.headers, 'whsec_not-the-secret'), (e: WebhookVerificationError) => e.code === 'signature_invalid');

    const logged = await waitForDelivery(t, who, emitted.deliveryIds[0], (d) => d.status === 'succeeded');
    assert.equal(logged.body, req.body.toString('utf8'), 'the log holds the bytes the destination received');
    assert.equal(logged.attempt_count, 1);
    assert.equal(logged.attempts[0].response_status, 200);
    assert.equal(logged.attempts[0].error, null);
    assert.ok(logged.delivered_at);
  });

  test('POST …/test sends webhook.test to that endpoint only, whatever it subscribes to', async () => {
    const who = await newTenant(t);
    const rxA = await receiver();
    const rxB = await receiver();
    const a = await createEndpoint(t, who, rxA.url, ['case.decided']);
    await createEndpoint(t, who, rxB.url, ['case.decided']);
    const res = await post(who, `/v1/webhook-endpoints/${a.id}/test`);
    assert.equal(res.statusCode, 202);
    const delivery = res.json();
    assert.equal(delivery.event_type, 'webhook.test');
    assert.equal(delivery.endpoint_id, a.id);
    await rxA.waitFor((r) => r.length === 1);
    const { event } = verifyWebhook(rxA.received[0].body, rxA.received[0].headers, a.secret);
    assert.equal(event.type, 'webhook.test');
    assert.deepEqual(event.object, { environment: 'sandbox', external_ref: null, flow_name: null, id: a.id, type: 'webhook_endpoint' });
    await sleep(200);
    assert.equal(rxB.received.length, 0);
  });

  test('a receiver failing three times sees the retries in order, after the configured delays', async () => {
    const who = await newTenant(t);
    const rx = await receiver((_req, i) => ({ status: i < 3 ? 500 : 204 }));
    const endpoint = await createEndpoint(t, who, rx.url);
    const { deliveryIds } = await emitCaseDecided(t, who.tenant);
    await rx.waitFor((r) => r.length === 4, 10_000, 'four attempts');
    const ids = rx.received.map((r) => r.headers['x-service-delivery']);
    assert.deepEqual(ids, Array(4).fill(deliveryIds[0]), 'every attempt is the same delivery');
    for (let i = 1; i < 4; i++) {
      const gap = rx.received[i].at - rx.received[i - 1].at;
      assert.ok(gap >= DELAYS[i - 1], `retry ${i} came ${gap} ms after the previous attempt, before its ${DELAYS[i - 1]} ms delay`);
      verifyWebhook(rx.received[i].body, rx.received[i].headers, endpoint.secret);
    }
    const logged = await waitForDelivery(t, who, deliveryIds[0], (d) => d.status === 'succeeded');
    assert.deepEqual(
      logged.attempts.map((a: { attempt: number; response_status: number; error: string | null }) => [a.attempt, a.response_status, a.error]),
      [
        [1, 500, 'http_status'],
        [2, 500, 'http_status'],
        [3, 500, 'http_status'],
        [4, 204, null],
      ],
    );
  });

  test('the eighth failure suspends the endpoint; events raised meanwhile wait and go after resume; replay sends the failed one again', async () => {
    const who = await newTenant(t);
    const rx = await receiver(() => ({ status: 503 }));
    const endpoint = await createEndpoint(t, who, rx.url);
    const first = await emitCaseDecided(t, who.tenant);
    const failedId = first.deliveryIds[0];
    await rx.waitFor((r) => r.length === 8, 15_000, 'eight attempts');
    const failed = await waitForDelivery(t, who, failedId, (d) => d.status === 'failed');
    assert.equal(failed.attempt_count, 8);
    assert.equal(failed.next_attempt_at, null);
    const listed = (await get(who, '/v1/webhook-endpoints')).json().data.find((e: { id: string }) => e.id === endpoint.id);
    assert.equal(listed.status, 'suspended');
    assert.ok(listed.suspended_at);

    // Raised while suspended: kept, not attempted.
    const waiting = await emitCaseDecided(t, who.tenant, { outcome: 'approved' });
    await sleep(400);
    assert.equal(rx.received.length, 8, 'no attempt reaches a suspended endpoint');
    assert.equal((await get(who, `/v1/webhook-deliveries/${waiting.deliveryIds[0]}`)).json().attempt_count, 0);
    const test = await post(who, `/v1/webhook-endpoints/${endpoint.id}/test`);
    assert.equal(test.statusCode, 409);
    assert.equal(errorOf(test).code, 'webhook_endpoint_suspended');
    const early = await post(who, `/v1/webhook-deliveries/${failedId}/replay`);
    assert.equal(errorOf(early).code, 'webhook_endpoint_suspended');

    rx.behave(() => ({ status: 200 }));
    const resumed = await post(who, `/v1/webhook-endpoints/${endpoint.id}/resume`);
    assert.equal(resumed.statusCode, 202);
    assert.equal(resumed.json().status, 'active');
    assert.equal(resumed.json().suspended_at, null);
    await rx.waitFor((r) => r.length === 9, 5_000, 'the waiting delivery');
    assert.equal(rx.received[8].headers['x-service-delivery'], waiting.deliveryIds[0]);
    await waitForDelivery(t, who, waiting.deliveryIds[0], (d) => d.status === 'succeeded');

    // Replay: a new delivery of the same event; the failed one keeps its true history.
    const replay = await post(who, `/v1/webhook-endpoints/${endpoint.id}/replay?delivery_id=${failedId}`);
    assert.equal(replay.statusCode, 202);
    const replayed = replay.json();
    assert.notEqual(replayed.id, failedId);
    assert.equal(replayed.replay_of, failedId);
    assert.equal(replayed.event_id, failed.event_id);
    await rx.waitFor((r) => r.length === 10, 5_000, 'the replay');
    assert.equal(rx.received[9].headers['x-service-delivery'], replayed.id);
    assert.equal(rx.received[9].body.toString('utf8'), failed.body, 'a replay sends the same event body');
    verifyWebhook(rx.received[9].body, rx.received[9].headers, endpoint.secret);
    await waitForDelivery(t, who, replayed.id, (d) => d.status === 'succeeded');
    const original = (await get(who, `/v1/webhook-deliveries/${failedId}`)).json();
    assert.equal(original.status, 'failed');
    assert.equal(original.attempts.length, 8);

    // From the global log too, and again once succeeded.
    const again = await post(who, `/v1/webhook-deliveries/${replayed.id}/replay`);
    assert.equal(again.statusCode, 202);
    assert.equal(again.json().replay_of, replayed.id);
    await rx.waitFor((r) => r.length === 11, 5_000, 'the second replay');
  });

  test('a redirect is not followed and counts as a failure', async () => {
    const rx = await receiver((req) =>
      req.path === '/moved' ? { status: 200 } : { status: 302, headers: { location: `http://127.0.0.1:${rx.port}/moved` } },
    );
    const who = await newTenant(t);
    await createEndpoint(t, who, `${rx.url}/old`);
    const { deliveryIds } = await emitCaseDecided(t, who.tenant);
    const logged = await waitForDelivery(t, who, deliveryIds[0], (d) => d.attempt_count >= 1);
    assert.equal(logged.status, 'retrying');
    assert.equal(logged.last_response_status, 302);
    assert.equal(logged.last_error, 'redirect');
    assert.ok(logged.next_attempt_at);
    assert.equal(rx.received.filter((r) => r.path === '/moved').length, 0, 'the redirect target is never called');
  });

  test('an answer slower than the timeout counts as a failure, and the retry then succeeds', async () => {
    const rx = await receiver((_req, i) => ({ status: 200, delayMs: i === 0 ? TIMEOUT_MS + 600 : 0 }));
    const who = await newTenant(t);
    await createEndpoint(t, who, rx.url);
    const { deliveryIds } = await emitCaseDecided(t, who.tenant);
    const logged = await waitForDelivery(t, who, deliveryIds[0], (d) => d.status === 'succeeded');
    assert.equal(logged.attempts.length, 2);
    assert.equal(logged.attempts[0].error, 'timeout');
    assert.equal(logged.attempts[0].response_status, null);
    assert.ok(logged.attempts[0].duration_ms >= TIMEOUT_MS - 5, `gave up after ${logged.attempts[0].duration_ms} ms`);
    assert.ok(logged.attempts[0].duration_ms < TIMEOUT_MS + 500);
    assert.equal(logged.attempts[1].error, null);
  });

  test('in production a destination on a private address is refused at send time, without connecting', async () => {
    const rx = await receiver();
    const { tenant } = await newTenant(t, 'prod');
    // Endpoints accepted while their names resolved publicly, now pointing at this machine
    // (DNS rebinding): rows written directly, since creation would refuse them today.
    for (const url of [`https://localhost:${rx.port}/`, `https://127.0.0.1:${rx.port}/`, `https://[::ffff:127.0.0.1]:${rx.port}/`]) {
      const id = newId('whe');
      await insertWebhookEndpoint(t.database.db, {
        id,
        ...tenant,
        url,
        events: ['case.decided'],
        secretSealed: t.ctx.keyring.seal('whsec_test', `webhook_endpoint:${id}:secret`),
        status: 'active',
        createdBy: 'test',
        createdAt: t.clock.now(),
        updatedAt: t.clock.now(),
      });
    }
    const { deliveryIds } = await emitCaseDecided(t, tenant);
    assert.equal(deliveryIds.length, 3);
    const firstAttempt = async (id: string) => {
      const deadline = Date.now() + 5000;
      for (;;) {
        const [row] = await t.database.db.query.webhookDeliveries.findMany({ where: (d, { eq }) => eq(d.id, id) });
        if (row.attemptCount >= 1) return row;
        if (Date.now() > deadline) throw new Error('no attempt recorded');
        await sleep(20);
      }
    };
    for (const id of deliveryIds) {
      const row = await firstAttempt(id);
      assert.equal(row.lastError, 'destination_refused', `delivery to ${id}`);
      assert.equal(row.status, 'retrying');
    }
    assert.equal(rx.received.length, 0);
  });
});
