import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyWebhook } from '@idv/sdk';
import { allowStillsOver, completeStandardJourney, FIXTURES } from '../helpers/journey.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildImage, imageSize, inspect, podman, requireTools, runOnce, startContainer, TEST_IMAGE } from './helpers/podman.ts';
import { sleep, startCluster, waitForStatus, type Cluster } from './helpers/cluster.ts';

/**
 * `npm run test:deploy` (outside the main suite: the image's build takes minutes): the
 * repository's Dockerfile built here on a base made from Debian's packages and this machine's
 * Node, then run under podman as docs/deployment.md lays a deployment out: two API containers and
 * two worker containers on PostgreSQL (a database of their own) and Redis, read-only root file
 * systems, no capability. A case goes through the journey API with real photos and is decided,
 * with its signed webhook; a worker killed in the middle of a case loses nothing; an API stopped
 * leaves the other answering. DEPLOY_TEST_IMAGE=<tag> runs an image already built instead.
 */

const BASE = 18_080;
let cluster: Cluster;
let receiver: Receiver;
let endpointSecret = '';
const image = TEST_IMAGE;

/** The session link's token (JOURNEY_URL/#<token>). */
const tokenOf = (url: string) => /#([A-Za-z0-9_-]{43})$/.exec(url)?.[1] ?? assert.fail(`no token in ${url}`);

/** The verified case.decided webhooks received for `caseId`. */
function decisions(caseId: string): { outcome: string }[] {
  const out: { outcome: string }[] = [];
  for (const r of receiver.received) {
    const { event } = verifyWebhook(r.body, r.headers as Record<string, string>, endpointSecret);
    if (event.type === 'case.decided' && event.object.id === caseId) out.push({ outcome: event.data.outcome });
  }
  return out;
}

let stillsAllowed = false;

/** A new case and its session through one API, its journey through the other (stills: the sandbox `standard` flow accepts them, once). */
async function journey(createOn: string, journeyOn: string, ref: string): Promise<string> {
  if (!stillsAllowed) {
    await allowStillsOver(createOn, cluster.creds.api_key);
    stillsAllowed = true;
  }
  const client = cluster.client(createOn);
  const kase = await client.createCase({ flow_name: 'standard', country: 'FR', external_ref: ref });
  const session = await client.createSession({ case_id: kase.id, locale: 'en' });
  await completeStandardJourney(journeyOn, tokenOf(session.url));
  return kase.id;
}

