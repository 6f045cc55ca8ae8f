/**
 * `npm run bench:deploy`: the image as a deployment runs it, under podman on this machine (see
 * tests/deploy/containers.deploy.ts for the test of the same set-up):
 *  - its size (podman's uncompressed layers; the base is Debian bookworm with Node 20, as
 *    node:20-bookworm-slim is);
 *  - cold start: `podman run` of a web container (API, journey, docs; PostgreSQL migrated) until its /readyz answers
 *    200, and of an all-in-one container on a new embedded database until its /readyz answers 200;
 *  - cases a minute with two worker containers: a batch of whole journeys (real photos, the
 *    standard flow) finished at once through one API container, from the first finish until the
 *    last case.decided webhook (the workers warmed by one case first).
 * DEPLOY_TEST_IMAGE=<tag> measures an image already built; otherwise it is built first (minutes).
 * Ends with one JSON line.
 */
import { availableParallelism } from 'node:os';
import { chownSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { completeStandardJourney } from '../tests/helpers/journey.ts';
import { startReceiver } from '../tests/helpers/receiver.ts';
import { buildImage, imageSize, startContainer, TEST_IMAGE } from '../tests/deploy/helpers/podman.ts';
import { startCluster, waitForStatus } from '../tests/deploy/helpers/cluster.ts';

const BASE = 28_080;
const BATCH = Number(process.env.BENCH_CASES ?? 12);
const image = TEST_IMAGE;
if (!process.env.DEPLOY_TEST_IMAGE) await buildImage(TEST_IMAGE);
const sizeBytes = await imageSize(image);
console.log(`image ${image}: ${(sizeBytes / 1e6).toFixed(0)} MB`);

const receiver = await startReceiver();
const cluster = await startCluster({ database: 'idv_deploy_bench', basePort: BASE });
const figures: Record<string, number> = {};
try {
  // Cold start of the web role (API, journey, docs) on the migrated database.
  let started = Date.now();
  await cluster.startApi('idv-bench-api', BASE);
  const api = cluster.apis.get('idv-bench-api')!;
  await waitForStatus(`${api}/readyz`, 200, 180_000);
  figures.web_cold_start_to_readyz_s = (Date.now() - started) / 1000;
  console.log(`web container (API, journey, docs; PostgreSQL migrated): /readyz 200 after ${figures.web_cold_start_to_readyz_s.toFixed(1)} s`);

  // Cold start of the all-in-one role on a new embedded database (DATA_DIR mounted: its only writable path besides /tmp).
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-bench-aio-'));
  chownSync(dataDir, 1000, 1000);
  const aioPort = BASE + 500;
  started = Date.now();
  const aio = await startContainer(
    'idv-bench-all-in-one',
    'all-in-one',
    {
      HOST: '127.0.0.1',
      PORT: String(aioPort),
      METRICS_PORT: String(aioPort + 1),
      JOURNEY_URL: `http://localhost:${aioPort + 2}`,
      CONSOLE_URL: `http://localhost:${aioPort + 3}`,
      DOCS_URL: `http://localhost:${aioPort + 4}`,
      IDP_URL: `http://localhost:${aioPort + 5}`,
      API_BASE_URL: `http://localhost:${aioPort}`,
    },
    { image, volumes: [`${dataDir}:/data`] },
  );
  try {
    await waitForStatus(`http://127.0.0.1:${aioPort}/readyz`, 200, 180_000);
    figures.all_in_one_cold_start_to_readyz_s = (Date.now() - started) / 1000;
    console.log(`all-in-one container (embedded database, first start): /readyz 200 after ${figures.all_in_one_cold_start_to_readyz_s.toFixed(1)} s`);
  } finally {
    await aio.remove();
    rmSync(dataDir, { recursive: true, force: true });
  }

  // Throughput of two worker containers.
  await Promise.all([cluster.startWorker('idv-bench-worker-1', BASE + 1_000), cluster.startWorker('idv-bench-worker-2', BASE + 1_100)]);
  const client = cluster.client(api);
  const endpoint = await client.createWebhookEndpoint({ url: `${receiver.url}/hooks`, events: ['case.decided'] });
  void endpoint;
  const decided = () => new Set(receiver.received.map((r) => (JSON.parse(r.body.toString('utf8')) as { object: { id: string } }).object.id));
  const runCase = async (ref: string) => {
    const kase = await client.createCase({ flow_name: 'standard', country: 'FR', external_ref: ref });
    const session = await client.createSession({ case_id: kase.id, locale: 'en' });
    await completeStandardJourney(api, /#([A-Za-z0-9_-]{43})$/.exec(session.url)![1]);
    return kase.id;
  };
  const waitDecided = async (ids: string[], timeoutMs: number) => receiver.waitFor(() => ids.every((id) => decided().has(id)), timeoutMs, `${ids.length} decisions`);
  const warm = await runCase('bench-warm');
  await waitDecided([warm], 300_000);
  const batchStart = Date.now();
  const ids = await Promise.all(Array.from({ length: BATCH }, (_, i) => runCase(`bench-${i}`)));
  const submittedS = (Date.now() - batchStart) / 1000;
  await waitDecided(ids, 900_000);
  const seconds = (Date.now() - batchStart) / 1000;
  figures.cases = BATCH;
  figures.batch_seconds = Math.round(seconds * 10) / 10;
  figures.cases_a_minute_two_workers = Math.round((BATCH / seconds) * 60 * 10) / 10;
  console.log(`${BATCH} cases (journeys finished in ${submittedS.toFixed(1)} s) decided in ${seconds.toFixed(1)} s by two worker containers: ${figures.cases_a_minute_two_workers} cases a minute`);
} finally {
  await cluster.close();
  await receiver.close();
}
console.log(JSON.stringify({ cores: availableParallelism(), image_bytes: sizeBytes, image_mb: Math.round(sizeBytes / 1e6), ...figures }));
