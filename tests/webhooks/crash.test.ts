import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { IdvClient, verifyWebhook } from '@idv/sdk';
import { generateMasterKey } from '@idv/vault';
import { TEST_DB, createPostgresDatabase, seedPgliteDataDir } from '../helpers/database.ts';
import { freePort, runNode, runServe, stop, waitUntilReady, type Proc } from '../helpers/processes.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';

/**
 * At-least-once across a crash: 1,000 events are being delivered when the process running the
 * dispatcher is killed with SIGKILL (no shutdown, claims left behind), then started again. The
 * receiver must end with every event at least once; duplicates are counted, losses fail the test.
 *
 * On PostgreSQL the dispatcher runs as its own process (`npm run worker`) beside the API; on
 * PGlite it lives in the service process that owns the data directory, so that process is killed
 * and restarted on the same DATA_DIR.
 */
const EVENTS = 1000;
const KILL_AFTER = 300;

const masterKey = generateMasterKey();
let dataDir: string;
let databaseUrl: string | null = null;
let dropDb = async () => {};
let receiver: Receiver;
const procs: Proc[] = [];

// A short lease so that the deliveries the killed worker had claimed go again soon after restart.
// No check runs here: the checks' warm-up would only take CPU from the deliveries.
const WORKER_ENV = { CHECKS_WARM_UP: 'false', WEBHOOK_CONCURRENCY: '8', WEBHOOK_LEASE_MS: '2000', WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_POLL_MS: '100', LOG_LEVEL: 'warn' };

async function startService(runWorker: boolean): Promise<{ proc: Proc; api: string }> {
  // Every companion server of the single process listens on its URL's port: all of them free ones.
  const [port, docsPort, journeyPort, consolePort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const proc = runServe([], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_BASE_URL: `http://127.0.0.1:${port}`,
    DOCS_URL: `http://127.0.0.1:${docsPort}`,
    JOURNEY_URL: `http://127.0.0.1:${journeyPort}`,
    CONSOLE_URL: `http://127.0.0.1:${consolePort}`,
    // The development identity provider of the console, on a port of its own.
    IDP_URL: `http://127.0.0.1:${await freePort()}`,
    MASTER_KEY: masterKey,
    RUN_WORKER: String(runWorker),
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...WORKER_ENV,
  });
  procs.push(proc);
  const api = `http://127.0.0.1:${port}`;
  await waitUntilReady(proc, `${api}/readyz`);
  return { proc, api };
}

function startWorker(): Proc {
  const proc = runNode('apps/worker/src/main.ts', [], { DATABASE_URL: databaseUrl!, MASTER_KEY: masterKey, DATA_DIR: dataDir, ...WORKER_ENV });
  procs.push(proc);
  return proc;
}

async function waitUntil(what: string, predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-webhook-crash-'));
  // The migrated snapshot as its embedded database: this file's subject is not the first start.
  if (TEST_DB === 'pglite') await seedPgliteDataDir(dataDir);
  if (TEST_DB === 'postgres') {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    dropDb = created.dropDb;
  }
  // A receiver with a little latency per answer, so the 1,000 deliveries take a few seconds.
  receiver = await startReceiver(() => ({ status: 200, delayMs: 10 }));
});

after(async () => {
  for (const p of procs) await stop(p);
  await receiver?.close();
  await dropDb();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('crash of the dispatcher process', () => {
  test(`SIGKILL while ${EVENTS} events are being delivered loses none`, async (t) => {
    // 1. The events, committed through the API while no dispatcher runs.
    const api = await startService(false);
    const creds = JSON.parse(readFileSync(join(dataDir, 'bootstrap-credentials.json'), 'utf8'));
    const client = (base: string) => new IdvClient({ baseUrl: base, apiKey: creds.api_key.secret, signingSecret: creds.api_key.signing_secret });
    const endpoint = await client(api.api).createWebhookEndpoint({ url: `${receiver.url}/hooks`, events: ['case.decided'] });
    const expected = new Set<string>();
    for (let i = 0; i < EVENTS; i += 20) {
      const batch = await Promise.all(Array.from({ length: 20 }, () => client(api.api).testWebhookEndpoint(endpoint.id)));
      batch.forEach((d) => expected.add(d.id));
    }
    assert.equal(expected.size, EVENTS);

    // 2. The dispatcher starts delivering; it is killed outright part of the way through.
    let service = api;
    let worker: Proc;
    if (databaseUrl) {
      worker = startWorker();
    } else {
      await stop(api.proc); // the embedded database has one owner: the service restarts with its worker
      service = await startService(true);
      worker = service.proc;
    }
    const got = () => new Set(receiver.received.map((r) => String(r.headers['x-service-delivery'])));
    const distinct = () => got().size;
    await waitUntil(`${KILL_AFTER} deliveries`, () => distinct() >= KILL_AFTER, 60_000);
    worker.child.kill('SIGKILL');
    assert.equal(await worker.exited, 'SIGKILL');
    const atKill = distinct();
    assert.ok(atKill < EVENTS, `the kill came after everything was delivered (${atKill})`);

    // 3. Started again: it takes over what was left, including the attempts the dead one had claimed.
    const restarted = databaseUrl ? startWorker() : (service = await startService(true)).proc;
    await waitUntil('every event at least once', () => {
      const ids = got();
      return [...expected].every((id) => ids.has(id));
    }, 120_000);

    const seen = new Map<string, number>();
    for (const r of receiver.received) {
      verifyWebhook(r.body, r.headers, endpoint.secret);
      const id = String(r.headers['x-service-delivery']);
      seen.set(id, (seen.get(id) ?? 0) + 1);
    }
    const lost = [...expected].filter((id) => !seen.has(id));
    const duplicates = [...seen.values()].reduce((n, c) => n + c - 1, 0);
    t.diagnostic(`${EVENTS} events, ${atKill} delivered before SIGKILL, ${receiver.received.length} requests received, ${duplicates} duplicates, ${lost.length} lost`);
    assert.deepEqual(lost, []);
    assert.equal(seen.size, EVENTS, 'nothing but the expected deliveries');

    // The log agrees once the restarted dispatcher has recorded everything: nothing left to send.
    const reader = client(service.api);
    for (let tries = 0; ; tries++) {
      const waiting = [
        ...(await reader.request<{ data: unknown[] }>('GET', '/v1/webhook-deliveries?status=pending&limit=100')).data,
        ...(await reader.request<{ data: unknown[] }>('GET', '/v1/webhook-deliveries?status=retrying&limit=100')).data,
      ];
      if (waiting.length === 0) break;
      if (tries > 100) assert.fail(`${waiting.length} deliveries still waiting`);
      await new Promise((r) => setTimeout(r, 100));
    }

    // And a SIGTERM stops it cleanly: attempts in flight recorded, then the database closed.
    restarted.child.kill('SIGTERM');
    assert.equal(await restarted.exited, 0, restarted.stderr());
  });
});
