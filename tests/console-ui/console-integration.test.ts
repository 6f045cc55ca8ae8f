import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import type { Page } from 'playwright-core';
import { schema } from '@idv/db';
import { verifyWebhook } from '@idv/sdk';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { apiFromPage, ARTIFACTS, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * The client's integration settings in the console, in Chromium through the development provider's
 * sign-in: an administrator creates an API key (its secrets shown once, gone after leaving the
 * screen and after a reload; the key works, then is revoked), declares a webhook endpoint on a
 * real local receiver, sends a test, reads it in the log with its body, replays it, resumes a
 * suspended endpoint, and edits the embedding origins (an invalid one refused with the service's
 * own message). A supervisor sees none of it and the service refuses the calls. Each screen is
 * audited with axe and captured (phone and desktop) into artifacts/console/.
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;

let h: ConsoleHarness;
let rx: Receiver;
let ada: Account;
let sam: Account;
const { audits, capture } = screenAudits();
const openAs = (who: { login: string; password: string }, path: string, viewport: 'phone' | 'desktop' = 'desktop', locale?: string) => h.openAs(who, path, { viewport, locale });

/** One phone for the administrator, signed in once, for every phone capture. */
let phonePage: Page | undefined;
async function adminPhone(path: string): Promise<Page> {
  if (!phonePage) phonePage = await openAs(ada, path, 'phone');
  else await phonePage.goto(`${h.consoleUrl}${path}`);
  return phonePage;
}

const keyOf = (secret: string) => ({ id: 'unused', secret, signingSecret: 'unused' });

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startConsoleHarness({ realTime: true, webhooks: true });
  rx = await startReceiver();
  ada = await h.operator('administrator', 'Ada Administrator');
  sam = await h.operator('supervisor', 'Sam Supervisor');
});

after(async () => {
  await rx?.close();
  await h?.close();
});

