/**
 * `npm run bench:console`: what the operator console costs a reviewer, in Debian's Chromium on
 * loopback, with BENCH_TASKS (100,000) review tasks in the database, on PGlite and on PostgreSQL:
 * - the first screen's JS and CSS bytes, gzip, from the real build (loadConsoleAssets()) and from
 *   the browser's own requests while it navigates to the queue with an empty cache;
 * - the time from navigation to the queue until its first row is drawn, and from navigation to a
 *   case screen until the images of the document sides are drawn (a case sent through the journey
 *   with real photos), median and p90 of BENCH_RUNS navigations each in a fresh page, caches warm
 *   (the cold first navigation printed apart);
 * - the same for a baseline measured in the same run: plain pages that make the same service calls
 *   and draw one row, or the document sides (bench/console/baseline-server.ts); ratio = console /
 *   baseline.
 * - the review metrics screen over a year (`/metrics?days=365`, BENCH_DECIDED decided tasks spread
 *   over the last 365 days besides the queue's), from navigation to its first chart drawn (no
 *   baseline: no plain page draws charts), median and p90 of BENCH_RUNS, cold apart.
 * Targets: first row ≤ 1 s, case screen ≤ 1.5 s. Ends with one line of JSON.
 * - dry_run: a flow's dry run over BENCH_DRY_RUN_CASES (10,000) decided cases on
 *   PostgreSQL, in seconds (bench/console/dry-run.ts); target ≤ 2 s.
 *
 * Environment: BENCH_SECTIONS ("screens,dry_run": either alone runs only that part),
 * BENCH_TASKS (100000), BENCH_DECIDED (36500), BENCH_RUNS (7), BENCH_BACKENDS ("pglite,postgres"), BENCH_DRY_RUN_CASES (10000),
 * TEST_DATABASE_URL (the PostgreSQL server; a fresh database is created and dropped), CHROMIUM_PATH.
 * Everything started here is stopped at the end, on failure and on Ctrl-C.
 */
import { loadConsoleAssets } from '../apps/console/src/build.ts';
import { launchChromium } from '../tests/helpers/browser.ts';
import { measure, type Samples } from './console/browser-runs.ts';
import { firstScreenOfBuild } from './console/first-screen.ts';
import { Processes } from './console/processes.ts';
import { DOCUMENT_SIDES } from './console/real-case.ts';
import { startStack, type Backend } from './console/stack.ts';
import { benchDryRun } from './console/dry-run.ts';

const TASKS = Number(process.env.BENCH_TASKS ?? 100_000);
/** Decided tasks over the last year, for the review metrics (100 a day). */
const DECIDED = Number(process.env.BENCH_DECIDED ?? 36_500);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').split(',') as Backend[];
const TARGETS = { first_row_ms: 1000, case_screen_ms: 1500 };
const SECTIONS = (process.env.BENCH_SECTIONS ?? 'screens,dry_run').split(',');
const DRY_RUN_CASES = Number(process.env.BENCH_DRY_RUN_CASES ?? 10_000);

const r1 = (v: number) => Math.round(v * 10) / 10;
const r2 = (v: number) => Math.round(v * 100) / 100;
/** Nearest-rank quantile. */
function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(q * sorted.length) - 1)];
}

function figures(samples: Samples, cold: { console: number; baseline: number }, target: number) {
  const side = (s: number[], c: number) => ({ median_ms: r1(quantile(s, 0.5)), p90_ms: r1(quantile(s, 0.9)), cold_ms: r1(c), runs_ms: s });
  const consoleSide = side(samples.console, cold.console);
  const baselineSide = side(samples.baseline, cold.baseline);
  return {
    console: consoleSide,
    baseline: baselineSide,
    ratio: r2(consoleSide.median_ms / baselineSide.median_ms),
    ratio_p90: r2(consoleSide.p90_ms / baselineSide.p90_ms),
    target_ms: target,
    target_met: consoleSide.median_ms <= target,
  };
}

