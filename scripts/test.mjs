#!/usr/bin/env node
// Runs the whole suite on each database (PGlite and PostgreSQL) and prints one closing line
// "N passed, N failed" over both. Usage: node scripts/test.mjs [pglite|postgres|all] [file filter]
// Each (file, database) pair runs in its own node process; all jobs share one pool, longest first,
// so slow files start at once and short ones fill the gaps. TEST_CONCURRENCY sets the pool's size.
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statfsSync, statSync, writeFileSync } from 'node:fs';
import { freemem, tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { tsImport } from 'tsx/esm/api';

const root = new URL('..', import.meta.url).pathname;
const backends = ['pglite', 'postgres'].filter((b) => !process.argv[2] || process.argv[2] === b || process.argv[2] === 'all');
const filter = process.argv[3];
const concurrency = Math.max(1, Number(process.env.TEST_CONCURRENCY ?? 3));
// A file still running after this many seconds is stopped with all it started and counted as
// failed: a hung file (a browser left waiting, a hook that never returns) ends the run with its
// name in the report instead of holding CI until its own limit. The slowest file takes about
// four minutes on a loaded CI machine.
const fileTimeoutS = Math.max(1, Number(process.env.TEST_FILE_TIMEOUT_S ?? 900));

function findTests(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) findTests(path, out);
    else if (name.endsWith('.test.ts')) out.push(relative(root, path));
  }
  return out;
}

const files = findTests(root).filter((f) => !filter || f.includes(filter)).sort();
if (files.length === 0) {
  console.error('no test files found');
  process.exit(1);
}

// Engine tests, the configuration's, the import rules' and the built documentation site's tests touch no database, and the embedded database's own
// tests open PGlite whatever the backend: they run once, with the first backend's run. The server
// database's own tests open PostgreSQL: they run with the PostgreSQL run, as do the fault suite's
// (its own PostgreSQL cluster, stopped and restarted under load).
// The browser suites (the journey's, the console's and the docs site's screens in Chromium) run once too: what
// they add over the API tests, which run on both databases, is the screens, whatever the database
// behind; run twice they cost CI about two minutes.
const BROWSER_SUITES = [
  'tests/e2e/journey-browser.test.ts',
  'tests/e2e/journey-handoff-browser.test.ts',
  'tests/e2e/journey-languages.test.ts',
  'tests/e2e/journey-wallet-browser.test.ts',
  'tests/docs/site-browser.test.ts',
];
// Every console screen suite (tests/console-ui/console-*.test.ts) drives the console in Chromium
// through tests/console-ui/harness.ts: a browser suite by where it lives, so a new screen's suite
// is not run twice by being forgotten in the list (three were, about two and a half minutes of CI).
const isBrowserSuite = (f) => BROWSER_SUITES.includes(f) || /^tests\/console-ui\/console-[^/]+\.test\.ts$/.test(f);
// Suites whose subject is not the database, run once to keep CI short: the example integration
// and the documentation's executed samples (the whole service driven to a webhook, about a minute
// each) and the hostile-input suites (parsing and refusals before any query); the routes they
// reach are tested on both databases by the API tests.
const WHOLE_SERVICE_SUITES = [
  'tests/e2e/example-integration.test.ts',
  // `npm start` on a laptop (the service, the development provider and the console in one
  // process): the embedded database is that scenario's own.
  'tests/console/all-in-one.test.ts',
  'tests/docs/samples.test.ts',
  // Every operation's curl and Node.js sample of the reference (82 of each, about 80 s of CPU):
  // the samples' subject is the interface; the routes' behaviour on each database is the API tests'.
  'tests/docs/reference-samples.test.ts',
  'tests/api/hostile-input.test.ts',
  'tests/console/hostile-input.test.ts',
  // The presentation attacks through the journey routes: their subject is what the real models
  // and measures say of generated attacks; a case's results on each database are the API tests'.
  'tests/e2e/checks-presentation-attacks.test.ts',
  'tests/e2e/document-presentation-attacks.test.ts',
  // The sandbox's forced attack reasons through the real engine (about a minute of CPU a run):
  // their subject is the flow's policy; the check job's path through each database is
  // tests/e2e/checks-outcomes.test.ts's, run on both.
  'tests/worker/sandbox-attacks.test.ts',
  // The face step's stills path: refusals before anything is stored, and the flow's rule; the
  // pieces and the challenge rows on each database are tests/api/face-sequence.test.ts's.
  'tests/api/face-stills.test.ts',
  // The sandbox's test wallet answering through the wallet's verification; a wallet's answer
  // through a case on each database is tests/e2e/wallet-journey.test.ts's.
  'tests/e2e/wallet-sandbox-wallet.test.ts',
];
const once = (f) =>
  f.startsWith('tests/engine/') ||
  f.startsWith('tests/architecture/') ||
  f.startsWith('tests/embedded-db/') ||
  f.startsWith('tests/config/') ||
  // The journey's on-device rules (automatic capture): pure functions on images made by sharp.
  f.startsWith('tests/journey/') ||
  // The wallet's verification (@idv/wallet): pure, on credentials its test issuer makes in memory.
  f.startsWith('tests/wallet/') ||
  // The domain's rules (decisions, policies, the catalogue against the docs): pure functions.
  f.startsWith('tests/domain/') ||
  // The client libraries (SDK and embed) over real HTTP: their subject is the client, not the
  // database behind the service.
  f.startsWith('tests/sdk/') ||
  f.startsWith('tests/embed/') ||
  f === 'tests/docs/site.test.ts' ||
  isBrowserSuite(f) ||
  WHOLE_SERVICE_SUITES.includes(f);
