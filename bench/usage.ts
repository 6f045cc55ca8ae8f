/**
 * `npm run bench:usage`: a month of 1,000,000 measured units, on the real service in its own
 * process over real HTTP.
 *
 * - Export: `GET /v1/usage/export` read to the end as fast as the client can, its seconds, and the
 *   service process's peak resident memory during the export above its resident memory just
 *   before (sampled from outside, /proc/<pid>/status every 5 ms). Every line is counted: the
 *   export must hold the million units plus its header. Then a second export in the same process,
 *   its own seconds and peak (a peak that keeps rising would be memory left behind).
 * - Read: `GET /v1/usage` for that month, sequentially (after a warm-up), p50 and p99 latency,
 *   beside a baseline keyed read measured in alternation; the totals must add up to the million.
 *
 * Targets: peak memory growth under 100 MB during the export; usage read p99 <= 50 ms on
 * PostgreSQL. The units are seeded by INSERT … SELECT generate_series (the month's totals with
 * them), the way recordUsage leaves them, then ANALYZE.
 *
 * Environment: BENCH_UNITS (default 1000000), BENCH_READS (default 1000), BENCH_BACKENDS
 * (default "postgres,pglite"), TEST_DATABASE_URL (the PostgreSQL server; a fresh database is
 * created for the run and dropped after). The service gets this process's environment, so a
 * request-rate limit, once there is one, is raised or turned off by setting its variable when
 * running the bench; a 429 fails the run rather than skewing the figures.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database, type Environment } from '@idv/db';
import { generateMasterKey } from '@idv/vault';
import { parsePeriod, periodOf, USAGE_SERVICES } from '@idv/domain';
import { createPostgresDatabase } from '../tests/helpers/database.ts';
import { cleanUp, onCleanUp, startServer, stop, type Server } from './service-processes.ts';

type Backend = 'pglite' | 'postgres';

const UNITS = Number(process.env.BENCH_UNITS ?? 1_000_000);
const READS = Number(process.env.BENCH_READS ?? 1000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'postgres,pglite').split(',') as Backend[];
const PERIOD = periodOf(new Date());

// ---------------------------------------------------------------- the service process

/** The API alone (`--api-only`), node itself as the child (its pid is the service's). */
const startService = (env: Record<string, string>): Promise<Server> =>
  startServer('the service', 'apps/server/src/main.ts', env, { args: ['--api-only'], readyTimeoutS: 120 });

/** Resident memory of a process, in bytes (Linux). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

// ---------------------------------------------------------------- seed

/**
 * `count` units of the tenant in the month, spread evenly over it: 70% verifications, 15%
 * reviews, 10% resubmissions, 5% erasures; then the month's totals (one slot per service) and
 * ANALYZE.
 */
async function seedUnits(database: Database, tenant: { clientId: string; environment: Environment }, count: number): Promise<void> {
  const { start, end } = parsePeriod(PERIOD)!;
  const step = (end.getTime() - start.getTime()) / count;
  await database.db.execute(sql`
    INSERT INTO usage_units (source_key, client_id, environment, service, case_id, quantity, occurred_at)
    SELECT s.service || ':case_' || lpad(to_hex(g), 26, '0'), ${tenant.clientId}, ${tenant.environment}, s.service,
           'case_' || lpad(to_hex(g), 26, '0'), 1, ${start.toISOString()}::timestamptz + g * ${step}::float8 * interval '1 millisecond'
    FROM generate_series(0, ${count - 1}) AS g,
         LATERAL (SELECT CASE WHEN g % 20 < 14 THEN 'verification' WHEN g % 20 < 17 THEN 'review'
                              WHEN g % 20 < 19 THEN 'resubmission' ELSE 'erasure' END AS service) AS s`);
  await database.db.execute(sql`
    INSERT INTO usage_monthly (client_id, environment, period, service, slot, quantity)
    SELECT client_id, environment, ${PERIOD}, service, 0, sum(quantity) FROM usage_units
    WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment} GROUP BY client_id, environment, service`);
  await database.db.execute(sql`ANALYZE usage_units`);
  await database.db.execute(sql`ANALYZE usage_monthly`);
}

