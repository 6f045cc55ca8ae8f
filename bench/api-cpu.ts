/**
 * `npx tsx bench/api-cpu.ts`: the CPU time one signed creation costs, under the load of
 * `npm run bench:api` (autocannon, 50 connections, PostgreSQL): in the service's process, in the
 * baseline's, in the PostgreSQL backends serving each, and in the load generator. On a shared
 * machine throughput follows the neighbours; CPU time per request much less so, which makes this
 * the figure to compare two versions of the service by.
 *
 * VARIANTS="name=<root>,…" adds the service from other copies of the repository (for example
 * `git archive <commit> | tar -x -C /tmp/old`, with a node_modules whose @idv links point into
 * that copy), each on its own database: an A/B comparison in one run, the rounds alternating so
 * that the machine's drift weighs on every target alike.
 *
 * Knobs: BENCH_SECONDS (per round and target, 5), BENCH_ROUNDS (2), TEST_DATABASE_URL (the
 * server), NODE_FLAGS (extra node flags for the servers), PERF_OUT=<file> (records the last round
 * with `perf record -g`: the server in one file per target, its PostgreSQL backends in another;
 * with NODE_FLAGS="--perf-basic-prof").
 * Prints one line of JSON: beside each process's CPU, the whole machine's per creation (what
 * bounds throughput once the cores are busy), and the write-ahead log's bytes and flushes per
 * creation (commits sharing a flush make fewer flushes than creations).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { signedHeaders } from '@idv/sdk';
import { generateMasterKey } from '@idv/vault';
import { ADMIN_URL, createPostgresDatabase } from '../tests/helpers/database.ts';
import { freePort } from '../tests/helpers/processes.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const WARMUP_SECONDS = 3;
const NODE_FLAGS = (process.env.NODE_FLAGS ?? '').split(' ').filter(Boolean);
const PERF_OUT = process.env.PERF_OUT;
const RUN = randomBytes(4).toString('hex');
/** Clock ticks per second of /proc/<pid>/stat (USER_HZ). */
const TICK = 100;
let counter = 0;

interface Target {
  pid: number;
  url: string;
  /** The database whose backends serve it. */
  db: string;
  creds: { secret: string; signing: string };
}

const children: ChildProcess[] = [];
function killAll(signal: NodeJS.Signals): void {
  for (const c of children) {
    try {
      process.kill(-c.pid!, signal);
    } catch {
      // already gone
    }
  }
}
process.on('exit', () => killAll('SIGKILL'));