const serverOnly = (f) => f.startsWith('tests/server-db/') || f.startsWith('tests/faults/');
// Suites run once that run it on PostgreSQL when the run has it: the hosted journey's expired-link
// test moves a session's expiry in the database, which on PGlite (held by the service's process)
// means stopping and restarting the whole service twice, two and a half minutes of CI; on
// PostgreSQL it is one UPDATE beside the running service.
const ONCE_ON_POSTGRES = ['tests/e2e/journey-browser.test.ts'];
const onceOn = (f) => (ONCE_ON_POSTGRES.includes(f) && backends.includes('postgres') ? 'postgres' : backends[0]);

// Seconds each run is expected to take, to start the longest first: only the pool's order depends
// on it, so a wrong guess costs time, never a result. tests/timings.json, when present, holds the
// seconds measured by a whole run (`TEST_TIMINGS_OUT=tests/timings.json npm test` writes them;
// CI writes artifacts/test-timings.json); otherwise a file is guessed from what it starts.
const known = (() => {
  try {
    return JSON.parse(readFileSync(join(root, 'tests/timings.json'), 'utf8'));
  } catch {
    return {};
  }
})();
const guess = (f) =>
  f.startsWith('tests/faults/') ? 300
  : isBrowserSuite(f) ? 150
  : WHOLE_SERVICE_SUITES.includes(f) || f.startsWith('tests/e2e/') || f.includes('packed-install') ? 90
  : f.startsWith('tests/engine/') ? 60
  : 30;
const expected = (job) => known[`${job.backend} ${job.file}`] ?? guess(job.file);

const jobs = backends
  .flatMap((backend) =>
    files.filter((f) => (once(f) ? backend === onceOn(f) : true) && (backend === 'postgres' || !serverOnly(f))).map((file) => ({ file, backend })),
  )
  .sort((a, b) => expected(b) - expected(a));

// The test files' temporary directories (each file's PGlite data directory, the started services'
// DATA_DIRs, browser profiles) go to memory (a directory of /dev/shm, this run's TMPDIR) when it
// has room: every PGlite database is a 42 MB data directory extracted from the snapshot, and on
// this project's machines writing that to the disk's filesystem cost 1 to 1.5 s of system CPU each
// time (0.06 s on tmpfs), a quarter of a small API file's CPU. Removed with the runner.
// TEST_TMPDIR=0 keeps the system's temporary directory.
const scratch = (() => {
  if (process.env.TEST_TMPDIR === '0') return null;
  try {
    const shm = statfsSync('/dev/shm');
    // Room for the run's directories with a wide margin (a few hundred megabytes at three files
    // at a time), which the memory must have too: tmpfs is paid in memory.
    const GiB = 1024 ** 3;
    if (shm.bavail * shm.bsize < 4 * GiB || freemem() < 6 * GiB) return null;
    const dir = mkdtempSync('/dev/shm/idv-tests-');
    // Open as /tmp is (sticky, everyone's): commands the tests run as another user reach their
    // own directories in it (the fault suite's PostgreSQL cluster, run as `postgres`).
    chmodSync(dir, 0o1777);
    return dir;
  } catch {
    return null; // no /dev/shm (not Linux)
  }
})();
if (scratch) process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

let passed = 0;
let failed = 0;
let skipped = 0;
const took = [];
const running = new Set(); // files being run: a file never runs on both databases at once (shared artifacts, ports)
const children = new Set();
// Interrupted, the runner stops every test process with what it started (services, browsers, a
// private PostgreSQL cluster): each runs in a process group of its own, so they go together and
// none is left orphaned, holding ports and CPU.
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    for (const child of children) {
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    process.exit(130);
  });
}