// ---------------------------------------------------------------- measures

interface ExportMeasure {
  seconds: number;
  lines: number;
  bytes: number;
  rssBeforeMb: number;
  rssPeakMb: number;
  rssGrowthMb: number;
}

async function measureExport(server: Server, secret: string): Promise<ExportMeasure> {
  const pid = server.child.pid!;
  const headers = { authorization: `Bearer ${secret}` };
  // Warm-up: the route's code loaded and compiled, a first page read.
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${server.url}/v1/usage/export?period=${PERIOD}`, { headers });
    if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
    const reader = res.body!.getReader();
    await reader.read();
    await reader.cancel();
  }
  await new Promise((r) => setTimeout(r, 2000));
  const before = rssOf(pid);
  let peak = before;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // the process is gone: the export below fails and says so
    }
  }, 5);
  const started = performance.now();
  const res = await fetch(`${server.url}/v1/usage/export?period=${PERIOD}`, { headers });
  if (res.status !== 200) throw new Error(`export: ${res.status} ${await res.text()}`);
  let lines = 0;
  let bytes = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    bytes += chunk.length;
    for (let i = 0; i < chunk.length; i++) if (chunk[i] === 10) lines += 1;
  }
  const seconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(pid));
  if (lines !== UNITS + 1) throw new Error(`the export holds ${lines} lines, expected ${UNITS} units and a header`);
  const mb = (n: number) => Math.round((n / 1048576) * 10) / 10;
  return { seconds: Math.round(seconds * 100) / 100, lines, bytes, rssBeforeMb: mb(before), rssPeakMb: mb(peak), rssGrowthMb: mb(peak - before) };
}

interface Latency {
  p50: number;
  p99: number;
  max: number;
}

/**
 * The month's usage read READS times, one request at a time, alternating with a baseline: another
 * keyed read of the same service (the first page of webhook endpoints: the key check and one
 * indexed query), so that what the shared machine's load does to latency shows in both figures.
 */
async function measureReads(server: Server, secret: string): Promise<{ usage: Latency; baseline: Latency }> {
  const headers = { authorization: `Bearer ${secret}` };
  const get = async (path: string) => {
    const res = await fetch(`${server.url}${path}`, { headers });
    const body = (await res.json()) as { services: Record<string, number> };
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    return body;
  };
  const usagePath = `/v1/usage?period=${PERIOD}`;
  const baselinePath = '/v1/webhook-endpoints?limit=1';
  for (let i = 0; i < 100; i++) await Promise.all([get(usagePath), get(baselinePath)]);
  const first = await get(usagePath);
  const total = USAGE_SERVICES.reduce((s, k) => s + first.services[k], 0);
  if (total !== UNITS) throw new Error(`the month's totals add up to ${total}, expected ${UNITS}`);
  const times: Record<'usage' | 'baseline', number[]> = { usage: [], baseline: [] };
  for (let i = 0; i < READS; i++) {
    for (const [which, path] of [['usage', usagePath], ['baseline', baselinePath]] as const) {
      const t0 = performance.now();
      await get(path);
      times[which].push(performance.now() - t0);
    }
  }
  const summary = (latencies: number[]): Latency => {
    latencies.sort((a, b) => a - b);
    const at = (q: number) => Math.round(latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] * 100) / 100;
    return { p50: at(0.5), p99: at(0.99), max: at(1) };
  };
  return { usage: summary(times.usage), baseline: summary(times.baseline) };
}

// ---------------------------------------------------------------- one backend

interface Result extends ExportMeasure {
  seedSeconds: number;
  reads: { usage: Latency; baseline: Latency };
  again: ExportMeasure;
}

