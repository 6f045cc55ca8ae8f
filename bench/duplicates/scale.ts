import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import pg from 'pg';
import { FACE_SEARCH } from '../../packages/db/src/repos/face-index.ts';

/**
 * The face index at scale, on synthetic vectors (real faces are too few): search latency p50/p95
 * and recall against an exact scan, on PostgreSQL (pgvector built for it) and on PGlite (its
 * pgvector extension), with the service's own index (HNSW, vector_l2_ops, defaults m=16,
 * ef_construction=64) and search settings (ef_search, iterative scan, k).
 *
 * The vectors: `dimension` numbers, in clusters of five (a person's templates), unit-normalised;
 * the distance within a cluster about 0.55, between clusters about 1.41. Random directions in
 * many dimensions are the hard case for a graph index (real templates lie near a space of far
 * fewer dimensions), so the recall here is a pessimistic figure. Nine rows in ten belong to one
 * tenant, one in ten to a second (the filter the iterative scan has to satisfy).
 * They are made by the database itself (random(), seeded), in batches of 10,000 rows.
 */

export interface Sql {
  query<T>(text: string, params?: unknown[]): Promise<T[]>;
  exec(text: string): Promise<void>;
  close(): Promise<void>;
  /**
   * `maintenance_work_mem` for the index build: enough for the whole graph on PostgreSQL (4 GB;
   * the machine has 23 GB), 1.5 GB on PGlite (its WebAssembly memory is at most 2 GiB, see
   * pgliteLimits).
   */
  buildMemory: string;
  /** What the database's process holds in memory at its peak, read after the run (MB), or null. */
  memory(): Promise<Record<string, number | null>>;
}

/** The PGlite's WebAssembly memory: its current size and the maximum it may grow to. */
interface WasmMemoryHolder {
  Module?: { wasmMemory?: WebAssembly.Memory };
}

