import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMasterKey } from '@idv/vault';
import { TEST_DB, createPostgresDatabase, seedPgliteDataDir } from '../helpers/database.ts';
import { freePort, runNode, runServe, stop, waitUntilReady, type Proc } from '../helpers/processes.ts';

/**
 * GET /metrics as a Prometheus server scrapes it: the service process (`npm start`) on the
 * database of TEST_DB serves it on METRICS_PORT, apart from the API; a separate worker
 * (`npm run worker`, PostgreSQL) serves its own on another port.
 */

let dataDir: string;
let databaseUrl: string | null = null;
let dropDb = async () => {};
const masterKey = generateMasterKey();
const procs: Proc[] = [];
let api: string;
let metricsUrl: string;

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-metrics-'));
  // The migrated snapshot as its embedded database: this file's subject is not the first start.
  if (TEST_DB === 'pglite') await seedPgliteDataDir(dataDir);
  if (TEST_DB === 'postgres') ({ url: databaseUrl, dropDb } = await createPostgresDatabase());
  const [port, metricsPort] = await Promise.all([freePort(), freePort()]);
  const proc = runServe([], {
    PORT: String(port),
    METRICS_PORT: String(metricsPort),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    DOCS_URL: `http://127.0.0.1:${await freePort()}`,
    JOURNEY_URL: `http://127.0.0.1:${await freePort()}`,
    CONSOLE_URL: `http://127.0.0.1:${await freePort()}`,
    IDP_URL: `http://127.0.0.1:${await freePort()}`,
    LOG_LEVEL: 'warn',
    // No photo is checked here: the checks' warm-up would only take CPU.
    CHECKS_WARM_UP: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, MASTER_KEY: masterKey } : {}),
  });
  procs.push(proc);
  api = `http://127.0.0.1:${port}`;
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  await waitUntilReady(proc, `${api}/readyz`);
});

after(async () => {
  for (const p of procs) await stop(p);
  await dropDb();
  rmSync(dataDir, { recursive: true, force: true });
});

test('GET /metrics answers the Prometheus text format on METRICS_PORT, and is not a route of the API', async () => {
  const res = await fetch(metricsUrl);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  for (const name of ['idv_http_request_duration_seconds histogram', 'idv_check_jobs_waiting gauge', 'idv_webhook_outbox_backlog gauge', 'idv_db_pool_connections gauge', 'idv_nodejs_eventloop_lag_seconds gauge', 'idv_process_resident_memory_bytes gauge']) {
    assert.ok(text.includes(`# TYPE ${name}`), `the scrape has ${name}`);
  }
  assert.match(text, /^idv_check_jobs_waiting 0$/m);
  assert.match(text, /^idv_db_pool_connections\{state="in_use"\} \d+$/m);

  const onApi = await fetch(`${api}/metrics`);
  assert.equal(onApi.status, 404);
  assert.match((await onApi.json()).error.request_id, /^req_/);

  // The metrics port also says the process runs (a worker's liveness probe: it has no API port).
  const livez = await fetch(new URL('/livez', metricsUrl));
  assert.equal(livez.status, 200);
  assert.deepEqual(await livez.json(), { status: 'ok' });
  assert.equal((await fetch(new URL('/other', metricsUrl))).status, 404);
});

test('request durations are labelled with the route pattern and status, never the path or query', async () => {
  const { api_key } = JSON.parse(readFileSync(join(dataDir, 'bootstrap-credentials.json'), 'utf8'));
  const headers = { authorization: `Bearer ${api_key.secret}` };
  const unknownCase = 'case_01m7ym09t80f4fggxqxy1yr50c';
  assert.equal((await fetch(`${api}/v1/cases/${unknownCase}`, { headers })).status, 404);
  assert.equal((await fetch(`${api}/v1/cases?external_ref=private-ref-42`, { headers })).status, 200);
  assert.equal((await fetch(`${api}/no/such/path-with-id-77`)).status, 404);

  const text = await (await fetch(metricsUrl)).text();
  assert.match(text, /^idv_http_request_duration_seconds_count\{route="\/v1\/cases\/:case_id",method="GET",status="404"\} 1$/m);
  assert.match(text, /^idv_http_request_duration_seconds_count\{route="\/v1\/cases",method="GET",status="200"\} 1$/m);
  assert.match(text, /^idv_http_request_duration_seconds_count\{route="unmatched",method="GET",status="404"\} \d+$/m);
  for (const raw of [unknownCase, 'private-ref-42', 'path-with-id-77', 'external_ref']) assert.ok(!text.includes(raw), `no ${raw} in the metrics`);
});

if (TEST_DB === 'postgres') {
  test('a separate worker (npm run worker) serves its own metrics on its own port', async () => {
    const metricsPort = await freePort();
    const worker = runNode('apps/worker/src/main.ts', [], {
      DATABASE_URL: databaseUrl!,
      MASTER_KEY: masterKey,
      DATA_DIR: dataDir,
      METRICS_PORT: String(metricsPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      CHECKS_WARM_UP: 'false',
    });
    procs.push(worker);
    await waitUntilReady(worker, `http://127.0.0.1:${metricsPort}/metrics`);
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    assert.match(text, /^idv_webhook_outbox_backlog 0$/m);
    // The worker answers no API request: its request histogram has no sample.
    assert.doesNotMatch(text, /^idv_http_request_duration_seconds_count/m);
    await stop(worker);
    assert.equal(await worker.exited, 0);
  });
}
