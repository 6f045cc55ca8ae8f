import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook, WebhookVerificationError } from '@idv/sdk';
import { WebhookDispatcher } from '@idv/worker';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { createEndpoint, emitCaseDecided, newTenant } from '../helpers/webhooks.ts';

// A secret rotation seen from a real receiver: during the overlap every delivery carries two
// signatures (the new secret's and the previous one's), so a receiver holding either verifies it;
// after the window only the new secret signs. The dispatcher runs on the test clock, which moves
// past the window without waiting for it.
let t: TestApp;
let dispatcher: WebhookDispatcher;
let rx: Receiver;
before(async () => {
  t = await startTestApp({ WEBHOOK_POLL_MS: '50' });
  dispatcher = new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen, now: t.clock.now });
  await dispatcher.start();
  rx = await startReceiver();
});
after(async () => {
  await dispatcher.stop();
  await rx.close();
  await t.close();
});

type Received = Receiver['received'][number];
/**
 * The distinct deliveries an endpoint's path received, in order: a delivery may arrive more than
 * once (receivers deduplicate on X-Service-Delivery), so a test reads each delivery once.
 */
const deliveriesTo = (path: string): Received[] => {
  const seen = new Set<string>();
  return rx.received.filter((r) => {
    const id = String(r.headers['x-service-delivery']);
    if (r.path !== path || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
};
const waitForDeliveries = (path: string, n: number) => rx.waitFor(() => deliveriesTo(path).length >= n);
const signatures = (r: Received) => String(r.headers['x-service-signature']).split(',');
/** verifyWebhook as a receiver runs it, at the test clock's time (the delivery's timestamp comes from it). */
const verify = (r: Received, secret: string | string[]) => verifyWebhook(r.body, r.headers, secret, { nowS: t.clock.now().getTime() / 1000 });
const refused = (r: Received, secret: string) =>
  assert.throws(() => verify(r, secret), (e: WebhookVerificationError) => e.code === 'signature_invalid');

describe('secret rotation', () => {
  test('both secrets sign during the overlap; only the new one after it', async () => {
    const who = await newTenant(t);
    const endpoint = await createEndpoint(t, who, `${rx.url}/hooks`);
    const res = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, {
      signed: true,
      key: who.key,
      body: { overlap_seconds: 3600 },
    });
    assert.equal(res.statusCode, 200, res.body);
    const fresh = res.json().secret as string;

    await emitCaseDecided(t, who.tenant);
    await waitForDeliveries('/hooks', 1);
    const [during] = deliveriesTo('/hooks');
    assert.equal(signatures(during).length, 2, 'the header carries both signatures');
    assert.ok(signatures(during).every((s) => /^v1=[0-9a-f]{64}$/.test(s)));
    assert.equal(verify(during, fresh).eventType, 'case.decided', 'a receiver that already has the new secret');
    assert.equal(verify(during, endpoint.secret).eventType, 'case.decided', 'a receiver still on the previous secret');
    assert.equal(verify(during, [endpoint.secret, fresh]).eventType, 'case.decided', 'a receiver holding both while it rolls');
    refused(during, 'whsec_neither-of-the-two');

    t.clock.advance(3600 * 1000 + 1000);
    await emitCaseDecided(t, who.tenant);
    await waitForDeliveries('/hooks', 2);
    const after = deliveriesTo('/hooks')[1];
    assert.equal(signatures(after).length, 1, 'after the window only the new secret signs');
    assert.equal(verify(after, fresh).eventType, 'case.decided');
    refused(after, endpoint.secret);
  });

  test('two rotations at once: each secret returned verifies the next delivery, neither is lost', async () => {
    const who = await newTenant(t);
    const endpoint = await createEndpoint(t, who, `${rx.url}/twice`);
    const rotate = () => t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { signed: true, key: who.key, body: {} });
    const [a, b] = await Promise.all([rotate(), rotate()]);
    assert.deepEqual([a.statusCode, b.statusCode], [200, 200], `${a.body} ${b.body}`);
    await emitCaseDecided(t, who.tenant);
    await waitForDeliveries('/twice', 1);
    const [delivery] = deliveriesTo('/twice');
    assert.equal(verify(delivery, a.json().secret).eventType, 'case.decided');
    assert.equal(verify(delivery, b.json().secret).eventType, 'case.decided');
    refused(delivery, endpoint.secret);
  });

  test('overlap_seconds 0: the previous secret stops signing at once', async () => {
    const who = await newTenant(t);
    const endpoint = await createEndpoint(t, who, `${rx.url}/at-once`);
    const res = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { signed: true, key: who.key, body: { overlap_seconds: 0 } });
    await emitCaseDecided(t, who.tenant);
    await waitForDeliveries('/at-once', 1);
    const [delivery] = deliveriesTo('/at-once');
    assert.equal(signatures(delivery).length, 1);
    assert.equal(verify(delivery, res.json().secret).eventType, 'case.decided');
    refused(delivery, endpoint.secret);
  });
});
