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

const signatures = (i: number) => String(rx.received[i].headers['x-service-signature']).split(',');
/** verifyWebhook as a receiver runs it, at the test clock's time (the delivery's timestamp comes from it). */
const verify = (i: number, secret: string | string[]) =>
  verifyWebhook(rx.received[i].body, rx.received[i].headers, secret, { nowS: t.clock.now().getTime() / 1000 });
const refused = (i: number, secret: string) =>
  assert.throws(() => verify(i, secret), (e: WebhookVerificationError) => e.code === 'signature_invalid');

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
    await rx.waitFor((r) => r.length === 1);
    assert.equal(signatures(0).length, 2, 'the header carries both signatures');
    assert.ok(signatures(0).every((s) => /^v1=[0-9a-f]{64}$/.test(s)));
    assert.equal(verify(0, fresh).eventType, 'case.decided', 'a receiver that already has the new secret');
    assert.equal(verify(0, endpoint.secret).eventType, 'case.decided', 'a receiver still on the previous secret');
    assert.equal(verify(0, [endpoint.secret, fresh]).eventType, 'case.decided', 'a receiver holding both while it rolls');
    refused(0, 'whsec_neither-of-the-two');

    t.clock.advance(3600 * 1000 + 1000);
    await emitCaseDecided(t, who.tenant);
    await rx.waitFor((r) => r.length === 2);
    assert.equal(signatures(1).length, 1, 'after the window only the new secret signs');
    assert.equal(verify(1, fresh).eventType, 'case.decided');
    refused(1, endpoint.secret);
  });

  test('two rotations at once: each secret returned verifies the next delivery, neither is lost', async () => {
    const who = await newTenant(t);
    const endpoint = await createEndpoint(t, who, `${rx.url}/twice`);
    const rotate = () => t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { signed: true, key: who.key, body: {} });
    const [a, b] = await Promise.all([rotate(), rotate()]);
    assert.deepEqual([a.statusCode, b.statusCode], [200, 200], `${a.body} ${b.body}`);
    const before = rx.received.length;
    await emitCaseDecided(t, who.tenant);
    await rx.waitFor((r) => r.length === before + 1);
    assert.equal(verify(before, a.json().secret).eventType, 'case.decided');
    assert.equal(verify(before, b.json().secret).eventType, 'case.decided');
    refused(before, endpoint.secret);
  });

  test('overlap_seconds 0: the previous secret stops signing at once', async () => {
    const who = await newTenant(t);
    const endpoint = await createEndpoint(t, who, `${rx.url}/at-once`);
    const res = await t.request('POST', `/v1/webhook-endpoints/${endpoint.id}/rotate-secret`, { signed: true, key: who.key, body: { overlap_seconds: 0 } });
    const before = rx.received.length;
    await emitCaseDecided(t, who.tenant);
    await rx.waitFor((r) => r.length === before + 1);
    assert.equal(signatures(before).length, 1);
    assert.equal(verify(before, res.json().secret).eventType, 'case.decided');
    refused(before, endpoint.secret);
  });
});