/** User plus system seconds of the children, the second line of bash's `times` ("0m1.250s 0m0.310s"). */
function cpuSecondsOfChildren(times) {
  const line = times.trim().split('\n')[1] ?? '';
  return [...line.matchAll(/(\d+)m([\d.]+)s/g)].reduce((sum, [, m, s]) => sum + Number(m) * 60 + Number(s), 0);
}

function runJob(job) {
  return new Promise((resolve) => {
    const started = Date.now();
    // Through bash, whose `times` reports the CPU the file used with everything it started and
    // waited for (services, Chromium, PostgreSQL clients): on a shared machine the wall time of a
    // file says more about its neighbours than about it, and the CPU of all files is what bounds
    // the whole run on CI's two cores.
    const child = spawn('bash', ['-c', `"$@"; code=$?; times >&3; exit $code`, 'bash', process.execPath, ...runArgs(job.file)], {
      cwd: root,
      // TEST_SHARED_TMPDIR: the machine's temporary directory, for what test processes of other
      // runs must see too (the claims on ports, tests/helpers/processes.ts).
      env: {
        ...process.env,
        TEST_DB: job.backend,
        ...(scratch ? { TMPDIR: scratch, TEST_SHARED_TMPDIR: tmpdir() } : {}),
        ...(bundled ? { PGLITE_THREAD_BUNDLE: join(bundleDir, PGLITE_THREAD.replace(/\.ts$/, '.mjs')) } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      detached: true,
    });
    children.add(child);
    const out = [];
    const times = [];
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      out.push(Buffer.from(`\n[test runner] ${job.file} on ${job.backend} still running after ${fileTimeoutS} s (TEST_FILE_TIMEOUT_S): stopped\n`));
      for (const signal of ['SIGTERM', 'SIGKILL']) {
        setTimeout(() => {
          try {
            process.kill(-child.pid, signal);
          } catch {
            // already gone
          }
        }, signal === 'SIGTERM' ? 0 : 10_000).unref();
      }
    }, fileTimeoutS * 1000);
    child.stdout.on('data', (chunk) => out.push(chunk));
    child.stderr.on('data', (chunk) => out.push(chunk));
    child.stdio[3].on('data', (chunk) => times.push(chunk));
    child.on('close', (exitCode) => {
      clearTimeout(timer);
      const code = timedOut ? 1 : exitCode;
      children.delete(child);
      const seconds = (Date.now() - started) / 1000;
      const cpu = cpuSecondsOfChildren(Buffer.concat(times).toString());
      const text = Buffer.concat(out).toString();
      let counted = 0;
      for (const [, kind, n] of text.matchAll(/^ℹ (pass|fail|skipped|todo) (\d+)$/gm)) {
        if (kind === 'pass') passed += Number(n);
        else if (kind === 'fail') {
          failed += Number(n);
          counted += Number(n);
        } else skipped += Number(n);
      }
      if (code !== 0 && counted === 0) failed += 1; // a crash before any summary still fails the run
      took.push({ ...job, seconds, cpu, ok: code === 0, ...(code === 0 ? {} : { why: failureExcerpt(text) }) });
      process.stdout.write(`\n=== ${job.file} on ${job.backend}: ${code === 0 ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s (${cpu.toFixed(1)} s of CPU) ===\n${text}`);
      resolve();
    });
  });
}

/**
 * The part of a failed file's output that says why: node's reporter's "failing tests" section
 * (each failed test with its error), else the output's end (a crash, a timeout), at most 60 lines.
 */
function failureExcerpt(text) {
  const at = text.lastIndexOf('failing tests:');
  const lines = (at >= 0 ? text.slice(at) : text).trimEnd().split('\n');
  return (at >= 0 ? lines.slice(0, 60) : lines.slice(-60)).join('\n');
}