describe('the integration settings in the console', () => {
  let page: Page;
  /** The secret the console showed when the endpoint on the receiver was created. */
  let endpointSecret = '';

  test('API keys: created with its secrets shown once (not after leaving, not after a reload); the key works; revoked', async () => {
    page = await openAs(ada, '/settings/api-keys');
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.locator('tbody tr').first().waitFor();
    await capture(page, 'api-keys', 'desktop');

    await page.getByLabel('Name').fill('Back office');
    await page.getByRole('checkbox', { name: /^personal_data/ }).check();
    await page.getByRole('checkbox', { name: /^decisions/ }).check();
    await page.getByRole('button', { name: 'Create the key' }).click();
    await page.getByText(/Copy its secrets now/).waitFor();
    const secret = await page.getByLabel('Secret (Authorization: Bearer …)').inputValue();
    const signing = await page.getByLabel('Signing secret (X-Service-Signature)').inputValue();
    assert.match(secret, /^sk_sandbox_/);
    assert.ok(signing.length >= 40);
    await page.locator('tbody tr', { hasText: 'Back office' }).getByText('personal_data').waitFor();
    await capture(page, 'api-key-created', 'desktop');

    // The key works against the service, with the permissions granted.
    const used = await h.t.request('GET', '/v1/api-keys', { key: keyOf(secret) });
    assert.equal(used.statusCode, 200, used.body);
    const listed = used.json().data.find((k: { name: string }) => k.name === 'Back office');
    assert.deepEqual(listed.permissions, ['decisions', 'personal_data']);
    assert.equal(listed.kind, 'integration');

    // Away and back: the secrets are gone. After a reload too.
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 1, name: 'Webhooks' }).waitFor();
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    await page.locator('tbody tr', { hasText: 'Back office' }).waitFor();
    assert.equal(await page.getByLabel('Secret (Authorization: Bearer …)').count(), 0);
    assert.ok(!(await page.content()).includes(secret), 'the secret is nowhere in the page');
    await page.reload();
    await page.locator('tbody tr', { hasText: 'Back office' }).waitFor();
    assert.ok(!(await page.content()).includes(secret), 'nor after a reload');
    assert.ok(!(await page.content()).includes(signing));

    // The console's own credential cannot be revoked here; the new key can.
    assert.equal(await page.locator('tbody tr', { hasText: 'Console' }).getByRole('button').count(), 0);
    await page.getByRole('button', { name: 'Revoke Back office' }).click();
    const dialog = page.getByRole('dialog', { name: /Revoke the key Back office/ });
    await dialog.waitFor();
    await capture(page, 'api-key-revoke', 'desktop');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('Key Back office revoked.').waitFor();
    await page.locator('tbody tr', { hasText: 'Back office' }).getByText(/^Revoked/).waitFor();
    const refused = await h.t.request('GET', '/v1/api-keys', { key: keyOf(secret) });
    assert.equal(refused.statusCode, 401);
    assert.equal(refused.json().error.code, 'api_key_revoked');

    const phone = await adminPhone('/settings/api-keys');
    await phone.locator('tbody tr', { hasText: 'Back office' }).waitFor();
    await capture(phone, 'api-keys', 'phone');
  });

  test('webhooks: an endpoint on a real receiver, a test sent, seen in the log with its body, replayed; a suspended endpoint resumed', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Address (https)').fill(rx.url);
    await page.getByRole('checkbox', { name: /^case\.decided/ }).check();
    await page.getByRole('checkbox', { name: /^webhook\.test/ }).check();
    await page.getByRole('button', { name: 'Create the endpoint' }).click();
    await page.getByText(/Copy its signing secret now/).waitFor();
    const secret = await page.getByLabel('Signing secret').inputValue();
    assert.match(secret, /^whsec_/);
    endpointSecret = secret;
    await capture(page, 'webhook-created', 'desktop');
    await page.getByRole('button', { name: 'I have copied it' }).click();
    assert.ok(!(await page.content()).includes(secret));

    // A test, signed with that secret, reaches the receiver.
    await page.getByRole('button', { name: `Send a test ${rx.url}` }).click();
    await page.getByText(`Test sent to ${rx.url}.`).waitFor();
    await rx.waitFor((r) => r.length >= 1, 15_000, 'the test delivery');
    const first = verifyWebhook(rx.received[0].body, rx.received[0].headers, secret).event;
    assert.equal(first.type, 'webhook.test');

    // The delivery, its body and its attempt.
    await page.getByRole('link', { name: 'See the delivery' }).click();
    const deliveryId = decodeURIComponent(new URL(page.url()).pathname.split('/').at(-1)!);
    assert.equal(rx.received[0].headers['x-service-delivery'], deliveryId);
    await page.locator('pre.code', { hasText: '"webhook.test"' }).waitFor();
    for (let i = 0; (await page.getByText('Delivered', { exact: true }).count()) === 0; i++) {
      assert.ok(i < 50, 'the delivery shows as delivered');
      await new Promise((r) => setTimeout(r, 200));
      await page.reload();
    }
    await page.getByRole('region', { name: 'Attempts' }).getByText('200').waitFor();
    await capture(page, 'webhook-delivery', 'desktop');

    // Replay: a new delivery of the same event.
    await page.getByRole('button', { name: 'Replay' }).click();
    await page.getByText('Replayed as a new delivery.').waitFor();
    await rx.waitFor((r) => r.length >= 2, 15_000, 'the replay');
    assert.equal(verifyWebhook(rx.received[1].body, rx.received[1].headers, secret).event.type, 'webhook.test');
    assert.equal(rx.received[1].body.toString(), rx.received[0].body.toString(), 'the same event, the same bytes');
    assert.notEqual(rx.received[1].headers['x-service-delivery'], deliveryId, 'a new delivery id');

    // The log, filtered by event type, lists both.
    await page.getByRole('link', { name: 'Delivery log' }).click();
    await page.getByLabel('Event').selectOption('webhook.test');
    await page.getByLabel('Status').selectOption('succeeded');
    await page.getByRole('button', { name: 'Show' }).click();
    for (let i = 0; (await page.locator('tbody tr').count()) < 2; i++) {
      assert.ok(i < 50, 'both deliveries are listed as delivered');
      await new Promise((r) => setTimeout(r, 200));
      await page.getByRole('button', { name: 'Show' }).click();
    }
    await page.getByRole('link', { name: deliveryId }).waitFor();
    await capture(page, 'webhook-deliveries', 'desktop');

    // The endpoints with their health; one suspended (as eight failures leave it), then resumed.
    await page.getByRole('link', { name: 'Endpoints' }).click();
    const row = page.locator('tbody tr', { hasText: rx.url });
    await row.getByText('Healthy').waitFor();
    await row.getByText(/2 delivered, 0 failed/).waitFor();
    await capture(page, 'webhooks', 'desktop');
    await h.t.database.db
      .update(schema.webhookEndpoints)
      .set({ status: 'suspended', suspendedAt: new Date() })
      .where(and(eq(schema.webhookEndpoints.clientId, h.tenant.clientId), eq(schema.webhookEndpoints.url, rx.url)));
    await page.reload();
    await row.getByText('Suspended').waitFor();
    await row.getByRole('button', { name: `Resume ${rx.url}` }).click();
    await page.getByText(`Endpoint ${rx.url} resumed`).waitFor();
    await row.getByText('Healthy').waitFor();

    const phone = await adminPhone('/settings/webhooks');
    await phone.locator('tbody tr', { hasText: rx.url }).waitFor();
    await capture(phone, 'webhooks', 'phone');
    await phone.goto(`${h.consoleUrl}/settings/webhooks/deliveries`);
    await phone.locator('tbody tr').first().waitFor();
    await capture(phone, 'webhook-deliveries', 'phone');
    await phone.goto(`${h.consoleUrl}/settings/webhooks/deliveries/${deliveryId}`);
    await phone.locator('pre.code').waitFor();
    await capture(phone, 'webhook-delivery', 'phone');
  });

  test('webhooks: the endpoint edited, disabled and enabled, its secret rotated (both signatures verified), then deleted, each asked first', async () => {
    await page.goto(`${h.consoleUrl}/settings/webhooks`);
    const row = page.locator('tbody tr', { hasText: rx.url });
    const dialog = page.getByRole('dialog');
    await row.getByText('Healthy').waitFor();

    await row.getByRole('button', { name: `Edit ${rx.url}` }).click();
    await page.getByLabel('Description (optional)').fill('Back office receiver');
    await page.getByRole('button', { name: 'Save the endpoint' }).click();
    await row.getByText('Back office receiver').waitFor();

    // Disable asks first; cancelled, nothing changes.
    await row.getByRole('button', { name: `Disable ${rx.url}` }).click();
    await dialog.getByText(/Events raised while it is disabled/).waitFor();
    await capture(page, 'webhook-disable-confirm', 'desktop');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    await row.getByText('Healthy').waitFor();
    await row.getByRole('button', { name: `Disable ${rx.url}` }).click();
    await dialog.getByRole('button', { name: 'Disable' }).click();
    await row.getByText('Disabled', { exact: true }).waitFor();
    assert.equal(await row.getByRole('button', { name: `Send a test ${rx.url}` }).count(), 0, 'no test to a disabled endpoint');
    await row.getByRole('button', { name: `Enable ${rx.url}` }).click();
    await row.getByText('Healthy').waitFor();

    // Rotate: the new secret shown once; a test then carries both signatures, each verifies.
    await row.getByRole('button', { name: `Rotate the secret ${rx.url}` }).click();
    await dialog.getByText(/deliveries carry both signatures/).waitFor();
    await dialog.getByRole('button', { name: 'Rotate the secret' }).click();
    await page.getByText(/New signing secret for/).waitFor();
    const fresh = await page.getByLabel('Signing secret').inputValue();
    assert.match(fresh, /^whsec_/);
    assert.notEqual(fresh, endpointSecret);
    await capture(page, 'webhook-rotated', 'desktop');
    const before = rx.received.length;
    await row.getByRole('button', { name: `Send a test ${rx.url}` }).click();
    await rx.waitFor((r) => r.length > before, 15_000, 'the test after the rotation');
    const sent = rx.received[before];
    assert.equal(String(sent.headers['x-service-signature']).split(',').length, 2, 'both signatures during the overlap');
    assert.equal(verifyWebhook(sent.body, sent.headers, fresh).event.type, 'webhook.test');
    assert.equal(verifyWebhook(sent.body, sent.headers, endpointSecret).event.type, 'webhook.test');
    await page.getByRole('button', { name: 'I have copied it' }).click();

    const phone = await adminPhone('/settings/webhooks');
    await phone.locator('tbody tr', { hasText: rx.url }).getByText('Back office receiver').waitFor();
    await capture(phone, 'webhooks-life', 'phone');
    await capture(page, 'webhooks-life', 'desktop');

    // Delete asks first, then the endpoint is gone from the list.
    await row.getByRole('button', { name: `Delete ${rx.url}` }).click();
    await dialog.getByText(/Deliveries still scheduled are cancelled/).waitFor();
    await dialog.getByRole('button', { name: 'Delete' }).click();
    await page.getByText(`Endpoint ${rx.url} deleted; 0 scheduled deliveries cancelled.`).waitFor();
    await row.waitFor({ state: 'detached' });
    const listed = await h.t.request('GET', '/v1/webhook-endpoints', { key: h.t.demoKey });
    assert.equal(listed.json().data.some((e: { url: string }) => e.url === rx.url), false);
  });

  test("embedding origins: an invalid origin refused with the service's message beside it; removed, the list saved", async () => {
    await page.getByRole('link', { name: 'Embedding' }).click();
    await page.getByText('No origin: the journey cannot be framed.').waitFor();
    for (const origin of ['https://shop.example.com', 'https://shop.example.com/checkout']) {
      await page.getByLabel('New origin').fill(origin);
      await page.getByRole('button', { name: 'Add', exact: true }).click();
    }
    await page.getByRole('button', { name: 'Save the origins' }).click();
    // The very words the service gives for that list.
    const direct = await h.t.request('POST', '/v1/journey-embedding', { signed: true, body: { origins: ['https://shop.example.com', 'https://shop.example.com/checkout'] } });
    assert.equal(direct.statusCode, 422);
    await page.getByRole('alert').getByText(direct.json().error.message).waitFor();
    await page.locator('li.origin-invalid', { hasText: 'https://shop.example.com/checkout' }).waitFor();
    await capture(page, 'origins-refused', 'desktop');
    await page.getByRole('button', { name: 'Remove https://shop.example.com/checkout' }).click();
    await page.getByRole('button', { name: 'Save the origins' }).click();
    await page.getByText('Origins saved.').waitFor();
    const saved = await h.t.request('GET', '/v1/journey-embedding');
    assert.deepEqual(saved.json().origins, ['https://shop.example.com']);
    await capture(page, 'origins', 'desktop');

    const phone = await adminPhone('/settings/origins');
    await phone.getByText('https://shop.example.com').waitFor();
    await capture(phone, 'origins', 'phone');

    // The same screens in French.
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: "Origines d'intégration" }).waitFor();
    await page.getByRole('link', { name: 'Clés API' }).click();
    await page.getByRole('heading', { level: 1, name: 'Clés API' }).waitFor();
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByRole('heading', { level: 2, name: 'Points de réception' }).waitFor();
    await capture(page, 'webhooks-fr', 'desktop');
    await page.getByLabel('Langue').selectOption('en');
  });

  test('a supervisor sees none of these screens, and the service refuses the calls the console passes on', async () => {
    const samPage = await openAs(sam, '/queue');
    const nav = samPage.getByRole('navigation', { name: 'Main' });
    await nav.getByRole('link', { name: 'Queue' }).waitFor();
    for (const name of ['API keys', 'Webhooks', 'Embedding', 'Wallet trust anchors']) assert.equal(await nav.getByRole('link', { name }).count(), 0, name);
    await samPage.goto(`${h.consoleUrl}/settings/api-keys`);
    await samPage.waitForURL((u) => u.pathname === '/queue');
    for (const [method, path, body] of [
      ['GET', '/v1/api-keys'],
      ['POST', '/v1/api-keys', { name: 'sneaky' }],
      ['GET', '/v1/webhook-deliveries'],
      ['POST', '/v1/journey-embedding', { origins: [] }],
    ] as const) {
      const res = await apiFromPage(samPage, method, path, body);
      assert.equal(res.status, 403, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'operator_role_insufficient');
    }
  });

  test('axe: no serious or critical violation on any screen reached above', () => {
    assert.ok(Object.keys(audits).length >= 12, `audited: ${Object.keys(audits).join(', ')}`);
    const failures = Object.entries(audits).filter(([, v]) => v.length > 0);
    assert.deepEqual(failures, []);
  });
});
