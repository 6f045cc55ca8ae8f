import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ApiRequestError, IdvClient } from '@idv/sdk';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { selfSigned } from '../helpers/certificates.ts';
import { ROOT, freePort } from '../helpers/processes.ts';

/**
 * The SDK's typed methods: one per integration route of the OpenAPI document (named by its
 * operationId), exercised over real HTTP against the real app; list methods iterate over every page.
 */

let t: TestApp;
let client: IdvClient;
before(async () => {
  t = await startTestApp({ RATE_LIMIT_ENABLED: 'false' });
  const port = await freePort();
  await t.app.listen({ port, host: '127.0.0.1' });
  client = new IdvClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret, maxAttempts: 1 });
});
after(() => t.close());

interface Operation {
  operationId: string;
  tags?: string[];
  security?: Record<string, unknown>[];
  responses: Record<string, { description?: string }>;
}

/**
 * The routes an integrator calls with an API key: not the journey's (session token, or the
 * handoff code a phone opens), not the console's own (console credential only).
 */
function integrationOperations(): string[] {
  const doc = JSON.parse(readFileSync(join(ROOT, 'openapi', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, Operation>> };
  const out: string[] = [];
  for (const methods of Object.values(doc.paths)) {
    for (const op of Object.values(methods)) {
      const security = JSON.stringify(op.security ?? []);
      // The hosted journey's routes and the wallet's (called by the person's wallet) are no integration's.
      if (security.includes('sessionToken') || op.tags?.includes('journey') || op.tags?.includes('wallet-protocol')) continue;
      if (JSON.stringify(op.responses).includes('console_credential_required')) continue;
      out.push(op.operationId);
    }
  }
  return out.sort();
}

describe('SDK typed methods', () => {
  test('every integration route of the OpenAPI document has a method of the same name', () => {
    const operations = integrationOperations();
    assert.ok(operations.length >= 30, `found ${operations.length} integration operations`);
    const missing = operations.filter((id) => typeof (IdvClient.prototype as unknown as Record<string, unknown>)[id] !== 'function');
    assert.deepEqual(missing, []);
  });

  test('cases: create, read, and every case by async iteration over pages of one', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await client.createCase({ flow_name: 'standard', country: 'FR', external_ref: `sdk-${i}` })).id);
    const read = await client.getCase(ids[0]);
    assert.equal(read.id, ids[0]);
    const seen: string[] = [];
    for await (const c of client.each('listCases', { limit: 1 })) seen.push(c.id);
    assert.deepEqual(seen.filter((id) => ids.includes(id)).sort(), [...ids].sort(), 'every case, one page at a time');
    assert.equal(new Set(seen).size, seen.length, 'no case twice');
    const session = await client.createSession({ case_id: ids[0], locale: 'fr' });
    assert.equal((await client.getSession(session.id)).case_id, ids[0]);
  });

  test('keys, usage, contract, events, embedding and appearance, signed where the route is', async () => {
    const key = await client.createApiKey({ name: 'from the sdk' });
    assert.match(key.secret, /^sk_sandbox_/);
    const keys: string[] = [];
    for await (const k of client.each('listApiKeys', { limit: 1 })) keys.push(k.id);
    assert.ok(keys.includes(key.id));
    assert.equal(await client.revokeApiKey(key.id), undefined, '204: nothing');

    const period = new Date().toISOString().slice(0, 7);
    const usage = await client.getUsage({ period });
    assert.equal(usage.period, period);
    assert.ok(Object.values(usage.services).every((n) => Number.isInteger(n)));
    assert.match(await client.exportUsage({ period }), /^[a-z_]+(,[a-z_]+)+\r?\n/, 'CSV with its header line');
    assert.match(await client.exportCases({ flow_name: 'standard' }), /^case_id(,[a-z_]+)+\r?\n/, 'the cases as CSV, with the header line');
    assert.equal((await client.getContract()).object, 'contract');
    assert.ok((await client.listWebhookEvents()).data.some((e) => e.type === 'case.decided'));
    assert.deepEqual((await client.updateJourneyEmbedding({ origins: ['https://shop.example.com'] })).origins, ['https://shop.example.com']);
    assert.equal((await client.updateJourneyAppearance({ display_name: 'SDK Bank', primary_color: '#1d4ed8', background_color: '#ffffff' })).display_name, 'SDK Bank');
  });

  test("webhook endpoints: a whole life through the SDK, each write signed", async () => {
    const created = await client.createWebhookEndpoint({ url: 'http://localhost:4000/sdk', events: ['case.decided'] });
    const updated = await client.updateWebhookEndpoint(created.id, { events: ['case.decided', 'webhook.test'], description: 'from the sdk' });
    assert.deepEqual([updated.events, updated.description], [['case.decided', 'webhook.test'], 'from the sdk']);
    assert.equal((await client.disableWebhookEndpoint(created.id)).status, 'disabled');
    assert.equal((await client.enableWebhookEndpoint(created.id)).status, 'active');
    const rotated = await client.rotateWebhookEndpointSecret(created.id, { overlap_seconds: 60 });
    assert.notEqual(rotated.secret, created.secret);
    assert.ok(rotated.previous_secret_expires_at);
    assert.equal((await client.rotateWebhookEndpointSecret(created.id)).previous_secret_expires_at !== null, true, 'the default overlap is 24 hours');
    assert.deepEqual(await client.deleteWebhookEndpoint(created.id), { id: created.id, object: 'webhook_endpoint', deleted: true, cancelled_deliveries: 0 });
    const gone = await client.deleteWebhookEndpoint(created.id).catch((e: unknown) => e);
    assert.ok(gone instanceof ApiRequestError);
    assert.equal(gone.code, 'resource_not_found');
  });

  test('trust anchors: added, listed and removed through the SDK, each write signed', async () => {
    const root = selfSigned('/C=FR/O=SDK Authority/CN=SDK IACA');
    const added = await client.createTrustAnchor({ kind: 'iaca', certificate_pem: root.pem, label: 'from the sdk' });
    assert.deepEqual([added.kind, added.label, added.subject], ['iaca', 'from the sdk', 'C=FR, O=SDK Authority, CN=SDK IACA']);
    assert.ok((await client.listTrustAnchors()).data.some((a) => a.id === added.id));
    const twice = await client.createTrustAnchor({ kind: 'sd_jwt_issuer', certificate_pem: root.pem }).catch((e: unknown) => e);
    assert.ok(twice instanceof ApiRequestError);
    assert.equal(twice.code, 'trust_anchor_exists');
    assert.equal(await client.deleteTrustAnchor(added.id), undefined, '204: nothing');
    assert.ok(!(await client.listTrustAnchors()).data.some((a) => a.id === added.id));
  });

  test('a refusal is an ApiRequestError with its status, code, type, field and request id', async () => {
    const err = await client.updateJourneyAppearance({ display_name: null, primary_color: '#ffcc00', background_color: '#ffffff' }).catch((e: unknown) => e);
    assert.ok(err instanceof ApiRequestError);
    assert.deepEqual([err.status, err.code, err.type, err.field], [422, 'appearance_invalid', 'validation_error', 'primary_color']);
    assert.match(err.requestId!, /^req_/);
  });
});

/** Compiled by `npm run typecheck`, never run: the generated types refuse what the service would. */
void typeChecks; // named, so it counts as used
function typeChecks(c: IdvClient): void {
  // @ts-expect-error country is required by createCase
  void c.createCase({ flow_name: 'standard' });
  // @ts-expect-error decision outcomes are a closed list
  void c.decideCase('case_x', { outcome: 'maybe' });
  // @ts-expect-error a period is required
  void c.getUsage({});
  // @ts-expect-error the overlap is a number of seconds
  void c.rotateWebhookEndpointSecret('whe_x', { overlap_seconds: '1h' });
  // @ts-expect-error trust anchor kinds are a closed list
  void c.createTrustAnchor({ kind: 'x509', certificate_pem: '' });
  // @ts-expect-error the secret is never set by the client
  void c.updateWebhookEndpoint('whe_x', { secret: 'mine' });
  void c.getCase('case_x').then((read) => {
    // @ts-expect-error no such field on a case
    void read.no_such_field;
  });
}