async function start(root: string, entry: string, env: Record<string, string>): Promise<{ pid: number; url: string }> {
  const port = await freePort();
  const child = spawn(process.execPath, [...NODE_FLAGS, '--import', 'tsx', entry], {
    cwd: root,
    env: { METRICS_PORT: '0', ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' },
    stdio: 'ignore',
    detached: true,
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 600; i++) {
    if (await fetch(`${url}/readyz`).then((r) => r.ok).catch(() => false)) return { pid: child.pid!, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${root}/${entry} not ready after 60 s`);
}

/** CPU ms (user + system, all threads) of a process so far. */
function cpuOf(pid: number): number {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(f[11]) + Number(f[12])) * 1000) / TICK;
}

/** CPU ms so far of the whole machine, all cores, every process and the kernel (busy = not idle, not waiting for I/O). */
function machineCpu(): number {
  const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const n = ticks.slice(0, 8).map(Number);
  return ((n.reduce((a, b) => a + b, 0) - n[3] - n[4]) * 1000) / TICK;
}

/** CPU ms so far of the PostgreSQL backends connected to that database. */
function pgCpu(dbName: string): number {
  return pgBackends(dbName).reduce((ms, pid) => ms + cpuOf(pid), 0);
}

/** The PostgreSQL backends connected to that database. */
function pgBackends(dbName: string): number[] {
  const pids: number[] = [];
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const cmd = readFileSync(`/proc/${d}/cmdline`, 'utf8');
      if (cmd.startsWith('postgres:') && cmd.includes(` ${dbName} `)) pids.push(Number(d));
    } catch {
      // gone
    }
  }
  return pids;
}

/**
 * The server's write-ahead log so far: bytes written and flushes (cluster-wide; one target runs
 * at a time). Backends report their flushes to pg_stat_wal within a second of going idle, so it
 * is read after a pause of 1.5 s.
 */
async function walStats(admin: pg.Client): Promise<{ syncs: number; bytes: number }> {
  await new Promise((r) => setTimeout(r, 1500));
  const { rows } = await admin.query("SELECT wal_sync::float8 AS syncs, (pg_current_wal_lsn() - '0/0')::float8 AS bytes FROM pg_stat_wal");
  return rows[0];
}

/** Signed creations for `seconds`, as bench:api sends them; resolves with the 201s, rejects on anything else. */
function load(t: Target, seconds: number): Promise<number> {
  let created = 0;
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: t.url,
        connections: 50,
        pipelining: 1,
        duration: seconds,
        timeout: 10,
        requests: [
          {
            method: 'POST',
            path: '/v1/cases',
            setupRequest: (req) => {
              const n = ++counter;
              const body = JSON.stringify({ flow_name: 'standard', country: 'FR', external_ref: `cpu-${RUN}-${n}` });
              req.headers = {
                authorization: `Bearer ${t.creds.secret}`,
                'content-type': 'application/json',
                ...signedHeaders(t.creds.signing, 'POST', '/v1/cases', body, `cpu-${RUN}-${n}`),
              };
              req.body = body;
              return req;
            },
          },
        ],
      },
      (err, res) => {
        if (err) return reject(err);
        if (res.non2xx || res.errors || res.timeouts) return reject(new Error(`${t.url}: ${res.non2xx} non-2xx, ${res.errors} errors, ${res.timeouts} timeouts`));
        resolve(created);
      },
    );
    instance.on('response', (_c: unknown, status: number) => {
      if (status === 201) created++;
    });
  });
}

async function main(): Promise<void> {
  const variants: [string, string][] = [
    ['ours', ROOT],
    ...(process.env.VARIANTS ?? '').split(',').filter(Boolean).map((v) => v.split('=') as [string, string]),
  ];
  const cleanups: (() => Promise<void> | void)[] = [];
  try {
    const targets: Record<string, Target> = {};
    for (const [name, root] of variants) {
      const { url: dbUrl, dropDb } = await createPostgresDatabase();
      const dir = mkdtempSync(join(tmpdir(), 'bench-cpu-'));
      cleanups.push(dropDb, () => rmSync(dir, { recursive: true, force: true }));
      // Each service on ports of its own (API, docs, journey), so that several run side by side.
      // The benchmark measures the service, not its rate limiter (docs/rate-limits.md): limits off.
      const env = { DATA_DIR: dir, DATABASE_URL: dbUrl, MASTER_KEY: generateMasterKey(), DOCS_URL: `http://127.0.0.1:${await freePort()}`, JOURNEY_URL: `http://127.0.0.1:${await freePort()}`, RATE_LIMIT_ENABLED: 'false' };
      // Copies from before the composition root (apps/server) start from the API's own main.
      const entry = existsSync(join(root, 'apps/server/src/main.ts')) ? 'apps/server/src/main.ts' : 'apps/api/src/main.ts';
      const server = await start(root, entry, env);
      const boot = JSON.parse(readFileSync(join(dir, 'bootstrap-credentials.json'), 'utf8'));
      targets[name] = { ...server, db: new URL(dbUrl).pathname.slice(1), creds: { secret: boot.api_key.secret, signing: boot.api_key.signing_secret } };
      if (name === 'ours') targets.baseline = { ...(await start(ROOT, 'bench/baseline-server.ts', { DATABASE_URL: dbUrl })), db: targets.ours.db, creds: targets.ours.creds };
    }
    for (const t of Object.values(targets)) await load(t, WARMUP_SECONDS);

    const sum: Record<string, { created: number; server: number; pg: number; loadgen: number; seconds: number; walSyncs: number; walBytes: number; machine: number }> = {};
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    cleanups.push(() => admin.end());
    for (let round = 0; round < ROUNDS; round++) {
      const names = Object.keys(targets);
      for (const name of round % 2 ? names.reverse() : names) {
        const t = targets[name];
        await new Promise((r) => setTimeout(r, 300));
        const loadgen0 = process.cpuUsage();
        const server0 = cpuOf(t.pid);
        const pg0 = pgCpu(t.db);
        const wal0 = await walStats(admin);
        const machine0 = machineCpu();
        const wall0 = Date.now();
        // The server and, apart, its PostgreSQL backends (the pool is full by now).
        const record = (pids: number[], suffix: string) =>
          spawn('perf', ['record', '-e', 'cpu-clock', '-F', '1999', '-g', '-p', pids.join(','), '-o', `${PERF_OUT}.${name}${suffix}`], { stdio: 'ignore' });
        const perfs = PERF_OUT && round === ROUNDS - 1 ? [record([t.pid], ''), record(pgBackends(t.db), '.postgres')] : [];
        const created = await load(t, SECONDS);
        for (const perf of perfs) {
          perf.kill('SIGINT');
          await new Promise((r) => perf.once('exit', r));
        }
        // What was left in flight finishes within the pause, and is counted with the round.
        await new Promise((r) => setTimeout(r, 300));
        const loadgen = process.cpuUsage(loadgen0);
        const machine = machineCpu() - machine0;
        const wal = await walStats(admin);
        const s = (sum[name] ??= { created: 0, server: 0, pg: 0, loadgen: 0, seconds: 0, walSyncs: 0, walBytes: 0, machine: 0 });
        s.machine += machine;
        s.walSyncs += wal.syncs - wal0.syncs;
        s.walBytes += wal.bytes - wal0.bytes;
        s.created += created;
        s.server += cpuOf(t.pid) - server0;
        s.pg += pgCpu(t.db) - pg0;
        s.loadgen += (loadgen.user + loadgen.system) / 1000;
        s.seconds += (Date.now() - wall0 - 300) / 1000;
      }
    }
    const out: Record<string, Record<string, number>> = {};
    const r4 = (n: number) => Math.round(n * 10_000) / 10_000;
    for (const [name, s] of Object.entries(sum)) {
      out[name] = {
        rps: Math.round(s.created / s.seconds),
        server_cpu_ms: r4(s.server / s.created),
        postgres_cpu_ms: r4(s.pg / s.created),
        loadgen_cpu_ms: r4(s.loadgen / s.created),
        // Everything: the three above, PostgreSQL's own processes, the kernel's network and disk.
        machine_cpu_ms: r4(s.machine / s.created),
        // Commits sharing one flush make fewer syncs than creations.
        wal_syncs_per_creation: r4(s.walSyncs / s.created),
        wal_bytes_per_creation: Math.round(s.walBytes / s.created),
      };
    }
    console.log(JSON.stringify(out));
    killAll('SIGTERM');
    await new Promise((r) => setTimeout(r, 1500));
  } finally {
    for (const fn of cleanups.reverse()) await Promise.resolve(fn()).catch((err) => console.error('cleanup:', err));
  }
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