export async function pgliteSql(): Promise<Sql & { dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-bench-dup-'));
  const db = await PGlite.create(dir, { extensions: { vector } });
  const heap = () => (db as unknown as WasmMemoryHolder).Module?.wasmMemory?.buffer.byteLength ?? null;
  return {
    dir,
    buildMemory: '1500MB',
    memory: async () => ({
      wasm_heap_mb: mb(heap()),
      process_peak_rss_mb: peakRss('self'),
    }),
    query: async <T,>(text: string, params?: unknown[]) => (await db.query<T>(text, params)).rows,
    exec: async (text: string) => void (await db.exec(text)),
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function postgresSql(serverUrl: string): Promise<Sql> {
  const name = `idv_bench_dup_${process.pid}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const client = new pg.Client({ connectionString: url.toString() });
  await client.connect();
  const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
  return {
    buildMemory: '4GB',
    // The bench's own connection's server process (on this machine; null elsewhere). A parallel
    // index build's shared graph is counted where this process touched it.
    memory: async () => ({ backend_pid: pid, backend_peak_rss_mb: peakRss(pid) }),
    query: async <T,>(text: string, params?: unknown[]) => (await client.query(text, params as unknown[])).rows as T[],
    exec: async (text: string) => void (await client.query(text)),
    close: async () => {
      await client.end();
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.end();
    },
  };
}

/** VmHWM (peak resident memory) of a process of this machine, MB; null when it cannot be read. */
function peakRss(pid: number | 'self'): number | null {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}
const mb = (bytes: number | null) => (bytes === null ? null : Math.round(bytes / 1048576));

/**
 * What stops a million templates in PGlite, probed for real on a fresh (empty) PGlite: the
 * largest `maintenance_work_mem` it accepts (PostgreSQL caps it at 2 GB − 1 kB where `size_t` is
 * 32 bits, as in WebAssembly) and what asking for `graphMb` answers; and its WebAssembly memory's
 * ceiling, found by asking it to grow to 4 GiB (refused, without allocating, past its maximum).
 */
export async function pgliteLimits(graphMb: number): Promise<Record<string, unknown>> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-bench-dup-probe-'));
  const db = await PGlite.create(dir, { extensions: { vector } });
  try {
    const [range] = (await db.query<{ max_val: string; unit: string }>(`SELECT max_val, unit FROM pg_settings WHERE name = 'maintenance_work_mem'`)).rows;
    let setError: string | null = null;
    try {
      await db.exec(`SET maintenance_work_mem = '${Math.ceil(graphMb)}MB'`);
    } catch (err) {
      setError = err instanceof Error ? err.message : String(err);
    }
    const memory = (db as unknown as WasmMemoryHolder).Module?.wasmMemory;
    const pagesBefore = memory ? memory.buffer.byteLength / 65536 : null;
    let growError: string | null = null;
    if (memory && pagesBefore !== null) {
      // To 4 GiB (65,536 pages of 64 kB, WebAssembly's 32-bit limit): refused when the module's
      // declared maximum is lower, and nothing is allocated then.
      try {
        memory.grow(65536 - pagesBefore);
      } catch (err) {
        growError = err instanceof Error ? err.message : String(err);
      }
    }
    return {
      maintenance_work_mem_max_kb: Number(range?.max_val),
      graph_mb_needed: Math.round(graphMb),
      set_maintenance_work_mem_error: setError,
      wasm_heap_mb_at_start: pagesBefore === null ? null : pagesBefore / 16,
      wasm_memory_grow_to_4gib_error: growError,
    };
  } finally {
    await db.close().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface ScaleResult {
  templates: number;
  dimension: number;
  load_s: number;
  index_build_s: number;
  index_mb: number;
  table_mb: number;
  /** ms per search with the service's settings (the tenant holding 90% of the rows, then the one holding 10%). */
  search_ms: { p50: number; p95: number };
  search_small_tenant_ms: { p50: number; p95: number };
  exact_scan_ms: { p50: number; p95: number };
  /** Of the exact scan's k nearest, the share the index returned (k = FACE_SEARCH.k). */
  recall_at_k: number;
  recall_at_k_small_tenant: number;
  /** Of the exact neighbours within 1.0 (the planted same-cluster templates), the share found. */
  recall_close: number;
  insert_ms: { p50: number; p95: number };
  queries: number;
  maintenance_work_mem: string;
  /** Peak memory of the database's process (PostgreSQL: the bench's backend; PGlite: the bench's own process and its WebAssembly heap). */
  memory: Record<string, number | null>;
}

const CLUSTER = 5;
const NOISE = 0.4;
const BATCH = 10_000;

export async function measureScale(db: Sql, n: number, dimension: number, queries: number, log: (line: string) => void): Promise<ScaleResult> {
  await db.exec('CREATE EXTENSION IF NOT EXISTS vector');
  await db.exec(`CREATE TABLE bench_centers (c int PRIMARY KEY, v float4[] NOT NULL)`);
  await db.exec(`CREATE TABLE bench_vectors (id int PRIMARY KEY, tenant int NOT NULL, embedding vector(${dimension}) NOT NULL)`);
  await db.query(`SELECT setseed(0.42)`);
  const clusters = Math.ceil(n / CLUSTER);
  let started = performance.now();
  for (let from = 0; from < clusters; from += BATCH) {
    const to = Math.min(clusters, from + BATCH) - 1;
    await db.exec(
      `INSERT INTO bench_centers SELECT c, (SELECT array_agg((random() - 0.5)::float4) FROM generate_series(1, ${dimension}) WHERE c >= 0) FROM generate_series(${from}, ${to}) c`,
    );
  }
  for (let from = 0; from < n; from += BATCH) {
    const to = Math.min(n, from + BATCH) - 1;
    await db.exec(
      `INSERT INTO bench_vectors
       SELECT i, CASE WHEN i % 10 = 0 THEN 2 ELSE 1 END,
              l2_normalize((SELECT array_agg(x + ${NOISE} * (random()::float4 - 0.5) ORDER BY o) FROM unnest(c.v) WITH ORDINALITY u(x, o))::vector)
       FROM generate_series(${from}, ${to}) i JOIN bench_centers c ON c.c = i / ${CLUSTER}`,
    );
    if ((from / BATCH) % 5 === 4 || to === n - 1) log(`    ${to + 1} vectors (${Math.round((performance.now() - started) / 1000)} s)`);
  }
  const loadS = (performance.now() - started) / 1000;
  await db.exec(`VACUUM ANALYZE bench_vectors`);

  started = performance.now();
  await db.exec(`SET maintenance_work_mem = '${db.buildMemory}'`);
  await db.exec(`CREATE INDEX bench_vectors_hnsw ON bench_vectors USING hnsw (embedding vector_l2_ops)`);
  const buildS = (performance.now() - started) / 1000;
  log(`    index built in ${buildS.toFixed(0)} s`);
  await db.exec(`ANALYZE bench_vectors`);
  const [sizes] = await db.query<{ t: string; i: string }>(
    `SELECT pg_total_relation_size('bench_vectors') - pg_relation_size('bench_vectors_hnsw') AS t, pg_relation_size('bench_vectors_hnsw') AS i`,
  );

  // Queries: stored templates (each searched for with its own row excluded, as a case's own are).
  const pick = async (tenant: number) =>
    db.query<{ id: number; v: string }>(
      `SELECT id, embedding::text AS v FROM bench_vectors WHERE tenant = ${tenant} AND id % 97 = 3 ORDER BY id LIMIT ${queries}`,
    );
  const run = async (rows: Array<{ id: number; v: string }>, tenant: number) => {
    const times: number[] = [];
    const exactTimes: number[] = [];
    let hits = 0;
    let total = 0;
    let closeFound = 0;
    let closeTotal = 0;
    const search = `SELECT id, embedding <-> $1::vector AS d FROM bench_vectors WHERE tenant = $2 AND id <> $3 ORDER BY embedding <-> $1::vector LIMIT ${FACE_SEARCH.k}`;
    for (const row of rows) {
      await db.exec('BEGIN');
      await db.exec(`SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = ${FACE_SEARCH.efSearch}`);
      let t = performance.now();
      const found = await db.query<{ id: number; d: number }>(search, [row.v, tenant, row.id]);
      times.push(performance.now() - t);
      await db.exec('COMMIT');
      await db.exec('BEGIN');
      await db.exec('SET LOCAL enable_indexscan = off');
      t = performance.now();
      const exact = await db.query<{ id: number; d: number }>(search, [row.v, tenant, row.id]);
      exactTimes.push(performance.now() - t);
      await db.exec('COMMIT');
      const got = new Set(found.map((r) => r.id));
      hits += exact.filter((r) => got.has(r.id)).length;
      total += exact.length;
      const close = exact.filter((r) => Number(r.d) < 1.0);
      closeTotal += close.length;
      closeFound += close.filter((r) => got.has(r.id)).length;
    }
    return { times, exactTimes, recall: hits / Math.max(1, total), close: closeTotal ? closeFound / closeTotal : 1 };
  };
  // One warm-up search each way (the index's first pages read).
  const big = await pick(1);
  const small = await pick(2);
  await run(big.slice(0, 2), 1);
  const main = await run(big, 1);
  const minor = await run(small, 2);
  log(`    ${big.length + small.length} searches done`);

  // Inserts into the built index (what each new case costs), one statement each.
  const inserts: number[] = [];
  const sample = big.slice(0, 50);
  for (let i = 0; i < sample.length; i++) {
    const t = performance.now();
    await db.query(`INSERT INTO bench_vectors VALUES ($1, 1, $2::vector)`, [n + i, sample[i]!.v]);
    inserts.push(performance.now() - t);
  }
  return {
    templates: n,
    dimension,
    load_s: r1(loadS),
    index_build_s: r1(buildS),
    index_mb: Math.round(Number(sizes!.i) / 1e6),
    table_mb: Math.round(Number(sizes!.t) / 1e6),
    search_ms: spread(main.times),
    search_small_tenant_ms: spread(minor.times),
    exact_scan_ms: spread([...main.exactTimes, ...minor.exactTimes]),
    recall_at_k: r3(main.recall),
    recall_at_k_small_tenant: r3(minor.recall),
    recall_close: r3((main.close + minor.close) / 2),
    insert_ms: spread(inserts),
    queries: big.length + small.length,
    maintenance_work_mem: db.buildMemory,
    memory: await db.memory(),
  };
}

function spread(values: number[]) {
  const s = [...values].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? 0;
  return { p50: r1(at(0.5)), p95: r1(at(0.95)) };
}
const r1 = (v: number) => Math.round(v * 10) / 10;
const r3 = (v: number) => Math.round(v * 1000) / 1000;