describe('the image under podman: two APIs, two workers, PostgreSQL and Redis', () => {
  before(async () => {
    await requireTools();
    assert.ok(existsSync(FIXTURES), `the fixtures are missing at ${FIXTURES} (../shared/fixtures beside the checkout)`);
    if (!process.env.DEPLOY_TEST_IMAGE) await buildImage(TEST_IMAGE);
    receiver = await startReceiver();
    cluster = await startCluster({ database: 'idv_deploy_test', basePort: BASE });
  });

  after(async () => {
    await cluster?.close();
    await receiver?.close();
  });

  test('the image runs as a non-root user, checks its health on /livez, and is a reasonable size', async () => {
    assert.equal(await podman(['image', 'inspect', '--format', '{{.Config.User}}', image]), '1000:1000');
    const health = await podman(['image', 'inspect', '--format', '{{json .Config.Healthcheck}}', image]);
    assert.match(health, /healthcheck\.mjs/);
    const size = await imageSize(image);
    console.log(`image ${image}: ${(size / 1e6).toFixed(0)} MB`);
    assert.ok(size < 2.5e9, `the image is ${size} bytes`);
  });

  test('two API containers (the web role: API, journey, docs) and two worker containers start with read-only root file systems', async () => {
    await Promise.all([cluster.startApi('idv-test-api-1', BASE), cluster.startApi('idv-test-api-2', BASE + 100)]);
    await Promise.all([cluster.startWorker('idv-test-worker-1', BASE + 1_000), cluster.startWorker('idv-test-worker-2', BASE + 1_100)]);
    for (const base of cluster.apis.values()) await waitForStatus(`${base}/readyz`, 200, 120_000);
    // The `web` role serves the hosted journey and the documentation site beside the API.
    for (const port of [BASE, BASE + 100]) {
      const journeyApp = await fetch(`http://127.0.0.1:${port + 1}/`);
      assert.equal(journeyApp.status, 200);
      assert.match(journeyApp.headers.get('content-type') ?? '', /text\/html/);
      assert.equal((await fetch(`http://127.0.0.1:${port + 3}/quickstart`)).status, 200);
    }
    // A worker has no API port: its /livez is on its metrics port.
    for (const port of [BASE + 1_000, BASE + 1_100]) await waitForStatus(`http://127.0.0.1:${port}/livez`, 200, 120_000);
    for (const c of cluster.containers.values()) {
      assert.equal(await inspect(c.name, '{{.HostConfig.ReadonlyRootfs}}'), 'true');
      assert.equal(await c.healthcheck(), 'healthy', `${c.name}'s HEALTHCHECK`);
    }
  });

  test('a case through the journey API with real photos is decided, and its signed webhook arrives', async () => {
    const [api1, api2] = [...cluster.apis.values()];
    const endpoint = await cluster.client(api1).createWebhookEndpoint({ url: `${receiver.url}/hooks`, events: ['case.decided'] });
    endpointSecret = endpoint.secret;
    const caseId = await journey(api1, api2, 'deploy-first');
    await receiver.waitFor(() => decisions(caseId).length > 0, 240_000, `case.decided for ${caseId}`);
    assert.deepEqual(decisions(caseId), [{ outcome: 'approved' }]);
  });

  test('a worker killed in the middle of a case loses nothing: the other takes the job over', async () => {
    const [api1, api2] = [...cluster.apis.values()];
    const worker1 = cluster.containers.get('idv-test-worker-1')!;
    const worker2 = cluster.containers.get('idv-test-worker-2')!;
    // Only worker 1 runs while the job is claimed, so the kill is sure to hit the worker holding it.
    await worker2.stop();
    const caseId = await journey(api2, api1, 'deploy-killed');
    const claimed = async () => (await cluster.query<{ attempts: number; status: string }>('SELECT attempts, status FROM check_jobs WHERE case_id = $1', [caseId]))[0];
    const deadline = Date.now() + 60_000;
    while (!((await claimed())?.attempts >= 1) && Date.now() < deadline) await sleep(50);
    assert.equal((await claimed()).status, 'pending', 'the job was done before the kill: nothing was killed mid-case');
    await worker1.kill();
    assert.equal(decisions(caseId).length, 0);
    await podman(['start', worker2.name]);
    await receiver.waitFor(() => decisions(caseId).length > 0, 240_000, `case.decided for ${caseId} after the kill`);
    const job = await claimed();
    assert.equal(job.status, 'done');
    assert.ok(job.attempts >= 2, `the job ran ${job.attempts} time(s)`);
    await sleep(2_000);
    assert.deepEqual(decisions(caseId), [{ outcome: 'approved' }], 'decided once, delivered once');
  });

  test('the admin role makes a console credential, and the console role serves the operator console on PostgreSQL', async () => {
    const out = await runOnce('admin', cluster.env, { args: ['key', 'create', '--client', cluster.creds.client_id, '--environment', 'sandbox', '--kind', 'console'] });
    const key = JSON.parse(out.slice(out.indexOf('{'))) as { secret: string };
    const port = BASE + 2;
    // The provider is reached at an operator's sign-in only; none is needed to start. METRICS_PORT=0:
    // the console serves no metrics, and its health check goes to its own port.
    const consoleEnv = { ...cluster.env, CONSOLE_API_KEY: key.secret, CONSOLE_URL: `http://localhost:${port}`, OIDC_ISSUER: 'http://127.0.0.1:9', OIDC_CLIENT_ID: 'idv-console', OIDC_CLIENT_SECRET: 'not-used-before-a-sign-in', METRICS_PORT: '0' };
    const consoleContainer = await startContainer('idv-test-console', 'console', consoleEnv);
    cluster.containers.set(consoleContainer.name, consoleContainer);
    await waitForStatus(`http://127.0.0.1:${port}/livez`, 200, 120_000);
    assert.equal(await consoleContainer.healthcheck(), 'healthy');
  });

  test('the all-in-one role runs the whole service on the embedded database, DATA_DIR its only writable path', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'idv-deploy-aio-'));
    chownSync(dataDir, 1000, 1000);
    const port = BASE + 500;
    const urls = { API_BASE_URL: `http://localhost:${port}`, JOURNEY_URL: `http://localhost:${port + 1}`, CONSOLE_URL: `http://localhost:${port + 2}`, DOCS_URL: `http://localhost:${port + 3}`, IDP_URL: `http://localhost:${port + 4}` };
    const aio = await startContainer('idv-test-all-in-one', 'all-in-one', { HOST: '127.0.0.1', PORT: String(port), METRICS_PORT: String(port + 5), ...urls }, { volumes: [`${dataDir}:/data`] });
    cluster.containers.set(aio.name, aio);
    try {
      await waitForStatus(`http://127.0.0.1:${port}/readyz`, 200, 180_000);
      for (const p of [port + 1, port + 3]) assert.equal((await fetch(`http://127.0.0.1:${p}/`)).status, 200);
      assert.equal((await fetch(`http://127.0.0.1:${port + 2}/livez`)).status, 200, "the console's server");
      assert.ok(existsSync(join(dataDir, 'bootstrap-credentials.json')), 'the demo credentials in DATA_DIR');
      await aio.stop();
      assert.equal(await inspect(aio.name, '{{.State.ExitCode}}'), '0');
    } finally {
      await aio.remove();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  test('an API container stopped (SIGTERM) exits cleanly, and the other answers', async () => {
    const api1 = cluster.apis.get('idv-test-api-1')!;
    const api2 = cluster.apis.get('idv-test-api-2')!;
    const stopped = cluster.containers.get('idv-test-api-1')!;
    await stopped.stop();
    assert.equal(await inspect(stopped.name, '{{.State.Status}} {{.State.ExitCode}}'), 'exited 0', 'graceful shutdown exits 0');
    const answer = await fetch(`${api1}/livez`, { headers: { connection: 'close' }, signal: AbortSignal.timeout(2_000) }).then(
      async (res) => `${res.status} ${res.headers.get('server') ?? ''} ${(await res.text()).slice(0, 200)}`,
      () => null,
    );
    assert.equal(answer, null, `nothing listens at ${api1} any more`);
    assert.equal((await fetch(`${api2}/readyz`)).status, 200);
    const cases = await cluster.client(api2).listCases({ limit: 10 });
    assert.ok(cases.data.length >= 2);
    assert.match(await stopped.logs(), /shutting down: finishing requests in flight/);
  });
});
