/**
 * `npm run bench:webhooks`: webhook deliveries per second to a local receiver, and the latency
 * from the commit of the transaction that raises an event to the receiver's 2xx (p50, p99), on
 * PGlite and on PostgreSQL. Target: p99 under 1 s at 200 events per second. Ends with one line
 * of JSON holding every figure.
 *
 * The service side runs here as in `npm start`: the database, the code that raises events
 * (emitEvent inside a transaction, one event per transaction) and the dispatcher with its default
 * settings share one process. The receiver is a separate process on loopback that answers 200 at
 * once and reports, per X-Service-Delivery, the wall-clock time its answer was written.
 *
 * Phases per backend: a warm-up; events at a steady 200 per second for BENCH_SECONDS (default 10)
 * for the latency; then a backlog of BENCH_BACKLOG events (default 3000) committed while no
 * dispatcher runs, drained by a fresh dispatcher, for the deliveries per second.
 *
 * Environment: BENCH_SECONDS, BENCH_RATE (default 200), BENCH_BACKLOG, BENCH_BACKENDS (default
 * "pglite,postgres"), TEST_DATABASE_URL (the PostgreSQL server; a fresh database is created on it
 * for the run and dropped after).
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInterface } from 'node:readline';
import { createClient, emitEvent, insertWebhookEndpoint, openDatabase, type Database, type Tenant } from '@idv/db';
import { newId } from '@idv/domain';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import { DEFAULT_WEBHOOK_SETTINGS } from '@idv/webhooks';
import { WebhookDispatcher } from '@idv/worker';
import { createPostgresDatabase } from '../tests/helpers/database.ts';

type Backend = 'pglite' | 'postgres';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const BACKLOG = Number(process.env.BENCH_BACKLOG ?? 3000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as Backend[];
const WARMUP = 200;
const SELF = fileURLToPath(import.meta.url);

// ---------------------------------------------------------------- receiver (child process)

/** Answers 200 to every POST and prints "<delivery id> <ms when the answer was written>". */
function runReceiver(): void {
  const out: string[] = [];
  const flush = () => {
    if (out.length) process.stdout.write(out.splice(0).join(''));
  };
  setInterval(flush, 20);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const id = String(req.headers['x-service-delivery']);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok', () => out.push(`${id} ${Date.now()}\n`));
    });
  });
  server.keepAliveTimeout = 10_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address() as { port: number };
    process.stdout.write(`port ${address.port}\n`);
  });
  process.on('SIGTERM', () => process.exit(0));
}

interface Receiver {
  url: string;
  /** Delivery id → time the 2xx was written. */
  answered: Map<string, number>;
  waitFor(ids: string[], timeoutMs: number): Promise<void>;
  stop(): void;
}

async function startReceiver(): Promise<Receiver> {
  const child = spawn(process.execPath, ['--import', 'tsx', SELF, 'receiver'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const answered = new Map<string, number>();
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`receiver exited (${code})`)));
    lines.on('line', (line) => {
      const [a, b] = line.split(' ');
      if (a === 'port') resolve(Number(b));
      else answered.set(a, Number(b));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    answered,
    waitFor: async (ids, timeoutMs) => {
      const deadline = Date.now() + timeoutMs;
      while (ids.some((id) => !answered.has(id))) {
        if (Date.now() > deadline) throw new Error(`receiver: ${ids.filter((id) => !answered.has(id)).length} deliveries missing after ${timeoutMs} ms`);
        await sleep(20);
      }
    },
    stop: () => child.kill('SIGTERM'),
  };
}

