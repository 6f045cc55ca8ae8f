import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { signWebhook } from '@idv/sdk';
import { WebhookDispatcher } from '@idv/worker';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { freePort, runNode, stop, type Proc } from '../helpers/processes.ts';
import { createEndpoint, emitCaseDecided, newTenant, waitForDelivery } from '../helpers/webhooks.ts';

/** The example receiver of examples/ as an integrator runs it, fed by the real dispatcher. */
let t: TestApp;
let dispatcher: WebhookDispatcher;
let example: Proc | null = null;

before(async () => {
  t = await startTestApp({ WEBHOOK_POLL_MS: '50' });
  dispatcher = new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen });
  await dispatcher.start();
});
after(async () => {
  await stop(example);
  await dispatcher.stop();
  await t.close();
});

async function until(what: string, predicate: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('examples/webhook-receiver.ts', () => {
  test('verifies deliveries, processes each delivery id once and acknowledges duplicates', async () => {
    const who = await newTenant(t);
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/webhooks`;
    const endpoint = await createEndpoint(t, who, url);
    // Two secrets, as while one is rotated: the endpoint's, and the one it would be replacing.
    const previous = 'whsec_previous-secret-of-this-endpoint';
    example = runNode('examples/webhook-receiver.ts', [], { WEBHOOK_SECRET: `${endpoint.secret}, ${previous}`, PORT: String(port) });
    await until('the example to listen', () => example!.stdout().includes('listening'));

    const { deliveryIds } = await emitCaseDecided(t, who.tenant, { outcome: 'approved' });
    const id = deliveryIds[0];
    await until('the delivery to be processed', () => example!.stdout().includes(`processed ${id}`));
    const logged = await waitForDelivery(t, who, id, (d) => d.status === 'succeeded');

    // The same delivery again, as after a lost answer: acknowledged, not processed twice.
    const post = (body: string, headers: Record<string, string>) =>
      fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
    const ts = Math.floor(Date.now() / 1000);
    const signed = (body: string, at = ts) => ({
      'x-service-event': 'case.decided',
      'x-service-delivery': id,
      'x-service-timestamp': String(at),
      'x-service-signature': signWebhook(endpoint.secret, at, body),
    });
    const again = await post(logged.body, signed(logged.body));
    assert.equal(again.status, 200);
    assert.equal(await again.text(), 'duplicate');
    await until('the duplicate to be logged', () => example!.stdout().includes(`duplicate ${id}`));
    assert.equal(example.stdout().split(`processed ${id}`).length - 1, 1, 'processed exactly once');

    // Forged or stale deliveries are refused.
    const forged = await post(logged.body.replace('approved', 'rejected'), signed(logged.body));
    assert.deepEqual([forged.status, await forged.text()], [400, 'signature_invalid']);
    const stale = await post(logged.body, signed(logged.body, ts - 301));
    assert.deepEqual([stale.status, await stale.text()], [400, 'timestamp_out_of_tolerance']);
    // Signed with the other secret it holds: accepted as well.
    const byPrevious = await post(logged.body, { ...signed(logged.body), 'x-service-delivery': 'dlv_signed_by_previous', 'x-service-signature': signWebhook(previous, ts, logged.body) });
    assert.deepEqual([byPrevious.status, await byPrevious.text()], [200, 'ok']);
    const byNeither = await post(logged.body, { ...signed(logged.body), 'x-service-delivery': 'dlv_signed_by_neither', 'x-service-signature': signWebhook('whsec_neither', ts, logged.body) });
    assert.deepEqual([byNeither.status, await byNeither.text()], [400, 'signature_invalid']);
  });
});
