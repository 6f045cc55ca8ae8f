import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WebhookDispatcher } from '@idv/worker';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { exec, packAndInstall, typeErrors } from '../helpers/packed.ts';
import { ROOT } from '../helpers/processes.ts';

/**
 * The SDK as an integrator gets it: built, packed with npm, installed from the tarball into an
 * empty project outside the repository (so nothing of the workspace can be resolved), and run by
 * plain `node` against the real service listening on a real port, with the real webhook
 * dispatcher delivering to a receiver the script itself runs; and its CommonJS build by a plain
 * `require()`.
 */
let t: TestApp;
let dispatcher: WebhookDispatcher;
let baseUrl: string;
let scratch: string;

/** What the integrator's script does with the installed package; it prints one JSON line. */
const CONSUMER_SCRIPT = `
import { createServer } from 'node:http';
import { ApiRequestError, IdvClient, WebhookVerificationError, verifyWebhook } from '@idv/sdk';

const idv = new IdvClient({ baseUrl: process.env.IDV_BASE_URL, apiKey: process.env.IDV_API_KEY, signingSecret: process.env.IDV_SIGNING_SECRET });
const out = {};

const created = await idv.createCase({ flow_name: 'standard', country: 'FR', external_ref: 'packed-sdk' });
const read = await idv.getCase(created.id);
out.case = { id: created.id, status: created.status, readId: read.id, readExternalRef: read.external_ref };

try {
  await idv.createCase({ flow_name: 'standard', country: 'ZZ' });
  out.error = 'none thrown';
} catch (err) {
  out.error = { isApiRequestError: err instanceof ApiRequestError, name: err.name, status: err.status, code: err.code, type: err.type, field: err.field, requestId: err.requestId };
}

let secret;
let delivery;
let testSent;
const received = new Promise((resolve) => {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      delivery = { body: Buffer.concat(chunks), headers: req.headers };
      try {
        const verified = verifyWebhook(delivery.body, req.headers, secret);
        res.writeHead(204).end();
        resolve({ deliveryId: verified.deliveryId, type: verified.event.type });
      } catch (err) {
        res.writeHead(400).end();
        resolve({ refused: err.code ?? String(err) });
      }
      server.close();
    });
  });
  server.listen(0, '127.0.0.1', async () => {
    const endpoint = await idv.createWebhookEndpoint({ url: 'http://127.0.0.1:' + server.address().port + '/hook', events: ['case.decided'] });
    secret = endpoint.secret;
    // The delivery may arrive before the answer: both are awaited before printing.
    testSent = idv.testWebhookEndpoint(endpoint.id);
  });
});
out.webhook = await received;
out.testDelivery = (await testSent).id;

try {
  verifyWebhook(Buffer.concat([delivery.body, Buffer.from(' ')]), delivery.headers, secret);
  out.tampered = 'accepted';
} catch (err) {
  out.tampered = err instanceof WebhookVerificationError ? err.code : String(err);
}
console.log(JSON.stringify(out));
`;

/** A typed integration: the declarations must carry the client, its errors and the event types. */
const TYPED_CONSUMER = `
import { ApiRequestError, IdvClient, verifyWebhook, type WebhookEventBody } from '@idv/sdk';
const idv = new IdvClient({ baseUrl: 'http://localhost', apiKey: 'k', signingSecret: 's', maxAttempts: 2 });
export async function open(): Promise<string> {
  const created = await idv.createCase({ flow_name: 'standard', country: 'FR' });
  return created.id;
}
export function receive(raw: Buffer, headers: Record<string, string>): WebhookEventBody {
  const { event } = verifyWebhook(raw, headers, ['whsec_old', 'whsec_new'], { toleranceS: 300 });
  if (event.type === 'case.decided') {
    const outcome: 'approved' | 'rejected' | 'manual_review' = event.data.outcome;
    const quota: WebhookEventBody<'usage.quota_reached'>['data']['quota'] = 1;
    void [outcome, quota];
  }
  return event;
}
export function describe(err: unknown): string | undefined {
  return err instanceof ApiRequestError ? \`\${err.status} \${err.code} \${err.requestId}\` : undefined;
}
`;

/** The CommonJS build, required by a plain script: a real call, a typed refusal, a verification. */
const REQUIRE_SCRIPT = `
const { ApiRequestError, IdvClient, WebhookVerificationError, signWebhook, verifyWebhook } = require('@idv/sdk');
const idv = new IdvClient({ baseUrl: process.env.IDV_BASE_URL, apiKey: process.env.IDV_API_KEY, signingSecret: process.env.IDV_SIGNING_SECRET });
(async () => {
  const out = {};
  const created = await idv.createCase({ flow_name: 'standard', country: 'FR', external_ref: 'required-sdk' });
  out.readExternalRef = (await idv.getCase(created.id)).external_ref;
  out.refusal = await idv.getCase('case_unknown').then(() => 'none thrown', (err) => (err instanceof ApiRequestError ? err.status : String(err)));
  const body = JSON.stringify({ id: 'evt_1', type: 'webhook.test', data: {} });
  const ts = Math.floor(Date.now() / 1000);
  const headers = { 'x-service-event': 'webhook.test', 'x-service-delivery': 'dlv_1', 'x-service-timestamp': String(ts), 'x-service-signature': signWebhook('whsec_x', ts, body) };
  out.verified = verifyWebhook(body, headers, 'whsec_x').deliveryId;
  try {
    verifyWebhook(body, headers, 'whsec_other');
  } catch (err) {
    out.wrongSecret = err instanceof WebhookVerificationError ? err.code : String(err);
  }
  console.log(JSON.stringify(out));
})();
`;