// ---------------------------------------------------------------- service side

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Raises one case.decided in its own transaction; returns its delivery id and the commit time. */
async function raise(db: Database['db'], tenant: Tenant, n: number): Promise<{ id: string; committedAt: number }> {
  const emitted = await db.transaction((tx) =>
    emitEvent(
      tx,
      tenant,
      { type: 'case.decided', object: { id: newId('case'), type: 'case', external_ref: `bench-${n}`, flow_name: 'standard' }, data: { outcome: 'approved', reason_code: null } },
      new Date(),
    ),
  );
  return { id: emitted.deliveryIds[0], committedAt: Date.now() };
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Figures {
  rate_target_per_s: number;
  rate_achieved_per_s: number;
  events: number;
  p50_ms: number;
  p99_ms: number;
  max_ms: number;
  /** CPU time of this process (database, code raising events, dispatcher) per event in the steady phase. */
  cpu_ms_per_event: number;
  backlog: number;
  deliveries_per_s: number;
}

async function benchBackend(backend: Backend): Promise<Figures> {
  let database: Database;
  let cleanup: () => Promise<void>;
  if (backend === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'idv-bench-webhooks-'));
    database = await openDatabase({ kind: 'pglite', dataDir: dir });
    cleanup = async () => {
      await database.close();
      rmSync(dir, { recursive: true, force: true });
    };
  } else {
    const { url, dropDb } = await createPostgresDatabase();
    database = await openDatabase({ kind: 'postgres', url, poolSize: 10 });
    cleanup = async () => {
      await database.close();
      await dropDb();
    };
  }
  const receiver = await startReceiver();
  const keyring = new MasterKeyring(Buffer.from(generateMasterKey(), 'base64'));
  const dispatcherFor = () =>
    new WebhookDispatcher({ db: database.db, keyring, settings: DEFAULT_WEBHOOK_SETTINGS, listen: database.listen });
  try {
    const now = new Date();
    const client = await createClient(database.db, 'Bench client', now);
    const tenant: Tenant = { clientId: client.id, environment: 'sandbox' };
    const endpointId = newId('whe');
    await insertWebhookEndpoint(database.db, {
      id: endpointId,
      ...tenant,
      url: receiver.url,
      events: ['case.decided'],
      secretSealed: keyring.seal('whsec_bench', `webhook_endpoint:${endpointId}:secret`),
      status: 'active',
      createdBy: 'bench',
      createdAt: now,
      updatedAt: now,
    });

    let dispatcher = dispatcherFor();
    await dispatcher.start();
    const warm = await Promise.all(Array.from({ length: WARMUP }, (_, i) => raise(database.db, tenant, i)));
    await receiver.waitFor(warm.map((w) => w.id), 60_000);

    // Steady rate: event i is raised at start + i / RATE, whatever the previous ones cost.
    const total = Math.round(SECONDS * RATE);
    const cpuBefore = process.cpuUsage();
    const started = Date.now();
    const raised: Promise<{ id: string; committedAt: number }>[] = [];
    for (let i = 0; i < total; i++) {
      const due = started + (i * 1000) / RATE;
      const wait = due - Date.now();
      if (wait > 0) await sleep(wait);
      raised.push(raise(database.db, tenant, WARMUP + i));
    }
    const events = await Promise.all(raised);
    const emitSeconds = (events.reduce((m, e) => Math.max(m, e.committedAt), 0) - started) / 1000;
    await receiver.waitFor(events.map((e) => e.id), 120_000);
    const cpu = process.cpuUsage(cpuBefore);
    const latencies = events.map((e) => receiver.answered.get(e.id)! - e.committedAt).sort((a, b) => a - b);

    // Backlog: committed while no dispatcher runs, then drained.
    await dispatcher.stop();
    const backlog: string[] = [];
    for (let i = 0; i < BACKLOG; i += 100) {
      const ids = await database.db.transaction(async (tx) => {
        const out: string[] = [];
        for (let j = i; j < Math.min(BACKLOG, i + 100); j++) {
          const e = await emitEvent(
            tx,
            tenant,
            { type: 'case.decided', object: { id: newId('case'), type: 'case', external_ref: `backlog-${j}`, flow_name: 'standard' }, data: { outcome: 'approved', reason_code: null } },
            new Date(),
          );
          out.push(e.deliveryIds[0]);
        }
        return out;
      });
      backlog.push(...ids);
    }
    dispatcher = dispatcherFor();
    const drainStart = Date.now();
    await dispatcher.start();
    await receiver.waitFor(backlog, 300_000);
    const drainSeconds = (Math.max(...backlog.map((id) => receiver.answered.get(id)!)) - drainStart) / 1000;
    await dispatcher.stop();

    return {
      rate_target_per_s: RATE,
      rate_achieved_per_s: round(total / emitSeconds),
      events: total,
      p50_ms: round(percentile(latencies, 50)),
      p99_ms: round(percentile(latencies, 99)),
      max_ms: round(latencies[latencies.length - 1]),
      cpu_ms_per_event: round((cpu.user + cpu.system) / 1000 / total),
      backlog: BACKLOG,
      deliveries_per_s: round(BACKLOG / drainSeconds),
    };
  } finally {
    receiver.stop();
    await cleanup();
  }
}

const round = (n: number) => Math.round(n * 10) / 10;

async function main(): Promise<void> {
  const results: Partial<Record<Backend, Figures>> = {};
  for (const backend of BACKENDS) {
    process.stderr.write(`${backend}: warm-up, ${SECONDS} s at ${RATE} events/s, then a backlog of ${BACKLOG}…\n`);
    results[backend] = await benchBackend(backend);
  }
  const header = ['backend', `events at ${RATE}/s`, 'achieved/s', 'p50 ms', 'p99 ms', 'max ms', 'cpu ms/event', 'backlog', 'deliveries/s', 'p99 < 1 s'];
  const rows = [header];
  for (const [backend, f] of Object.entries(results) as [Backend, Figures][]) {
    rows.push([backend, String(f.events), String(f.rate_achieved_per_s), String(f.p50_ms), String(f.p99_ms), String(f.max_ms), String(f.cpu_ms_per_event), String(f.backlog), String(f.deliveries_per_s), f.p99_ms < 1000 ? 'yes' : 'NO']);
  }
  const widths = header.map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log('');
  for (const r of rows) console.log(r.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  console.log(
    `\nlatency: commit of the transaction raising the event → receiver's 2xx written; dispatcher defaults ` +
      `(concurrency ${DEFAULT_WEBHOOK_SETTINGS.concurrency}, poll ${DEFAULT_WEBHOOK_SETTINGS.pollMs} ms, woken by NOTIFY); target p99 < 1000 ms at 200 events/s`,
  );
  console.log(JSON.stringify({ bench: 'webhooks', target: { rate_per_s: 200, p99_ms: 1000 }, ...results }));
}

if (process.argv[2] === 'receiver') runReceiver();
else
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