const all = new Processes();
let current: Processes | null = null;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping everything`);
    void Promise.all([current?.stopAll(), all.stopAll()]).finally(() => process.exit(130));
  });
}

const results: Record<string, unknown> = {};
let failed = false;
try {
  let screensSummary: Record<string, unknown> = {};
  if (SECTIONS.includes('screens')) {
    const build = firstScreenOfBuild(await loadConsoleAssets());
    const browser = await launchChromium({ ownSignalHandling: true });
    all.later('chromium', () => browser.close());
    for (const backend of BACKENDS) {
      current = new Processes();
      try {
        const stack = await startStack(backend, TASKS, current, DECIDED);
        console.error(`[${backend}] signing in through the development provider, then ${RUNS} rounds after a cold one…`);
        const m = await measure(browser, stack, DOCUMENT_SIDES, RUNS);
        if (m.timelines) for (const [screen, lines] of Object.entries(m.timelines)) console.error(`[${backend}] console ${screen}, one warm navigation:\n  ${lines.join('\n  ')}`);
        const buildAssets = build.files.filter((f) => f !== '/index.html').sort();
        const browserAssets = m.firstScreen.files.filter((f) => !f.endsWith('(document)')).sort();
        results[backend] = {
          seed_s: stack.seedS,
          first_screen_browser: {
            html_gzip: m.firstScreen.html_gzip,
            js_gzip: m.firstScreen.js_gzip,
            css_gzip: m.firstScreen.css_gzip,
            js_css_gzip: m.firstScreen.js_css_gzip,
            wire_bytes: m.firstScreen.wire_bytes,
            same_files_as_build: JSON.stringify(buildAssets) === JSON.stringify(browserAssets),
            files: m.firstScreen.files,
          },
          first_row: figures(m.queue, m.cold.queue, TARGETS.first_row_ms),
          case_screen: figures(m.case, m.cold.case, TARGETS.case_screen_ms),
          metrics_first_chart: { decided_tasks: DECIDED, seed_s: stack.decidedSeedS, median_ms: r1(quantile(m.metrics.runs, 0.5)), p90_ms: r1(quantile(m.metrics.runs, 0.9)), cold_ms: r1(m.metrics.cold), runs_ms: m.metrics.runs },
        };
      } finally {
        await current.stopAll();
        current = null;
      }
    }

    // ---------------------------------------------------------------- report
    console.log(`Operator console with ${TASKS} review tasks, Chromium headless on loopback, ${RUNS} warm navigations per figure (median / p90), cold first navigation apart`);
    console.log(`First screen from the build (index.html + entry + static chunks + CSS), gzip: JS ${build.js_gzip} B, CSS ${build.css_gzip} B (JS+CSS ${build.js_css_gzip} B; index.html ${build.html_gzip} B; ${build.js_css_raw} B uncompressed)`);
    const rows: string[][] = [['backend', 'measure', 'console median', 'p90', 'cold', 'baseline median', 'p90', 'cold', 'ratio', 'target', 'met']];
    for (const backend of BACKENDS) {
      const r = results[backend] as Record<string, any>;
      const fs = r.first_screen_browser;
      console.log(
        `[${backend}] browser fetched for the queue (cold cache): JS ${fs.js_gzip} B gzip, CSS ${fs.css_gzip} B gzip, ${fs.wire_bytes} B on the wire; same files as the build's first screen: ${fs.same_files_as_build ? 'yes' : `NO (${fs.files.join(', ')})`}`,
      );
      for (const name of ['first_row', 'case_screen']) {
        const f = r[name];
        rows.push([backend, name, `${f.console.median_ms} ms`, `${f.console.p90_ms}`, `${f.console.cold_ms}`, `${f.baseline.median_ms} ms`, `${f.baseline.p90_ms}`, `${f.baseline.cold_ms}`, String(f.ratio), `≤ ${f.target_ms} ms`, f.target_met ? 'yes' : 'NO']);
      }
    }
    for (const backend of BACKENDS) {
      const c = (results[backend] as Record<string, any>).metrics_first_chart;
      console.log(`[${backend}] review metrics over 365 days (${c.decided_tasks} decided tasks besides the queue), time to the first chart: median ${c.median_ms} ms, p90 ${c.p90_ms} ms, cold ${c.cold_ms} ms`);
    }
    const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
    for (const row of rows) console.log(row.map((c, i) => c.padEnd(widths[i])).join('  '));
    const met = BACKENDS.every((b) => {
      const r = results[b] as Record<string, { target_met: boolean }>;
      return r.first_row.target_met && r.case_screen.target_met;
    });
    console.log(`Targets (first row ≤ ${TARGETS.first_row_ms} ms, case screen ≤ ${TARGETS.case_screen_ms} ms, console medians): ${met ? 'met' : 'NOT met'} on ${BACKENDS.join(' and ')}`);
    screensSummary = {
      tasks: TASKS,
      runs: RUNS,
      first_screen_gzip: { js: build.js_gzip, css: build.css_gzip, js_css: build.js_css_gzip, html: build.html_gzip, js_css_raw: build.js_css_raw, files: build.files },
      targets: TARGETS,
      targets_met: met,
    };
  }
  if (SECTIONS.includes('dry_run')) {
    console.error(`[dry_run] seeding ${DRY_RUN_CASES} decided cases on PostgreSQL, then dry runs…`);
    const d = await benchDryRun(DRY_RUN_CASES, 5);
    console.log(`Dry run over ${d.evaluated} decided cases on PostgreSQL: ${d.median_s} s median of 5 (cold ${d.cold_s} s, worst ${d.max_s} s; seeding ${d.seed_s} s), ${d.changed} outcomes would change (${d.matrix.join(', ')}); target ≤ ${d.target_s} s: ${d.target_met ? 'met' : 'NOT met'}`);
    results.dry_run = d;
  }
  console.log(
    JSON.stringify({
      bench: 'console',
      sections: SECTIONS,
      ...screensSummary,
      ...results,
    }),
  );
} catch (err) {
  failed = true;
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
} finally {
  await current?.stopAll();
  await all.stopAll();
}
process.exit(failed ? 1 : 0);
