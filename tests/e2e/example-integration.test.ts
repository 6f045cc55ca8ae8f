import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMasterKey } from '@idv/vault';
import { TEST_DB, createPostgresDatabase } from '../helpers/database.ts';
import { IMAGES, fixture } from '../helpers/journey.ts';
import { freePort, runNode, stop, waitUntilReady, type Proc } from '../helpers/processes.ts';

/**
 * examples/fastify-integration.ts against the whole service started as `npm start` starts it (API,
 * worker with the real checks, journey), on the database of TEST_DB: the example opens a case for
 * a customer and hands out its link; the person's journey (real fixture photos, given names
 * "Sandbox Approve") goes through the journey's own HTTP routes; the worker decides; the webhook
 * reaches the example, which verifies it on its raw bytes and reads the results; a forged webhook
 * is refused.
 */

let dir: string;
let dropDb = async () => {};
let service: Proc;
let example: Proc;
let api: string;
let exampleUrl: string;

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idv-example-'));
  let databaseUrl: string | null = null;
  if (TEST_DB === 'postgres') ({ url: databaseUrl, dropDb } = await createPostgresDatabase());
  const [port, jport, dport, cport, iport, eport] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort(), freePort()]);
  api = `http://127.0.0.1:${port}`;
  service = runNode('apps/server/src/main.ts', [], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    API_BASE_URL: api,
    JOURNEY_URL: `http://127.0.0.1:${jport}`,
    DOCS_URL: `http://127.0.0.1:${dport}`,
    CONSOLE_URL: `http://127.0.0.1:${cport}`,
    IDP_URL: `http://127.0.0.1:${iport}`,
    LOG_LEVEL: 'warn',
    MASTER_KEY: generateMasterKey(),
    // The example listens on this machine: a deployment's receiver would be on a public address.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  await waitUntilReady(service, `${api}/readyz`);
  const creds = JSON.parse(readFileSync(join(dir, 'bootstrap-credentials.json'), 'utf8'));
  exampleUrl = `http://127.0.0.1:${eport}`;
  example = runNode('examples/fastify-integration.ts', [], {
    IDV_BASE_URL: api,
    IDV_API_KEY: creds.api_key.secret,
    IDV_SIGNING_SECRET: creds.api_key.signing_secret,
    PUBLIC_URL: exampleUrl,
    PORT: String(eport),
    LOG_LEVEL: 'warn',
  });
  await waitUntil('the example listens', async () => (await fetch(`${exampleUrl}/verifications/none`).catch(() => null))?.status === 404, 60_000, example);
});

after(async () => {
  if (example) await stop(example);
  if (service) await stop(service);
  await dropDb();
  rmSync(dir, { recursive: true, force: true });
});

async function waitUntil(what: string, check: () => Promise<boolean>, ms: number, proc?: Proc): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${proc ? `\n${proc.stderr()}` : ''}`);
}

/** A call of the journey's routes with the link's token, as the journey app makes it. */
async function journey(token: string, method: string, path: string, body?: unknown, bytes?: Buffer): Promise<void> {
  const headers: Record<string, string> = { authorization: `Session ${token}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (bytes) headers['content-type'] = 'image/jpeg';
  const res = await fetch(`${api}/v1/sessions/current${path}`, { method, headers, body: bytes ? new Uint8Array(bytes) : body === undefined ? undefined : JSON.stringify(body) });
  assert.equal(res.status, 200, `${method} ${path}: ${await res.text()}`);
}

test('the example opens a case, the person finishes the journey, the verified webhook and the results reach the example', async () => {
  const opened = await fetch(`${exampleUrl}/verifications`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ customer_id: 'cust-42' }) });
  assert.equal(opened.status, 201);
  const { case_id, journey_url } = (await opened.json()) as { case_id: string; journey_url: string };
  const token = /#([A-Za-z0-9_-]{43})$/.exec(journey_url)![1];

  await journey(token, 'POST', '/consent', { accepted: true });
  await journey(token, 'POST', '/applicant', { given_names: 'Sandbox Approve', surname: 'Hopper', birth_date: '1906-12-09', email: 'grace@example.com' });
  await journey(token, 'POST', '/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } });
  await journey(token, 'POST', '/document', { country: 'FR', type: 'passport' });
  for (const [kind, path] of [['document_front', IMAGES.passport], ['selfie', IMAGES.selfie], ['liveness_turn_left', IMAGES.turnLeft], ['liveness_turn_right', IMAGES.turnRight]] as const) {
    await journey(token, 'PUT', `/pieces/${kind}`, undefined, fixture(path));
  }
  await journey(token, 'POST', '/finish');

  let known: { status: string; outcome?: string; customer_id: string; checks?: { type: string }[] } | null = null;
  await waitUntil(
    'the example to learn the decision',
    async () => {
      known = await (await fetch(`${exampleUrl}/verifications/${case_id}`)).json();
      return known?.outcome !== undefined;
    },
    120_000,
    service,
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
