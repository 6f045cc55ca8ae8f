import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ROOT } from '../helpers/processes.ts';
// @ts-expect-error: a plain script, without type declarations
import { undeclaredImports } from '../../scripts/check-imports.mjs';

const check = undeclaredImports as (root: string) => string[];

/**
 * Each workspace declares what it imports (`npm run lint:imports`, in CI): the repository passes,
 * and a fixture with an undeclared import and a devDependency loaded by the running service fails.
 */

test('every workspace of the repository declares the packages it imports', () => {
  assert.deepEqual(check(ROOT), []);
});

test('an undeclared import, and a devDependency the running service loads (through tsx or a node launcher), are found', () => {
  const root = mkdtempSync(join(tmpdir(), 'idv-imports-'));
  try {
    const put = (path: string, text: string) => {
      mkdirSync(dirname(join(root, path)), { recursive: true });
      writeFileSync(join(root, path), text);
    };
    const manifest = (m: object) => JSON.stringify(m);
    put('package.json', manifest({ name: 'fixture', workspaces: ['apps/*', 'packages/*'], scripts: { serve: 'node --require tsx/cjs apps/server/src/serve.mjs', api: 'tsx apps/server/src/main.ts --api-only', build: 'tsx apps/server/src/build.ts' }, devDependencies: { tsx: '*' } }));
    put('apps/server/package.json', manifest({ name: '@fx/server', dependencies: { '@fx/lib': '*', fastify: '*' }, devDependencies: { esbuild: '*' } }));
    put('apps/server/src/main.ts', "import fastify from 'fastify';\nimport { util } from '@fx/lib';\nimport './start.ts';\nconst build = () => import('./build.ts');\n");
    // A plain launcher run by node, which names the file it runs by URL (as serve.mjs and bundle.ts do).
    put('apps/server/src/serve.mjs', "const entry = new URL('./bundled.ts', import.meta.url);\n");
    put('apps/server/src/bundled.ts', "import { transform } from 'esbuild';\n");
    put('apps/server/src/start.ts', "import type { Plugin } from 'esbuild';\nexport const started = true;\n");
    put('apps/server/src/build.ts', "import { build } from 'esbuild';\n");
    put('packages/lib/package.json', manifest({ name: '@fx/lib', exports: { '.': './src/index.ts' }, devDependencies: { pino: '*' } }));
    put('packages/lib/src/index.ts', "import pino from 'pino';\nimport { join } from 'node:path';\nimport padding from 'left-pad';\n");
    put('tests/a.test.ts', "import { util } from '@fx/lib';\nimport pg from 'pg';\n");
    assert.deepEqual(check(root).sort(), [
      'apps/server/src/bundled.ts: the server runs this file, and it imports esbuild, a devDependency of apps/server/package.json (a production install omits it)',
      'packages/lib/src/index.ts: imports left-pad, which packages/lib/package.json does not declare',
      'packages/lib/src/index.ts: the server runs this file, and it imports pino, a devDependency of packages/lib/package.json (a production install omits it)',
      'tests/a.test.ts: imports pg, which package.json does not declare',
    ]);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