async function runBackend(backend: Backend): Promise<Result> {
  console.error(`${backend}: starting the service`);
  const dataDir = mkdtempSync(join(tmpdir(), `bench-usage-${backend}-`));
  onCleanUp(() => rmSync(dataDir, { recursive: true, force: true }));
  const env: Record<string, string> = { DATA_DIR: dataDir };
  if (backend === 'postgres') {
    const { url, dropDb } = await createPostgresDatabase();
    onCleanUp(dropDb);
    Object.assign(env, { DATABASE_URL: url, MASTER_KEY: generateMasterKey() });
  }
  // A first start migrates and bootstraps the demo client; its units are then seeded (on the
  // embedded database the service holds the data directory, so it is stopped meanwhile).
  let server = await startService(env);
  const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap-credentials.json'), 'utf8')) as { client_id: string; api_key: { secret: string } };
  const secret = boot.api_key.secret;
  const environment: Environment = boot.api_key.secret.startsWith('sk_live_') ? 'prod' : 'sandbox';
  await stop(server.child);
  console.error(`${backend}: seeding ${UNITS} units in ${PERIOD}`);
  const t0 = performance.now();
  const database = await openDatabase(backend === 'postgres' ? { kind: 'postgres', url: env.DATABASE_URL } : { kind: 'pglite', dataDir });
  await seedUnits(database, { clientId: boot.client_id, environment }, UNITS);
  await database.close();
  const seedSeconds = Math.round((performance.now() - t0) / 100) / 10;
  server = await startService(env);
  console.error(`${backend}: export`);
  const exported = await measureExport(server, secret);
  // A second export in the same process: its peak shows whether the first one left memory behind
  // (growth that adds up) or only sized the heap once (the same peak again).
  console.error(`${backend}: export again`);
  const again = await measureExport(server, secret);
  console.error(`${backend}: ${READS} reads of the month's usage`);
  const reads = await measureReads(server, secret);
  await stop(server.child);
  return { ...exported, seedSeconds, reads, again };
}

async function main(): Promise<void> {
  console.error(`bench:usage — ${UNITS} units in one month; backends ${BACKENDS.join(', ')}`);
  const json: Record<string, Record<string, number>> = {};
  for (const backend of BACKENDS) {
    const r = await runBackend(backend);
    json[backend] = {
      units: UNITS,
      export_seconds: r.seconds,
      export_mb: Math.round((r.bytes / 1048576) * 10) / 10,
      rss_before_mb: r.rssBeforeMb,
      rss_peak_mb: r.rssPeakMb,
      rss_growth_mb: r.rssGrowthMb,
      second_export_seconds: r.again.seconds,
      second_rss_peak_mb: r.again.rssPeakMb,
      usage_read_p50_ms: r.reads.usage.p50,
      usage_read_p99_ms: r.reads.usage.p99,
      usage_read_max_ms: r.reads.usage.max,
      baseline_read_p50_ms: r.reads.baseline.p50,
      baseline_read_p99_ms: r.reads.baseline.p99,
      seed_seconds: r.seedSeconds,
    };
    console.error(JSON.stringify({ [backend]: json[backend] }));
  }
  await cleanUp();
  for (const backend of BACKENDS) {
    const r = json[backend];
    const memory = r.rss_growth_mb < 100 ? 'met' : 'NOT met';
    const read = backend === 'postgres' ? (r.usage_read_p99_ms <= 50 ? 'met' : 'NOT met') : 'no target';
    console.error(`${backend}: export ${r.export_seconds} s, memory growth ${r.rss_growth_mb} MB (< 100: ${memory}); read p99 ${r.usage_read_p99_ms} ms (<= 50: ${read}; baseline keyed read p99 ${r.baseline_read_p99_ms} ms)`);
  }
  console.log(JSON.stringify(json));
}

main().catch(async (err) => {
  console.error(`\nbench:usage failed: ${err instanceof Error ? err.stack : err}`);
  await cleanUp();
  process.exit(1);
});
