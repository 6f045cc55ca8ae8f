import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/processes.ts';

/**
 * The import rules of .dependency-cruiser.cjs (`npm run lint:deps`): no app imports another app
 * (the composition root apps/server only what the apps export), no import cycle in apps/ and
 * packages/, inside apps/api no import up the layers (a service or a contract importing a route),
 * and no app importing drizzle-orm (queries live in packages/db). Run as CI runs it, with dependency-cruiser's command line, here and on a fixture
 * that breaks each rule, so the rules are seen to bite.
 */

const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

interface Violation {
  rule: { name: string };
  from: string;
  to: string;
  cycle?: { name: string }[];
}

/** Cruises apps/ and packages/ under `root` with the repository's rules; the violations found. */
async function violations(root: string): Promise<Violation[]> {
  const { stdout } = await promisify(execFile)(process.execPath, [CLI, '--config', '.dependency-cruiser.cjs', '--output-type', 'json', 'apps', 'packages'], {
    cwd: root,
    maxBuffer: 64 * 1024 * 1024,
  }).catch((err: { stdout?: string; stderr?: string }) => {
    // The JSON reporter exits 0 even with violations: a failure here is the cruiser failing.
    throw new Error(`dependency-cruiser failed: ${err.stderr ?? err}`);
  });
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations;
}

const describe = (v: Violation) => `${v.rule.name}: ${v.from} → ${v.to}${v.cycle ? ` (cycle ${v.cycle.map((c) => c.name).join(' → ')})` : ''}`;

test('the repository: no app imports another app, no import cycle, no import up the API\'s layers, no query in an app', async () => {
  const found = await violations(ROOT);
  assert.deepEqual(found.map(describe), []);
});

test('the rules bite: an app importing another app, the composition root reaching past an entry point, a two-file cycle, a service importing a route and an app importing drizzle-orm are each reported', async () => {
  const root = mkdtempSync(join(tmpdir(), 'idv-depcruise-'));
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  try {
    copyFileSync(CONFIG, join(root, '.dependency-cruiser.cjs'));
    write('tsconfig.json', JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true, noEmit: true } }));
    write('package.json', JSON.stringify({ name: 'fixture', private: true, type: 'module' }));
    // Two apps: "reader" reaches into "writer"'s internals; "writer" exports src/index.ts only.
    write('apps/writer/package.json', JSON.stringify({ name: '@fixture/writer', type: 'module', exports: { '.': './src/index.ts' } }));
    write('apps/writer/src/index.ts', "export { store } from './store.ts';\n");
    write('apps/writer/src/store.ts', 'export const store = new Map<string, string>();\n');
    write('apps/reader/package.json', JSON.stringify({ name: '@fixture/reader', type: 'module' }));
    write('apps/reader/src/main.ts', "import { store } from '../../writer/src/store.ts';\nconsole.log(store.size);\n");
    // The composition root may import the writer's entry point, not a file behind it.
    write('apps/server/package.json', JSON.stringify({ name: '@fixture/server', type: 'module' }));
    write('apps/server/src/main.ts', "import { store } from '../../writer/src/index.ts';\nimport { store as inner } from '../../writer/src/store.ts';\nconsole.log(store === inner);\n");
    // A package whose two modules import each other (one of them for a type only).
    write('packages/shapes/package.json', JSON.stringify({ name: '@fixture/shapes', type: 'module', exports: { '.': './src/circle.ts' } }));
    write('packages/shapes/src/circle.ts', "import type { Square } from './square.ts';\nexport interface Circle { inside?: Square }\n");
    write('packages/shapes/src/square.ts', "import type { Circle } from './circle.ts';\nexport interface Square { inside?: Circle }\n");

    // Inside apps/api: a service reaching up to a route, a presenter to a service, and a query written in the app.
    write('apps/api/package.json', JSON.stringify({ name: '@fixture/api', type: 'module' }));
    write('apps/api/src/routes/cases.ts', "export const CaseSchema = { $id: 'Case' };\n");
    write('apps/api/src/services/cases.ts', "import { CaseSchema } from '../routes/cases.ts';\nexport const schema = CaseSchema;\n");
    write('apps/api/src/presenters/cases.ts', "import { schema } from '../services/cases.ts';\nexport const presented = schema;\n");
    write('apps/api/src/http/query.ts', "import { sql } from 'drizzle-orm';\nexport const one = sql;\n");
    write('node_modules/drizzle-orm/package.json', JSON.stringify({ name: 'drizzle-orm', type: 'module', exports: { '.': './index.js' } }));
    write('node_modules/drizzle-orm/index.js', 'export const sql = () => null;\n');

    // A cycle is reported once, from one of its modules, with the way back.
    const found = (await violations(root)).map(describe).sort();
    assert.deepEqual(found, [
      'api-layers: apps/api/src/presenters/cases.ts → apps/api/src/services/cases.ts',
      'api-layers: apps/api/src/services/cases.ts → apps/api/src/routes/cases.ts',
      'no-app-to-app: apps/reader/src/main.ts → apps/writer/src/store.ts',
      'no-app-to-app: apps/server/src/main.ts → apps/writer/src/store.ts',
      'no-circular: packages/shapes/src/circle.ts → packages/shapes/src/square.ts (cycle packages/shapes/src/square.ts → packages/shapes/src/circle.ts)',
      'sql-in-packages: apps/api/src/http/query.ts → node_modules/drizzle-orm/index.js',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
