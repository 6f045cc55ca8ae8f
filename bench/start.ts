import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort, serveArgs } from '../tests/helpers/processes.ts';

/**
 * How long the whole service takes to start on the embedded default (PGlite, the demo client, the
 * checks' warm-up on): the server's start command without the build (what `npm run serve` runs,
 * without npm: serveArgs in tests/helpers/processes.ts; `npm start` runs `npm run build` before
 * it, timed here once as `build_ms`), from the spawn to
 * - `first_answer_ms`: the API's first HTTP answer (GET /livez), and `first_answer_cpu_ms` the CPU
 *   time the service had used by then (all its threads; Linux),
 * - `readyz_ms`: the first 200 of GET /readyz,
 * - `warm_ms`: /readyz saying `"checks":"warm"` (the models loaded on every thread),
 * - `banner_ms`: the ready banner on the standard output (null when the code has none),
 * on a first start (an empty data directory: migrations, the demo client) and a restart on the
 * same data, on an idle machine and on a busy one (one busy-looping process per core beside it,
 * at normal priority). `BENCH_START_BEFORE=<checkout>` (another commit's checkout, with its
 * node_modules) is measured by this same script in the same run, alternating with this one;
 * `BENCH_START_BUSY=0` skips the busy runs; `BENCH_START_RUNS=n` repeats each and reports medians.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BEFORE = process.env.BENCH_START_BEFORE ? resolve(process.env.BENCH_START_BEFORE) : null;
const BANNER = /^idv is ready/m;
const TIMEOUT_MS = 240_000;
/** BENCH_START_RUNS: how many times each scenario is repeated (medians reported). */
const RUNS = Math.max(1, Number(process.env.BENCH_START_RUNS ?? 1));

interface Start {
  first_answer_ms: number | null;
  /** The CPU time (user and system, all threads) the service had used when it first answered: what load on a shared machine does not inflate. */
  first_answer_cpu_ms: number | null;
  readyz_ms: number | null;
  warm_ms: number | null;
  banner_ms: number | null;
}

async function ports(): Promise<Record<string, string>> {
  const [port, journey, consolePort, docs, idp] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    API_BASE_URL: `http://localhost:${port}`,
    JOURNEY_URL: `http://localhost:${journey}`,
    CONSOLE_URL: `http://localhost:${consolePort}`,
    DOCS_URL: `http://localhost:${docs}`,
    IDP_URL: `http://127.0.0.1:${idp}`,
    METRICS_PORT: '0',
  };
}

