/**
 * The import rules of the repository, checked by `npm run lint:deps` in CI and by
 * tests/architecture/dependencies.test.ts:
 *
 * - no-app-to-app: an app (apps/<name>) imports packages, never another app, so each app can be
 *   read, changed and deployed on its own. The one exception is the composition root, apps/server
 *   (what `npm start` runs): it may import what another app's package.json exports (its public
 *   entry points: the API's `build()` and demo bootstrap, the worker's parts, the journey and docs
 *   servers), nothing else of it.
 * - no-circular: no import cycle between modules anywhere in apps/ and packages/ (type-only
 *   imports and dynamic import() count too: a cycle is a knot for the reader either way).
 * - api-layers: inside apps/api the arrows point down. Routes own their schemas and call services;
 *   services, presenters, the shared contracts (schemas/), the HTTP plumbing (http/) and the admin
 *   commands never import a route; presenters, contracts and http/ never import a service.
 * - sql-in-packages: no app imports drizzle-orm: queries live in packages/db (and the blob
 *   store's own table in packages/blobstore).
 */
const { readdirSync, readFileSync, existsSync } = require('node:fs');
const { join, normalize } = require('node:path');

const COMPOSITION_ROOT = 'server';

/** The files an app publishes through its package.json "exports" (paths from the repository root). */
function appEntryPoints(root = __dirname) {
  const entries = [];
  for (const app of readdirSync(join(root, 'apps'))) {
    const manifest = join(root, 'apps', app, 'package.json');
    if (!existsSync(manifest)) continue;
    const exportsField = JSON.parse(readFileSync(manifest, 'utf8')).exports ?? {};
    const targets = typeof exportsField === 'string' ? [exportsField] : Object.values(exportsField);
    for (const target of targets) if (typeof target === 'string') entries.push(normalize(join('apps', app, target)).split('\\').join('/'));
  }
  return entries;
}

const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

module.exports = {
  forbidden: [
    {
      name: 'no-app-to-app',
      comment: 'An app imports packages, never another app (apps/server, the composition root, may import the apps\' exported entry points).',
      severity: 'error',
      from: { path: '^apps/([^/]+)/', pathNot: `^apps/${COMPOSITION_ROOT}/` },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-app-to-app',
      comment: 'The composition root imports only what an app exports in its package.json.',
      severity: 'error',
      from: { path: `^apps/${COMPOSITION_ROOT}/` },
      to: {
        path: '^apps/',
        pathNot: [`^apps/${COMPOSITION_ROOT}/`, ...appEntryPoints().map((entry) => `^${escape(entry)}$`)],
      },
    },
    {
      name: 'api-layers',
      comment: 'Services, presenters, contracts, http/ and admin/ never import a route: move what they need down (presenters/, schemas/, services/).',
      severity: 'error',
      from: { path: '^apps/api/src/(services|presenters|schemas|http|admin)/' },
      to: { path: '^apps/api/src/routes/' },
    },
    {
      name: 'api-layers',
      comment: 'Presenters, contracts and http/ never import a service.',
      severity: 'error',
      from: { path: '^apps/api/src/(presenters|schemas|http)/' },
      to: { path: '^apps/api/src/services/' },
    },
    {
      name: 'sql-in-packages',
      comment: 'An app writes no query: add a function to packages/db and call it.',
      severity: 'error',
      from: { path: '^apps/' },
      to: { path: '(^|/)node_modules/drizzle-orm/' },
    },
    {
      name: 'no-circular',
      comment: 'An import cycle between modules: move what both sides share into a module of its own.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Bundles built from the sources (the journey's dist/, and a build's staging dist.<pid>-<time>/
    // while it runs beside this check in CI) are not modules of the repository.
    // node_modules is not followed but kept as leaves, so that sql-in-packages sees drizzle-orm.
    exclude: { path: ['^apps/[^/]+/dist([./]|$)'] },
    tsConfig: { fileName: 'tsconfig.json' },
    // Type-only imports are imports for the reader too.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
