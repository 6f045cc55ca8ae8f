/**
 * `npm run bench:api`: signed case creations per second and p50/p99 latency at 50 concurrent
 * connections against the real service (its own process), beside a baseline measured in the same
 * run (a bare Fastify route doing one INSERT into the same kind of database, also its own
 * process), on PGlite and on PostgreSQL. Ends with one line of JSON holding every figure.
 *
 * The machine is shared and noisy, so both servers run side by side (the idle one costs nothing)
 * and the measurement alternates between them in short rounds: a slow drift of the background
 * load then weighs on both figures alike, and their ratio stays meaningful.
 *
 * Environment: BENCH_SECONDS (measured per target, default 10, split into BENCH_ROUNDS rounds,
 * default 4), BENCH_WARMUP_SECONDS (per target, default 3), BENCH_CONNECTIONS (default 50),
 * BENCH_BACKENDS (default "pglite,postgres"),
 * BENCH_PROFILE_DIR (servers run with --cpu-prof into that folder), TEST_DATABASE_URL (the
 * PostgreSQL server; a fresh database is created on it for the run and dropped after).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { signedHeaders } from '@idv/sdk';
import { generateMasterKey } from '@idv/vault';
import { createPostgresDatabase } from '../tests/helpers/database.ts';
import { freePort } from '../tests/helpers/processes.ts';
import { cleanUp, onCleanUp, startServer as startProcess, stop, type Server } from './service-processes.ts';

type Backend = 'pglite' | 'postgres';
type Target = 'ours' | 'baseline';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as Backend[];
const PROFILE_DIR = process.env.BENCH_PROFILE_DIR;
const PATH = '/v1/cases';
const RUN = randomBytes(4).toString('hex');

interface Measure {
  rps: number;
  p50: number;
  p99: number;
  created: number;
  seconds: number;
}

/** One autocannon run: every response was a 201. */
interface Run {
  latencies: number[];
  created: number;
  seconds: number;
}

// ---------------------------------------------------------------- processes

