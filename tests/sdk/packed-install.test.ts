import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { WebhookDispatcher } from '@idv/worker';
import { SDK_DIST, buildSdk } from '../../scripts/build-sdk.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { ROOT } from '../helpers/processes.ts';

/**
 * The SDK as an integrator gets it: built, packed with npm, installed from the tarball into an
 * empty project outside the repository (so nothing of the workspace can be resolved), and run by
 * plain `node` against the real service listening on a real port, with the real webhook
 * dispatcher delivering to a receiver the script itself runs.
 */
const exec = promisify(execFile);
/**
 * The environment of the npm the test runs, without what an enclosing `npm test` exports
 * (npm_config_local_prefix among them would make `npm install` install into the repository).
 */
const npmEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
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
    out.testDelivery = (await idv.testWebhookEndpoint(endpoint.id)).id;
  });
});
out.webhook = await received;

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
    const outcome: 'approved' | 'rejected' | 'manual_review' = (event as WebhookEventBody<'case.decided'>).data.outcome;
    void outcome;
  }
  return event;
}
export function describe(err: unknown): string | undefined {
  return err instanceof ApiRequestError ? \`\${err.status} \${err.code} \${err.requestId}\` : undefined;
}
`;
const TSC_FLAGS = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022', '--types', 'node'];

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
  test('installs from its tarball outside the repository and works from plain node', async () => {
    await buildSdk();
    const packed = await exec('npm', ['pack', SDK_DIST, '--pack-destination', scratch, '--json'], { cwd: scratch, env: npmEnv() });
    const [{ filename }] = JSON.parse(packed.stdout) as { filename: string }[];

    const project = join(scratch, 'integrator');
    await exec('mkdir', [project]);
    await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
    // --offline: the package has no dependency, so installing it needs nothing from a registry.
    await exec('npm', ['install', join(scratch, filename), '--offline', '--no-audit', '--no-fund'], { cwd: project, env: npmEnv() });

    const installed = join(project, 'node_modules', '@idv', 'sdk');
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.dependencies, undefined, 'no runtime dependency');
    assert.deepEqual((await readdir(installed)).sort(), ['README.md', 'index.d.ts', 'index.js', 'package.json']);
    assert.deepEqual(await readdir(join(project, 'node_modules', '@idv')), ['sdk'], 'nothing of the workspace came along');
    const types = await readFile(join(installed, 'index.d.ts'), 'utf8');
    assert.doesNotMatch(types, /@idv\//, 'the declarations stand alone');
    assert.match(types, /export declare class IdvClient/);
    assert.match(types, /export declare function verifyWebhook/);

    // A TypeScript integrator compiles against the published declarations alone (and Node's
    // types): the typed file compiles clean, a wrong call in the other is refused. One tsc run.
    await writeFile(join(project, 'typed.ts'), TYPED_CONSUMER);
    await writeFile(join(project, 'mistyped.ts'), `import { IdvClient } from '@idv/sdk';\nnew IdvClient({ baseUrl: 'x', apiKey: 'k', signingSecret: 's' }).createCase({ flow_name: 'standard', country: 1 });\n`);
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const compiled = await exec(process.execPath, [tsc, ...TSC_FLAGS, '--typeRoots', join(ROOT, 'node_modules', '@types'), 'typed.ts', 'mistyped.ts'], { cwd: project }).then(
      () => '',
      (err: { stdout: string }) => err.stdout,
    );
    const errorFiles = [...compiled.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+)/gm)].map(([, file, code]) => `${file} ${code}`);
    assert.deepEqual(errorFiles, ['mistyped.ts TS2322'], compiled);

    await writeFile(join(project, 'check.mjs'), CONSUMER_SCRIPT);
    const run = await exec(process.execPath, ['check.mjs'], {
      cwd: project,
      timeout: 30_000,
      env: { PATH: process.env.PATH, IDV_BASE_URL: baseUrl, IDV_API_KEY: t.demoKey.secret, IDV_SIGNING_SECRET: t.demoKey.signingSecret },
    });
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
  });
});