/** A CommonJS TypeScript file compiles against the declarations of the require condition. */
const TYPED_REQUIRE_CONSUMER = `
import { IdvClient, type WebhookEventBody } from '@idv/sdk';
export const idv = new IdvClient({ baseUrl: 'http://localhost', apiKey: 'k', signingSecret: 's' });
export type Event = WebhookEventBody;
`;

before(async () => {
  t = await startTestApp({ WEBHOOK_POLL_MS: '50', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' });
  dispatcher = new WebhookDispatcher({ db: t.database.db, keyring: t.ctx.keyring, settings: t.config.webhooks, listen: t.database.listen });
  await dispatcher.start();
  baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
  scratch = await mkdtemp(join(tmpdir(), 'idv-sdk-consumer-'));
});
after(async () => {
  await dispatcher?.stop();
  await t?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

describe('the packed SDK', () => {
  test('`npm pack -w packages/sdk` builds it; installed from its tarball outside the repository, it works from plain node', async () => {
    const workspaceManifest = await readFile(join(ROOT, 'packages', 'sdk', 'package.json'), 'utf8');
    const { project, installed } = await packAndInstall('sdk', scratch, 'workspace');
    assert.equal(await readFile(join(ROOT, 'packages', 'sdk', 'package.json'), 'utf8'), workspaceManifest, 'the workspace manifest is put back after the pack');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.dependencies, undefined, 'no runtime dependency');
    assert.equal(manifest.license, 'MIT');
    assert.deepEqual(manifest.exports['.'].import, { types: './dist/index.d.ts', default: './dist/index.js' });
    assert.deepEqual((await readdir(installed)).sort(), ['README.md', 'dist', 'package.json']);
    assert.deepEqual((await readdir(join(installed, 'dist'))).sort(), ['LICENSE', 'index.cjs', 'index.d.cts', 'index.d.ts', 'index.js'], 'built JavaScript and declarations, no TypeScript source');
    assert.deepEqual(await readdir(join(project, 'node_modules', '@idv')), ['sdk'], 'nothing of the workspace came along');
    const types = await readFile(join(installed, 'dist', 'index.d.ts'), 'utf8');
    assert.doesNotMatch(types, /@idv\/|typebox/, 'the declarations stand alone');
    assert.match(types, /export declare class IdvClient/);
    assert.match(types, /export declare function verifyWebhook/);

    // A TypeScript integrator compiles against the published declarations alone (and Node's
    // types): the typed files compile clean, ES module and CommonJS, a wrong call in the other
    // is refused. One tsc run.
    await writeFile(join(project, 'typed.ts'), TYPED_CONSUMER);
    await writeFile(join(project, 'typed-require.cts'), TYPED_REQUIRE_CONSUMER);
    await writeFile(join(project, 'mistyped.ts'), `import { IdvClient } from '@idv/sdk';\nnew IdvClient({ baseUrl: 'x', apiKey: 'k', signingSecret: 's' }).createCase({ flow_name: 'standard', country: 1 });\n`);
    // Narrowed to the test event, whose data is empty, an outcome does not compile.
    await writeFile(join(project, 'misnarrowed.ts'), `import { verifyWebhook } from '@idv/sdk';\nconst { event } = verifyWebhook('{}', {}, 's');\nif (event.type === 'webhook.test') console.log(event.data.outcome);\n`);
    const compiled = await typeErrors(project, ['typed.ts', 'typed-require.cts', 'mistyped.ts', 'misnarrowed.ts'], 'node');
    assert.deepEqual([...compiled.errors].sort(), ['misnarrowed.ts TS2339', 'mistyped.ts TS2322'], compiled.output);

    await writeFile(join(project, 'check.mjs'), CONSUMER_SCRIPT);
    const env = { PATH: process.env.PATH, IDV_BASE_URL: baseUrl, IDV_API_KEY: t.demoKey.secret, IDV_SIGNING_SECRET: t.demoKey.signingSecret };
    const run = await exec(process.execPath, ['check.mjs'], { cwd: project, timeout: 30_000, env });
    const out = JSON.parse(run.stdout.trim().split('\n').at(-1)!);

    assert.match(out.case.id, /\S/);
    assert.equal(out.case.readId, out.case.id, 'the case created with the SDK reads back');
    assert.equal(out.case.readExternalRef, 'packed-sdk');
    assert.equal(out.error.isApiRequestError, true);
    assert.equal(out.error.status, 422);
    assert.equal(out.error.code, 'invalid_country');
    assert.equal(out.error.name, 'ApiRequestError');
    assert.equal(out.error.type, 'validation_error');
    assert.equal(out.error.field, 'country');
    assert.match(out.error.requestId, /\S/);
    assert.deepEqual(out.webhook, { deliveryId: out.testDelivery, type: 'webhook.test' }, 'the real delivery verified with the SDK');
    assert.equal(out.tampered, 'signature_invalid');

    // The CommonJS build, by require() from a .cjs file of the same ES module project.
    await writeFile(join(project, 'check.cjs'), REQUIRE_SCRIPT);
    const required = await exec(process.execPath, ['check.cjs'], { cwd: project, timeout: 30_000, env });
    assert.deepEqual(JSON.parse(required.stdout.trim().split('\n').at(-1)!), { readExternalRef: 'required-sdk', refusal: 404, verified: 'dlv_1', wrongSecret: 'signature_invalid' });
  });
});