/** The service or the baseline, with a CPU profile per process when BENCH_PROFILE_DIR is set (written at SIGTERM). */
function startServer(name: string, entry: string, env: Record<string, string>): Promise<Server> {
  return startProcess(name, entry, env, { nodeArgs: PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${join(PROFILE_DIR, name)}`] : [] });
}

// ---------------------------------------------------------------- load

interface Credentials {
  secret: string;
  signingSecret: string;
}

let counter = 0;

/** Responses counted from this long after a run starts: the steady state, not the filling of the pipeline. */
const RAMP_SECONDS = 0.5;
/** Creation must stay at this fraction of the bare INSERT's rate, on each backend. */
const TARGET = 0.4;

/**
 * One autocannon run of `seconds` at CONNECTIONS connections. Every request carries a unique
 * Idempotency-Key, a unique external_ref and a fresh v2 signature (the baseline receives the same
 * requests). Throws if any response is not 201, or on any socket error or timeout.
 *
 * Only responses after the first RAMP_SECONDS count towards the rate and latencies: in that
 * window the rate is completions over time in the steady state, which neither the filling of the
 * pipeline at the start nor the requests left half done at the stop distorts (both would weigh
 * more on a slower target, whose requests pass through the database four times).
 */
function load(url: string, creds: Credentials, seconds: number): Promise<Run & { all: number }> {
  const latencies: number[] = [];
  const statuses = new Map<number, number>();
  let all = 0;
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const from = started + BigInt(Math.round(RAMP_SECONDS * 1e9));
    const instance = autocannon(
      {
        url,
        connections: CONNECTIONS,
        pipelining: 1,
        duration: seconds + RAMP_SECONDS,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            path: PATH,
            setupRequest: (req) => {
              const n = ++counter;
              const body = JSON.stringify({ flow_name: 'standard', country: 'FR', external_ref: `bench-${RUN}-${n}` });
              req.headers = {
                authorization: `Bearer ${creds.secret}`,
                'content-type': 'application/json',
                ...signedHeaders(creds.signingSecret, 'POST', PATH, body, `bench-${RUN}-${n}`),
              };
              req.body = body;
              return req;
            },
          },
        ],
      },
      (err, result) => {
        const elapsed = Number(process.hrtime.bigint() - from) / 1e9;
        if (err) return reject(err);
        const others = [...statuses].filter(([code]) => code !== 201);
        if (others.length > 0 || result.errors > 0 || result.timeouts > 0 || latencies.length === 0) {
          return reject(
            new Error(
              `${url}: ${statuses.get(201) ?? 0} × 201, other statuses ${JSON.stringify(Object.fromEntries(others))}, ` +
                `${result.errors} errors, ${result.timeouts} timeouts: a benchmark of errors is worthless`,
            ),
          );
        }
        resolve({ latencies, created: latencies.length, seconds: elapsed, all });
      },
    );
    instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      all += 1;
      if (status === 201 && process.hrtime.bigint() >= from) latencies.push(ms);
    });
  });
}

function quantile(sorted: number[], q: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Pools the rounds of one target: throughput over the time measured, latency over every response. */
function summarise(runs: Run[]): Measure {
  const latencies = runs.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const created = runs.reduce((n, r) => n + r.created, 0);
  const seconds = runs.reduce((n, r) => n + r.seconds, 0);
  return { rps: created / seconds, p50: quantile(latencies, 0.5), p99: quantile(latencies, 0.99), created, seconds };
}

/**
 * Waits until the server has answered what a run left in flight (its database queue is first in,
 * first out), so that this work does not run during the other target's round.
 */
async function settle(url: string): Promise<void> {
  const res = await fetch(`${url}/readyz`);
  if (!res.ok) throw new Error(`${url}/readyz answered ${res.status} after a run`);
  await new Promise((r) => setTimeout(r, 200));
}

/**
 * Warm-up of each target (JIT, pools, caches), then ROUNDS rounds alternating between the two
 * (ours, baseline, then baseline, ours, …) of SECONDS / ROUNDS each. Every response must be a 201.
 */
async function measurePair(
  targets: Record<Target, string>,
  creds: Credentials,
): Promise<Record<Target, Measure & { createdTotal: number; runs: number }>> {
  const runs: Record<Target, Run[]> = { ours: [], baseline: [] };
  const createdTotal: Record<Target, number> = { ours: 0, baseline: 0 };
  process.stderr.write(`  warm-up ${WARMUP_SECONDS} s each`);
  for (const target of ['ours', 'baseline'] as Target[]) {
    createdTotal[target] += (await load(targets[target], creds, WARMUP_SECONDS)).all;
    await settle(targets[target]);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order: Target[] = round % 2 === 0 ? ['ours', 'baseline'] : ['baseline', 'ours'];
    for (const target of order) {
      const run = await load(targets[target], creds, SECONDS / ROUNDS);
      await settle(targets[target]);
      runs[target].push(run);
      createdTotal[target] += run.all;
    }
    const last = (t: Target) => (runs[t].at(-1)!.created / runs[t].at(-1)!.seconds).toFixed(0);
    process.stderr.write(` · round ${round + 1}/${ROUNDS}: ours ${last('ours')}/s, baseline ${last('baseline')}/s`);
  }
  process.stderr.write('\n');
  return {
    ours: { ...summarise(runs.ours), createdTotal: createdTotal.ours, runs: ROUNDS + 1 },
    baseline: { ...summarise(runs.baseline), createdTotal: createdTotal.baseline, runs: ROUNDS + 1 },
  };
}

// ---------------------------------------------------------------- correctness of what was stored

/**
 * Rows written by all the runs on one target: at least one per 201 received, and at most
 * CONNECTIONS more per run (requests in flight when a run stops complete anyway).
 */
function checkRows(label: string, rows: Counted, created: number, runs: number): void {
  if (rows.n !== rows.total) throw new Error(`${label}: ${rows.total} rows stored but only ${rows.n} complete`);
  if (rows.n < created || rows.n > created + runs * CONNECTIONS) {
    throw new Error(`${label}: ${created} × 201 received but ${rows.n} rows stored`);
  }
}

interface Counted {
  n: number;
  total: number;
}

async function countPglite(dataDir: string, query: string): Promise<Counted> {
  const db = await PGlite.create(join(dataDir, 'pgdata'));
  try {
    const { rows } = await db.query<Counted>(query);
    return { n: Number(rows[0].n), total: Number(rows[0].total) };
  } finally {
    await db.close();
  }
}

async function countPostgres(url: string, query: string): Promise<Counted> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    const { rows } = await c.query<Counted>(query);
    return { n: Number(rows[0].n), total: Number(rows[0].total) };
  } finally {
    await c.end();
  }
}

/** Cases that have their journal entry and their stored idempotent response; `total` counts all cases. */
const OURS_ROWS = `SELECT count(*)::int AS n, (SELECT count(*)::int FROM cases) AS total FROM cases c
  JOIN case_journal j ON j.case_id = c.id AND j.action = 'case.created'
  JOIN idempotency_keys k ON k.key = c.external_ref AND k.state = 'done' AND k.response_status = 201`;
const BASELINE_ROWS = 'SELECT count(*)::int AS n, count(*)::int AS total FROM bench_baseline';

// ---------------------------------------------------------------- one backend

interface BackendResult {
  ours: Measure;
  baseline: Measure;
}

/**
 * Waits until the service's checks are warm (`/readyz`): the worker's warm-up takes the cores for
 * seconds after a start, which would be measured as creation cost; creations themselves start
 * no check.
 */
async function checksWarm(url: string): Promise<void> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/readyz`).catch(() => null);
    const checks = res ? ((await res.json()) as { checks?: string }).checks : undefined;
    if (checks === 'warm' || checks === 'not_running') return;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error('bench:api: the service\'s checks were not warm after 5 minutes');
}

async function runBackend(backend: Backend): Promise<BackendResult> {
  console.error(`${backend}:`);
  let databaseUrl: string | null = null;
  if (backend === 'postgres') {
    const { url, dropDb } = await createPostgresDatabase();
    databaseUrl = url;
    onCleanUp(dropDb);
  }
  const oursDir = mkdtempSync(join(tmpdir(), `bench-api-${backend}-`));
  const baseDir = mkdtempSync(join(tmpdir(), `bench-base-${backend}-`));
  onCleanUp(() => rmSync(oursDir, { recursive: true, force: true }), () => rmSync(baseDir, { recursive: true, force: true }));
  const docsPort = await freePort();

  // The benchmark measures the service, not its rate limiter (docs/rate-limits.md): limits off.
  const oursEnv: Record<string, string> = { DATA_DIR: oursDir, DOCS_URL: `http://127.0.0.1:${docsPort}`, RATE_LIMIT_ENABLED: 'false' };
  if (databaseUrl) Object.assign(oursEnv, { DATABASE_URL: databaseUrl, MASTER_KEY: generateMasterKey() });
  const ours = await startServer(`ours-${backend}`, 'apps/server/src/main.ts', oursEnv);
  await checksWarm(ours.url);
  const baseEnv: Record<string, string> = databaseUrl ? { DATABASE_URL: databaseUrl } : { DATA_DIR: baseDir };
  const base = await startServer(`baseline-${backend}`, 'bench/baseline-server.ts', baseEnv);
  const boot = JSON.parse(readFileSync(join(oursDir, 'bootstrap-credentials.json'), 'utf8')) as {
    api_key: { secret: string; signing_secret: string };
  };
  const creds = { secret: boot.api_key.secret, signingSecret: boot.api_key.signing_secret };
  const m = await measurePair({ ours: ours.url, baseline: base.url }, creds);
  await stop(ours.child);
  await stop(base.child);
  checkRows(
    `ours on ${backend}`,
    databaseUrl ? await countPostgres(databaseUrl, OURS_ROWS) : await countPglite(oursDir, OURS_ROWS),
    m.ours.createdTotal,
    m.ours.runs,
  );
  checkRows(
    `baseline on ${backend}`,
    databaseUrl ? await countPostgres(databaseUrl, BASELINE_ROWS) : await countPglite(baseDir, BASELINE_ROWS),
    m.baseline.createdTotal,
    m.baseline.runs,
  );
  return { ours: m.ours, baseline: m.baseline };
}

// ---------------------------------------------------------------- report

const r1 = (n: number) => Math.round(n * 10) / 10;
const r2 = (n: number) => Math.round(n * 100) / 100;
const r3 = (n: number) => Math.round(n * 1000) / 1000;

async function main(): Promise<void> {
  console.error(`bench:api — ${CONNECTIONS} connections; per target ${WARMUP_SECONDS} s warm-up, then ${SECONDS} s measured in ${ROUNDS} alternating rounds`);
  const results: Partial<Record<Backend, BackendResult>> = {};
  for (const backend of BACKENDS) results[backend] = await runBackend(backend);
  await cleanUp();

  const rows: string[][] = [['backend', 'target', 'creations/s', 'p50 ms', 'p99 ms', '201s', 'ratio']];
  const json: Record<string, Record<string, number>> = {};
  for (const backend of BACKENDS) {
    const { ours, baseline } = results[backend]!;
    const ratio = ours.rps / baseline.rps;
    for (const [target, m] of [['ours', ours], ['baseline', baseline]] as [Target, Measure][]) {
      rows.push([backend, target, r1(m.rps).toFixed(1), r2(m.p50).toFixed(2), r2(m.p99).toFixed(2), String(m.created), target === 'ours' ? `ratio=${r3(ratio)}` : '']);
    }
    json[backend] = {
      ours_rps: r1(ours.rps),
      ours_p50_ms: r2(ours.p50),
      ours_p99_ms: r2(ours.p99),
      baseline_rps: r1(baseline.rps),
      baseline_p50_ms: r2(baseline.p50),
      baseline_p99_ms: r2(baseline.p99),
      ratio: r3(ratio),
    };
  }
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
  console.log('');
  for (const r of rows) console.log(r.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  '));
  console.log(`\nours = signed, idempotent POST ${PATH} on the real service; baseline = bare Fastify + one INSERT; every response a 201,`);
  console.log(`every 201 found stored (case + journal entry + idempotent response; baseline row). Target: ratio >= ${TARGET} on each backend:`);
  console.log(BACKENDS.map((b) => `${b} ${json[b].ratio >= TARGET ? 'met' : 'NOT met'} (ratio=${json[b].ratio})`).join(', '));
  console.log(JSON.stringify(json));
}

main().catch(async (err) => {
  console.error(`\nbench:api failed: ${err instanceof Error ? err.message : err}`);
  await cleanUp();
  process.exit(1);
});
