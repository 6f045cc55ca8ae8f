import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { allowStillsOver, completeStandardJourney } from '../helpers/journey.ts';
import { freePort, runNode, stop, type Proc } from '../helpers/processes.ts';
import { startWholeService, waitUntil, type WholeService } from '../helpers/service.ts';

/**
 * examples/fastify-integration.ts against the whole service started as `npm start` starts it (API,
 * worker with the real checks, journey), on the database of TEST_DB: the example opens a case for
 * a customer and hands out its link; the person's journey (real fixture photos, given names
 * "Sandbox Approve") goes through the journey's own HTTP routes; the worker decides; the webhook
 * reaches the example, which verifies it on its raw bytes and reads the results; a forged webhook
 * is refused.
 */

let service: WholeService;
let example: Proc;
let exampleUrl: string;

before(async () => {
  // The example listens on this machine: a deployment's receiver would be on a public address.
  service = await startWholeService({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  // The test stands in for the person's browser with stills (completeStandardJourney), so the
  // service's sandbox `standard` flow accepts them: docs/flows.md#the-live-sequence-or-stills.
  await allowStillsOver(service.api, service.creds.api_key);
  const eport = await freePort();
  exampleUrl = `http://127.0.0.1:${eport}`;
  example = runNode('examples/fastify-integration.ts', [], {
    IDV_BASE_URL: service.api,
    IDV_API_KEY: service.creds.api_key.secret,
    IDV_SIGNING_SECRET: service.creds.api_key.signing_secret,
    PUBLIC_URL: exampleUrl,
    PORT: String(eport),
    LOG_LEVEL: 'warn',
  });
  await waitUntil('the example listens', async () => (await fetch(`${exampleUrl}/verifications/none`).catch(() => null))?.status === 404, 60_000, example);
});

after(async () => {
  if (example) await stop(example);
  await service?.stop();
});

test('the example opens a case, the person finishes the journey, the verified webhook and the results reach the example', async () => {
  const opened = await fetch(`${exampleUrl}/verifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customer_id: 'cust-42' }) });
  assert.equal(opened.status, 201);
  const { case_id, journey_url } = (await opened.json()) as { case_id: string; journey_url: string };
  const token = /#([A-Za-z0-9_-]{43})$/.exec(journey_url)![1];

  await completeStandardJourney(service.api, token);

  let known: { status: string; outcome?: string; customer_id: string; checks?: { type: string }[] } | null = null;
  await waitUntil(
    'the example to learn the decision',
    async () => {
      known = await (await fetch(`${exampleUrl}/verifications/${case_id}`)).json();
      return known?.outcome !== undefined;
    },
    120_000,
    service.proc,
  );
  assert.equal(known!.customer_id, 'cust-42');
  assert.equal(known!.outcome, 'approved');
  assert.equal(known!.status, 'approved');
  assert.ok(known!.checks!.length > 0, 'the results were read after the webhook');
});

test('a webhook not signed with the endpoint secret is refused by the example', async () => {
  const body = JSON.stringify({ type: 'case.decided', object: { id: 'case_forged' } });
  const res = await fetch(`${exampleUrl}/webhooks`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-event': 'case.decided',
      'x-service-delivery': 'whd_forged',
      'x-service-timestamp': String(Math.floor(Date.now() / 1000)),
      'x-service-signature': `v1=${'0'.repeat(64)}`,
    },
    body,
  });
  assert.equal(res.status, 400);
  assert.deepEqual(await res.json(), { error: 'signature_invalid' });
});
