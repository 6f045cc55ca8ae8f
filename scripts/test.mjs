#!/usr/bin/env node
// Runs the whole suite on each database (PGlite, then PostgreSQL), and prints one closing line
// "N passed, N failed" over both runs. Usage: node scripts/test.mjs [pglite|postgres] [file filter]
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const backends = ['pglite', 'postgres'].filter((b) => !process.argv[2] || process.argv[2] === b || process.argv[2] === 'all');
const filter = process.argv[3];

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

let passed = 0;
let failed = 0;
let skipped = 0;
// Engine tests, the configuration's, the import rules' and the built documentation site's tests touch no database, and the embedded database's own
// tests open PGlite whatever the backend: they run once, with the first backend's run. The server
// database's own tests open PostgreSQL: they run with the PostgreSQL run, as do the fault suite's
// (its own PostgreSQL cluster, stopped and restarted under load).
// The browser suites (the journey's, the console's and the docs site's screens in Chromium) run once too: what
// they add over the API tests, which run on both databases, is the screens, whatever the database
// behind; run twice they cost CI about two minutes.
const BROWSER_SUITES = [
  'tests/e2e/journey-browser.test.ts',
  'tests/console-ui/console-browser.test.ts',
  'tests/console-ui/console-proof.test.ts',
  'tests/console-ui/console-appearance.test.ts',
  'tests/console-ui/console-flows.test.ts',
  'tests/console-ui/console-integration.test.ts',
  'tests/console-ui/console-oversight.test.ts',
  'tests/docs/site-browser.test.ts',
];
// Suites whose subject is not the database, run once to keep CI short: the example integration
// and the documentation's executed samples (the whole service driven to a webhook, about a minute
// each), the packed SDK (packaging and install),
// and the hostile-input suites (parsing and refusals before any query); the routes they reach are
// tested on both databases by the API tests.
const WHOLE_SERVICE_SUITES = [
  'tests/e2e/example-integration.test.ts',
  'tests/docs/samples.test.ts',
  'tests/sdk/packed-install.test.ts',
  'tests/api/hostile-input.test.ts',
  'tests/console/hostile-input.test.ts',
];
const once = (f) =>
  f.startsWith('tests/engine/') ||
  f.startsWith('tests/architecture/') ||
  f.startsWith('tests/embedded-db/') ||
  f.startsWith('tests/config/') ||
  f === 'tests/docs/site.test.ts' ||
  BROWSER_SUITES.includes(f) ||
  WHOLE_SERVICE_SUITES.includes(f);
const serverOnly = (f) => f.startsWith('tests/server-db/') || f.startsWith('tests/faults/');
for (const [i, backend] of backends.entries()) {
  const run = files.filter((f) => (i === 0 || !once(f)) && (backend === 'postgres' || !serverOnly(f)));
  if (run.length === 0) continue;
  console.log(`\n=== ${run.length} test files on ${backend} ===`);
  const code = await new Promise((resolve) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...run],
      { cwd: root, env: { ...process.env, TEST_DB: backend }, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    child.stdout.on('data', (chunk) => {
      process.stdout.write(chunk);
      const text = chunk.toString();
      for (const [, kind, n] of text.matchAll(/^ℹ (pass|fail|skipped|todo) (\d+)$/gm)) {
        if (kind === 'pass') passed += Number(n);
        else if (kind === 'fail') failed += Number(n);
        else skipped += Number(n);
      }
    });
    child.on('close', resolve);
  });
  if (code !== 0 && failed === 0) failed += 1; // a crash before any summary still fails the run
}
console.log(`\n${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 ? 1 : 0);