async function startOnce(root: string, dataDir: string): Promise<Start> {
  const env: NodeJS.ProcessEnv = { ...process.env, ...(await ports()), DATA_DIR: dataDir };
  for (const name of ['DATABASE_URL', 'MASTER_KEY', 'OIDC_ISSUER', 'CONSOLE_API_KEY', 'LOG_LEVEL', 'NODE_ENV', 'CHECKS_WARM_UP']) delete env[name];
  const api = `http://127.0.0.1:${env.PORT}`;
  const t0 = performance.now();
  const child = spawn(process.execPath, serveArgs(root), { cwd: root, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  const result: Start = { first_answer_ms: null, first_answer_cpu_ms: null, readyz_ms: null, warm_ms: null, banner_ms: null };
  const at = () => Math.round(performance.now() - t0);
  child.stdout!.on('data', (d) => {
    out += d;
    if (result.banner_ms === null && BANNER.test(out)) result.banner_ms = at();
  });
  child.stderr!.on('data', (d) => (out += d));
  let exited = false;
  const exit = new Promise<void>((r) => child.once('exit', () => ((exited = true), r())));
  try {
    while (performance.now() - t0 < TIMEOUT_MS) {
      if (exited) throw new Error(`the service ended before it was ready:\n${out.slice(-3000)}`);
      if (result.first_answer_ms === null) {
        const ok = await fetch(`${api}/livez`).then(() => true, () => false);
        if (ok) {
          result.first_answer_ms = at();
          result.first_answer_cpu_ms = cpuMs(child.pid!);
        }
      } else {
        const res = await fetch(`${api}/readyz`).catch(() => null);
        if (res?.status === 200) {
          result.readyz_ms ??= at();
          const body = (await res.json()) as { checks?: string };
          if (body.checks === 'warm') result.warm_ms ??= at();
          else if (body.checks === 'cold') throw new Error('the checks warm-up failed');
        } else await res?.body?.cancel();
      }
      // Done once warm and, when the code prints one, the banner seen (it follows the warm-up by an instant).
      if (result.warm_ms !== null && (result.banner_ms !== null || at() - result.warm_ms > 2000)) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    if (result.warm_ms === null) throw new Error(`not warm after ${TIMEOUT_MS} ms:\n${out.slice(-3000)}`);
    return result;
  } finally {
    if (!exited) {
      process.kill(-child.pid!, 'SIGTERM');
      const force = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
      await exit;
      clearTimeout(force);
    }
  }
}

/** A process's CPU time so far (user and system, every thread), from /proc on Linux; null elsewhere. */
function cpuMs(pid: number): number | null {
  try {
    // The fields after the command's name (in parentheses, which may hold spaces): utime and stime are the 12th and 13th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Math.round(((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS);
  } catch {
    return null;
  }
}
/** The kernel's clock ticks a second (USER_HZ), 100 on Linux. */
const CLOCK_TICKS = 100;

/** One busy-looping process per core, at normal priority: the "busy machine". */
function burners(): ChildProcess[] {
  return Array.from({ length: availableParallelism() }, () => spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
}

const fmt = (s: Start) =>
  Object.entries(s)
    .map(([k, v]) => `${k.replace('_ms', '')} ${v === null ? '-' : `${(v / 1000).toFixed(1)} s`}`)
    .join(', ');

interface Checkout {
  name: string;
  root: string;
  build_ms?: number;
  idle?: { first: Start; restart: Start };
  busy?: { first: Start; restart: Start };
}

async function build(c: Checkout): Promise<void> {
  const started = performance.now();
  await new Promise<void>((ok, fail) =>
    spawn('npm', ['run', 'build'], { cwd: c.root, stdio: 'ignore' }).once('exit', (code) => (code === 0 ? ok() : fail(new Error(`npm run build in ${c.root} exited ${code}`)))),
  );
  c.build_ms = Math.round(performance.now() - started);
  console.log(`  ${c.name.padEnd(6)} npm run build ${(c.build_ms / 1000).toFixed(1)} s`);
}

/** The median of each figure over the runs (null when any run had none). */
function median(runs: Start[]): Start {
  const field = (k: keyof Start) => {
    const values = runs.map((r) => r[k]);
    if (values.some((v) => v === null)) return null;
    const sorted = (values as number[]).sort((a, b) => a - b);
    const mid = sorted.length >> 1;
    return sorted.length % 2 ? sorted[mid] : Math.round((sorted[mid - 1] + sorted[mid]) / 2);
  };
  return { first_answer_ms: field('first_answer_ms'), first_answer_cpu_ms: field('first_answer_cpu_ms'), readyz_ms: field('readyz_ms'), warm_ms: field('warm_ms'), banner_ms: field('banner_ms') };
}

/**
 * A first start then a restart of each checkout, the checkouts alternating (before's first start,
 * this one's, before's restart, this one's): background load on a shared machine then weighs on
 * both alike. Repeated RUNS times on new data directories; the figures kept are the medians.
 */
async function scenario(label: 'idle' | 'busy', checkouts: Checkout[]): Promise<void> {
  const runs = checkouts.map(() => ({ first: [] as Start[], restart: [] as Start[] }));
  for (let run = 1; run <= RUNS; run++) {
    const dirs = checkouts.map(() => mkdtempSync(join(tmpdir(), 'idv-bench-start-')));
    try {
      for (const kind of ['first', 'restart'] as const) {
        for (const [i, c] of checkouts.entries()) {
          const start = await startOnce(c.root, dirs[i]);
          runs[i][kind].push(start);
          console.log(`  ${c.name.padEnd(6)} ${label} ${kind === 'first' ? 'first start' : 'restart    '} ${RUNS > 1 ? `(run ${run}) ` : ''} ${fmt(start)}`);
        }
      }
    } finally {
      for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
    }
  }
  for (const [i, c] of checkouts.entries()) c[label] = { first: median(runs[i].first), restart: median(runs[i].restart) };
}

const checkouts: Checkout[] = [...(BEFORE ? [{ name: 'before', root: BEFORE }] : []), { name: 'this', root: ROOT }];
console.log(`start of the service (npm run serve without npm, PGlite, ${availableParallelism()} cores, ${RUNS} run(s)): ${checkouts.map((c) => `${c.name} ${c.root}`).join(', ')}`);
for (const c of checkouts) await build(c);
await scenario('idle', checkouts);
if (process.env.BENCH_START_BUSY !== '0') {
  const load = burners();
  try {
    await scenario('busy', checkouts);
  } finally {
    for (const b of load) b.kill('SIGKILL');
  }
}
console.log(JSON.stringify({ cores: availableParallelism(), runs: RUNS, ...Object.fromEntries(checkouts.map(({ name, root: _root, ...figures }) => [name, figures])) }));
