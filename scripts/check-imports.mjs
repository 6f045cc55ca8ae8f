#!/usr/bin/env node
// Each workspace (and the root, for tests/, bench/ and scripts/) declares the packages its files
// import, and a file the running service loads imports no devDependency (a production install
// omits them; see runtimeFiles). Usage: node scripts/check-imports.mjs [root]; exits 1 on a finding.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const SOURCE = /\.(?:[cm]?[jt]sx?|css)$/;

// import … from 'x', export … from 'x', import 'x', import('x'), require('x'), require.resolve('x'), CSS @import 'x'
const IMPORT =
  /(?:^|[\s;{}])(import|export)(\s+type)?\s[^'";]*?\sfrom\s*['"]([^'"\s,]+)['"]|(?:^|[\s;{}])import\s*['"]([^'"\s,]+)['"]|(?:^|[^.\w$])(import|require|require\.resolve)\(\s*['"]([^'"\s,]+)['"]\s*\)|@import\s+(?:url\()?['"]([^'"\s,]+)['"]|new URL\(\s*['"](\.[^'"\s,]+)['"],\s*import\.meta\.url/gm;

/** The package an import specifier names, or null for a relative path, a node built-in or a URL. */
function packageOf(specifier) {
  if (/^(?:\.|\/|node:|https?:|data:|#)/.test(specifier)) return null;
  const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : specifier.split('/')[0];
  return builtinModules.includes(name) ? null : name;
}

/**
 * Every import in `text`: the specifier, whether it is type-only (`import type`, `typeof import()`)
 * and whether it is loaded lazily (`import()`), which the server's files may use for what only a
 * development checkout has.
 */
function importsOf(text) {
  const found = [];
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
  for (const m of code.matchAll(IMPORT)) {
    const specifier = m[3] ?? m[4] ?? m[6] ?? m[7] ?? m[8];
    const typeOnly = Boolean(m[2]) || (m[5] === 'import' && /typeof\s*$/.test(code.slice(Math.max(0, m.index - 12), m.index + 1)));
    found.push({ specifier, typeOnly, lazy: m[5] === 'import' && !typeOnly });
  }
  return found;
}

/**
 * The files the running service loads: from the entry points of the root's scripts that run it
 * (the `apps/….ts` or `.mjs` run by serve, api, worker, admin, console, dev-idp: not the build
 * scripts), through
 * static imports, `new URL('./x.ts', import.meta.url)` (worker threads) and the exports of the
 * workspaces they import. Lazy import() is not followed: a development checkout's fallback.
 */
function runtimeFiles(root, manifests) {
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const entries = Object.entries(rootManifest.scripts ?? {})
    .filter(([name]) => !/^(build|docs:build|bench|train|test|db:|openapi|api:types|console:types)/.test(name))
    .flatMap(([, command]) => [...command.matchAll(/(?:^|\s)(apps\/\S+\.(?:ts|mjs))(?=\s|$)/g)].map((m) => join(root, m[1])));
  const seen = new Set();
  const resolveWorkspace = (specifier) => {
    for (const [dir, m] of manifests) {
      if (specifier !== m.name && !specifier.startsWith(`${m.name}/`)) continue;
      const sub = `.${specifier.slice(m.name.length)}`;
      const target = typeof m.exports === 'string' ? (sub === '.' ? m.exports : undefined) : m.exports?.[sub];
      return typeof target === 'string' ? join(dir, target) : null;
    }
    return null;
  };
  const visit = (file) => {
    if (!file || seen.has(file) || !existsSync(file) || !statSync(file).isFile()) return;
    seen.add(file);
    for (const { specifier, typeOnly, lazy } of importsOf(readFileSync(file, 'utf8'))) {
      if (typeOnly || lazy) continue;
      if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
      else visit(resolveWorkspace(specifier));
    }
  };
  entries.forEach(visit);
  return seen;
}

function walk(dir, out = []) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path, out);
    else if (SOURCE.test(name)) out.push(path);
  }
  return out;
}

/** The workspace folders of the root package.json (only `dir/*` patterns). */
function workspaces(root) {
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  return (manifest.workspaces ?? []).flatMap((pattern) => {
    const base = join(root, pattern.replace(/\/\*$/, ''));
    return existsSync(base) ? readdirSync(base).map((d) => join(base, d)).filter((d) => existsSync(join(d, 'package.json'))) : [];
  });
}

/** The findings under `root`: "<file>: imports <name>, …". */
export function undeclaredImports(root) {
  const findings = [];
  const rootManifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const spaces = workspaces(root);
  const workspaceNames = new Set(spaces.map((d) => JSON.parse(readFileSync(join(d, 'package.json'), 'utf8')).name));
  const manifests = new Map(spaces.map((d) => [d, JSON.parse(readFileSync(join(d, 'package.json'), 'utf8'))]));
  const runtime = runtimeFiles(root, manifests);
  const units = [
    ...spaces.map((dir) => ({ dir, files: walk(dir), manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')), root: false })),
    { dir: root, files: ['tests', 'bench', 'scripts', 'examples'].filter((d) => existsSync(join(root, d))).flatMap((d) => walk(join(root, d))), manifest: rootManifest, root: true },
  ];
  for (const unit of units) {
    const deps = new Set(Object.keys(unit.manifest.dependencies ?? {}));
    const dev = new Set(Object.keys(unit.manifest.devDependencies ?? {}));
    for (const file of unit.files) {
      const rel = relative(root, file);
      // The examples are integrators' projects with package.json files of their own.
      if (unit.root && rel.startsWith('examples/') && existsSync(join(root, rel.split('/').slice(0, 2).join('/'), 'package.json'))) continue;
      for (const { specifier, typeOnly } of importsOf(readFileSync(file, 'utf8'))) {
        const name = packageOf(specifier);
        if (!name || name === unit.manifest.name || (unit.root && workspaceNames.has(name))) continue;
        if (!deps.has(name) && !dev.has(name)) findings.push(`${rel}: imports ${name}, which ${relative(root, join(unit.dir, 'package.json')) || 'package.json'} does not declare`);
        else if (!unit.root && runtime.has(file) && !deps.has(name) && !typeOnly)
          findings.push(`${rel}: the server runs this file, and it imports ${name}, a devDependency of ${relative(root, join(unit.dir, 'package.json'))} (a production install omits it)`);
      }
    }
  }
  return [...new Set(findings)];
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const root = process.argv[2] ?? fileURLToPath(new URL('..', import.meta.url));
  const findings = undeclaredImports(root);
  for (const f of findings) console.error(f);
  console.log(findings.length ? `${findings.length} undeclared import(s)` : 'every import is declared by its workspace');
  process.exit(findings.length ? 1 : 0);
}