// Each test file runs as a bundle of itself and the repository's sources (the service's own
// bundling, apps/server/src/bundle.ts), node_modules left as imports, under plain Node with tsx's
// in-thread require hook only for the worker threads' TypeScript entries. Through tsx's import hook
// every run resolved and loaded its ~400 modules through a loader thread: about two seconds of CPU
// a run, a sixth of a small API suite's. TEST_BUNDLE=0 runs the sources through tsx instead.
const bundled = process.env.TEST_BUNDLE !== '0';
const bundleDir = join(root, '.tmp', 'test-bundles', String(process.pid));
// The embedded database's thread is bundled too, and given to every test process (and the services
// they start) as PGLITE_THREAD_BUNDLE: a thread that runs it needs no tsx hook, whose loading in
// each new thread cost about 0.4 s of CPU at every opening of PGlite (packages/db/src/pglite-remote.ts).
const PGLITE_THREAD = 'packages/db/src/pglite-thread.ts';
/** Packages of the checks engine that run WebAssembly. */
const ENGINE_WASM = ['@tensorflow/tfjs-backend-wasm', '@techstark/opencv-js', '@vladmandic/human', 'tesseract.js', 'zxing-wasm'];
/** The test files whose bundle can reach the checks engine's WebAssembly (models, OCR, barcodes). */
let reachesEngineWasm = () => true;
if (bundled) {
  const t0 = Date.now();
  rmSync(bundleDir, { recursive: true, force: true });
  process.on('exit', () => rmSync(bundleDir, { recursive: true, force: true }));
  const { bundleSources } = await tsImport('../apps/server/src/bundle.ts', import.meta.url);
  const metafile = await bundleSources({ entryPoints: [...new Set(jobs.map((j) => j.file)), PGLITE_THREAD], outdir: bundleDir, outbase: root });
  reachesEngineWasm = reachingPackages(metafile, ENGINE_WASM);
  console.log(`bundled the test files in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}
// PGlite is PostgreSQL compiled to WebAssembly: V8 compiles it quickly (Liftoff), then compiles
// its busy functions again, optimised, on background threads, which in a test file's short life
// was 1.5 to 2 s of CPU that never paid back (measured on tests/api files). Files that cannot run
// the checks engine's WebAssembly (models, OCR, barcodes: long computations that need the optimised
// code) run with --liftoff-only.
const runArgs = (file) =>
  bundled
    ? ['--require', 'tsx/cjs', '--enable-source-maps', ...(reachesEngineWasm(file) ? [] : ['--liftoff-only']), '--test-reporter=spec', join(bundleDir, file.replace(/\.ts$/, '.mjs'))]
    : ['--import', 'tsx', '--test-reporter=spec', file];

/**
 * Whether a test file's bundle imports one of `packages` (or a file of one), following its chunks'
 * static and dynamic imports in esbuild's metafile.
 */
function reachingPackages(metafile, packages) {
  const entries = new Map(Object.entries(metafile.outputs).filter(([, o]) => o.entryPoint).map(([out, o]) => [o.entryPoint, out]));
  return (file) => {
    const seen = new Set();
    const pending = [entries.get(file)];
    while (pending.length > 0) {
      const out = pending.pop();
      if (!out || seen.has(out)) continue;
      seen.add(out);
      for (const imported of metafile.outputs[out].imports) {
        if (!imported.external) pending.push(imported.path);
        else if (packages.some((p) => imported.path === p || imported.path.startsWith(`${p}/`))) return true;
      }
    }
    return false;
  };
}

console.log(`${jobs.length} test runs (${files.length} files on ${backends.join(' and ')}), ${concurrency} at a time`);
const started = Date.now();
const queue = [...jobs];
async function lane() {
  for (;;) {
    const i = queue.findIndex((j) => !running.has(j.file));
    if (i === -1) {
      if (queue.length === 0) return;
      await new Promise((r) => setTimeout(r, 200)); // every remaining job's file is running elsewhere
      continue;
    }
    const [job] = queue.splice(i, 1);
    running.add(job.file);
    await runJob(job);
    running.delete(job.file);
  }
}
await Promise.all(Array.from({ length: concurrency }, lane));

took.sort((a, b) => b.seconds - a.seconds);
const cpuTotal = took.reduce((sum, t) => sum + t.cpu, 0);
console.log(`\nslowest test runs (of ${took.length}, ${((Date.now() - started) / 1000).toFixed(0)} s in all, ${cpuTotal.toFixed(0)} s of CPU):`);
for (const t of took.slice(0, 15)) console.log(`  ${t.seconds.toFixed(1).padStart(6)} s  ${t.cpu.toFixed(1).padStart(6)} s CPU  ${t.backend.padEnd(8)} ${t.file}`);
const failedRuns = took.filter((t) => !t.ok);
// What failed, again at the end: CI keeps only the tail of a long log, where a failing file's own
// output (printed when it ended, maybe half an hour earlier) is often cut off.
for (const t of failedRuns) console.log(`\n--- why ${t.file} on ${t.backend} failed ---\n${t.why}`);
if (failedRuns.length) console.log(`\nfailed: ${failedRuns.map((t) => `${t.file} on ${t.backend}`).join(', ')}`);
if (process.env.TEST_TIMINGS_OUT) {
  mkdirSync(join(root, process.env.TEST_TIMINGS_OUT, '..'), { recursive: true });
  const out = Object.fromEntries(took.map((t) => [`${t.backend} ${t.file}`, Math.round(t.seconds)]).sort(([a], [b]) => a.localeCompare(b)));
  writeFileSync(join(root, process.env.TEST_TIMINGS_OUT), `${JSON.stringify(out, null, 2)}\n`);
}
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
