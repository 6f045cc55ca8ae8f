/**
 * `npm run bench:reviews`: latency of the review queue (GET /v1/reviews, and the summary) with
 * 100,000 tasks in the database, on PGlite and on PostgreSQL. The real app answers through
 * Fastify's inject (auth, console credential, operator read from the database, clearance filter,
 * query, presentation), so the figures are the service's own time without the network.
 * Target: p99 under 50 ms on PostgreSQL. Ends with one line of JSON holding every figure.
 *
 * Environment: BENCH_TASKS (default 100000), BENCH_REQUESTS (per measure, default 300),
 * BENCH_BACKENDS (default "pglite,postgres"), TEST_DATABASE_URL (the PostgreSQL server; a fresh
 * database is created on it for the run and dropped after).
 */
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { build } from '@idv/api';
import { insertOperator, openDatabase, queryRows, type Database, type OperatorRow, type Tenant } from '@idv/db';
import { newId, type OperatorRole, type Sensitivity } from '@idv/domain';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import { loadConfig } from '@idv/config';
import { bootstrapDemoClient } from '../apps/api/src/bootstrap.ts';
import { issueApiKey } from '../apps/api/src/services/api-keys.ts';
import { createPostgresDatabase } from '../tests/helpers/database.ts';
import { seedReviewTasks } from './review-tasks-seed.ts';

type Backend = 'pglite' | 'postgres';
const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 300);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as Backend[];
const WARMUP = 30;

interface Figures {
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  requests: number;
}

function figures(samples: number[]): Figures {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)];
  const round = (v: number) => Math.round(v * 100) / 100;
  return { p50_ms: round(at(0.5)), p99_ms: round(at(0.99)), mean_ms: round(samples.reduce((a, b) => a + b, 0) / samples.length), requests: samples.length };
}

async function operator(database: Database, tenant: Tenant, role: OperatorRole, countries: string[], sensitivity: Sensitivity, now: Date): Promise<OperatorRow> {
  return insertOperator(database.db, {
    id: newId('op', now.getTime()),
    ...tenant,
    name: `bench ${role}`,
    role,
    countries,
    sensitivity,
    status: 'active',
    subject: `bench-${role}-${countries.join('')}`,
    createdBy: 'bench',
    createdAt: now,
    updatedAt: now,
  });
}

async function runBackend(backend: Backend): Promise<Record<string, Figures | number>> {
  let database: Database;
  let dropDb = async () => {};
  if (backend === 'pglite') {
    database = await openDatabase({ kind: 'pglite', memory: true });
  } else {
    const created = await createPostgresDatabase();
    dropDb = created.dropDb;
    database = await openDatabase({ kind: 'postgres', url: created.url, poolSize: 10 });
  }
  try {
    const keyring = new MasterKeyring(Buffer.from(generateMasterKey(), 'base64'));
    const now = new Date();
    const demo = (await bootstrapDemoClient(database.db, keyring, now))!;
    const tenant: Tenant = { clientId: demo.client_id, environment: 'sandbox' };
    const [flow] = await queryRows<{ id: string }>(database.db, sql`SELECT id FROM flows LIMIT 1`);
    const started = performance.now();
    await seedReviewTasks(database, tenant, flow.id, now, TASKS);
    const seedS = Math.round((performance.now() - started) / 100) / 10;
    const consoleKey = await issueApiKey(database.db, keyring, { ...tenant, kind: 'console', permissions: [], createdBy: 'bench', now });
    const admin = await operator(database, tenant, 'administrator', ['*'], 'restricted', now);
    const reviewer = await operator(database, tenant, 'reviewer', ['FR', 'DE'], 'standard', now);
    // The benchmark measures the service, not its rate limiter (docs/rate-limits.md): limits off.
    const config = loadConfig({ LOG_LEVEL: 'silent', DOCS_URL: 'http://docs.bench', RATE_LIMIT_ENABLED: 'false' });
    const { app } = await build({ config, db: database.db, keyring, logger: false });

    const call = async (op: OperatorRow, url: string) => {
      const t0 = performance.now();
      const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${consoleKey.secret}`, 'x-service-operator': op.id } });
      const ms = performance.now() - t0;
      if (res.statusCode !== 200) throw new Error(`${url}: ${res.statusCode} ${res.body}`);
      return { ms, body: res.json() as { next_cursor?: string | null; data?: unknown[] } };
    };
    const measure = async (fn: (i: number) => Promise<number>) => {
      for (let i = 0; i < WARMUP; i++) await fn(i);
      const samples: number[] = [];
      for (let i = 0; i < REQUESTS; i++) samples.push(await fn(i));
      return figures(samples);
    };

    // Cursors of the first 20 pages, to measure pages deep in the queue as well as the first.
    const cursors: string[] = [];
    let cursor: string | null | undefined = null;
    for (let i = 0; i < 20; i++) {
      const { body } = await call(admin, `/v1/reviews?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      cursor = body.next_cursor;
      if (!cursor) break;
      cursors.push(cursor);
    }
    const result = {
      seed_s: seedS,
      first_page_administrator: await measure(async () => (await call(admin, '/v1/reviews?limit=50')).ms),
      later_pages_administrator: await measure(async (i) => (await call(admin, `/v1/reviews?limit=50&cursor=${encodeURIComponent(cursors[i % cursors.length])}`)).ms),
      first_page_reviewer_fr_de_standard: await measure(async () => (await call(reviewer, '/v1/reviews?limit=50')).ms),
      status_filter_second_validation: await measure(async () => (await call(admin, '/v1/reviews?limit=50&status=second_validation')).ms),
      first_page_limit_100: await measure(async () => (await call(admin, '/v1/reviews?limit=100')).ms),
      summary_administrator: await measure(async () => (await call(admin, '/v1/reviews/summary')).ms),
    };
    await app.close();
    return result;
  } finally {
    await database.close();
    await dropDb();
  }
}

const results: Record<string, unknown> = {};
for (const backend of BACKENDS) {
  console.error(`seeding ${TASKS} tasks on ${backend} and measuring…`);
  results[backend] = await runBackend(backend);
}

const rows: string[][] = [['backend', 'measure', 'p50 ms', 'p99 ms', 'mean ms', 'requests']];
for (const [backend, r] of Object.entries(results) as [string, Record<string, Figures | number>][]) {
  for (const [name, f] of Object.entries(r)) {
    if (typeof f === 'number') continue;
    rows.push([backend, name, String(f.p50_ms), String(f.p99_ms), String(f.mean_ms), String(f.requests)]);
  }
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => r[i].length)));
console.log(`Review queue with ${TASKS} tasks (${REQUESTS} requests per measure after ${WARMUP} warm-up; in-process inject, one at a time)`);
for (const r of rows) console.log(r.map((c, i) => c.padEnd(widths[i])).join('  '));
const pg = results.postgres as Record<string, Figures> | undefined;
const target = pg ? Math.max(pg.first_page_administrator.p99_ms, pg.later_pages_administrator.p99_ms, pg.first_page_reviewer_fr_de_standard.p99_ms) : null;
if (target !== null) console.log(`PostgreSQL queue listing p99 (worst of the listing measures): ${target} ms — target under 50 ms: ${target < 50 ? 'met' : 'NOT met'}`);
console.log(JSON.stringify({ bench: 'reviews', tasks: TASKS, requests_per_measure: REQUESTS, results, postgres_listing_p99_ms: target, target_p99_ms: 50 }));
