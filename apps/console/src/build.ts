import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

const HERE = dirname(fileURLToPath(import.meta.url));

import { DIST, encodedFile, type ManifestEntry } from './dist.ts';
import { precompress } from './precompress.ts';
import type { ConsoleAssets } from './server/assets.ts';

/** What the console server serves for the web app: url path (e.g. "/assets/app-HASH.js") → file. */
export type { ConsoleAssets };

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.html': 'text/html; charset=utf-8',
};

const ICON = `data:image/svg+xml,${encodeURIComponent(readFileSync(join(HERE, 'web', 'icon.svg'), 'utf8').trim())}`;

function typeOf(path: string): string {
  return TYPES[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream';
}

/**
 * The document of every app route. No inline script or style (the console's CSP forbids them):
 * the entry module, its statically imported chunks (preloaded so they download in parallel) and
 * the stylesheet, all by hashed name.
 */
function indexHtml(entry: string, css: string, preloads: string[]): string {
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="referrer" content="no-referrer">',
    '<title>Console</title>',
    // The icon inline (the docs site's mark on the console's slate): no request at page load, and
    // without this line the browser would ask for /favicon.ico at every one.
    `<link rel="icon" href="${ICON}">`,
    `<link rel="stylesheet" href="${css}">`,
    ...preloads.map((p) => `<link rel="modulepreload" href="${p}">`),
    `<script type="module" src="${entry}"></script>`,
    '</head>',
    '<body>',
    '<div id="root"></div>',
    '<noscript>This console needs JavaScript.</noscript>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}

const PREACT_ALIASES = {
  react: 'preact/compat',
  'react-dom': 'preact/compat',
  'react-dom/client': 'preact/compat/client',
  'react/jsx-runtime': 'preact/jsx-runtime',
  'react/jsx-dev-runtime': 'preact/jsx-runtime',
};

export interface ConsoleBuildReport {
  assets: ConsoleAssets;
  /** URL paths of what the first screen loads: the entry, its static chunks and the stylesheet. */
  firstScreen: string[];
}

/**
 * Bundles the web app with esbuild, in memory: React, the router and the query cache in the entry
 * and its shared chunks, each screen that is not the first (the case screen, search, support) in
 * a chunk of its own fetched when reached; hashed names; minified; production React.
 */
export async function buildConsole(): Promise<ConsoleBuildReport> {
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: { app: join(HERE, 'web', 'main.tsx'), style: join(HERE, 'web', 'styles.css') },
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    splitting: true,
    outdir: '/assets',
    entryNames: '[name]-[hash]',
    chunkNames: 'c-[hash]',
    target: ['es2020', 'safari15', 'chrome100', 'firefox100'],
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    // Preact through its compatibility layer instead of React: the same components, router and
    // query cache, with about 190 kB less JavaScript to parse and run before the first screen.
    alias: PREACT_ALIASES,
    legalComments: 'none',
    logLevel: 'silent',
    metafile: true,
  });
  const assets: ConsoleAssets = new Map();
  for (const out of result.outputFiles) assets.set(out.path, { body: Buffer.from(out.contents), contentType: typeOf(out.path), immutable: true });
  const outputs = result.metafile.outputs;
  const served = (p: string) => `/assets/${basename(p)}`;
  const find = (suffix: string) => Object.keys(outputs).find((p) => outputs[p].entryPoint?.endsWith(suffix))!;
  const entry = find('web/main.tsx');
  const css = find('web/styles.css');
  // The chunks the entry imports statically, transitively (the first screen needs all of them).
  const preloads: string[] = [];
  const visit = (p: string) => {
    for (const i of outputs[p].imports) {
      if (i.kind !== 'import-statement' || preloads.includes(served(i.path))) continue;
      preloads.push(served(i.path));
      visit(i.path);
    }
  };
  visit(entry);
  const html = indexHtml(served(entry), served(css), preloads);
  assets.set('/index.html', { body: Buffer.from(html), contentType: typeOf('.html'), immutable: false });
  await precompress(assets);
  return { assets, firstScreen: [served(entry), ...preloads, served(css)] };
}

/** The built console for the console server. */
export async function loadConsoleAssets(): Promise<ConsoleAssets> {
  return (await buildConsole()).assets;
}

/** Writes the build into `dir` (replacing what was there) with a manifest.json that loadAssets() reads. */
export function writeConsoleAssets(assets: ConsoleAssets, dir = DIST): void {
  rmSync(dir, { recursive: true, force: true });
  const manifest: ManifestEntry[] = [];
  for (const [path, a] of assets) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, a.body);
    const encodings = Object.entries(a.encoded ?? {}) as [ManifestEntry['encoded'][number], Buffer][];
    for (const [encoding, bytes] of encodings) writeFileSync(encodedFile(file, encoding), bytes);
    manifest.push({ path, contentType: a.contentType, immutable: a.immutable, encoded: encodings.map(([e]) => e) });
  }
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
}

/** Gzip bytes of what the first screen downloads (JS and CSS), for the report and the benchmark. */
export function firstScreenGzipBytes(report: ConsoleBuildReport): { js: number; css: number } {
  let js = 0;
  let css = 0;
  for (const path of report.firstScreen) {
    const bytes = gzipSync(report.assets.get(path)!.body, { level: 9 }).length;
    if (path.endsWith('.css')) css += bytes;
    else js += bytes;
  }
  return { js, css };
}

/** A short fingerprint of the whole build (for logs). */
export function consoleBuildId(assets: ConsoleAssets): string {
  const hash = createHash('sha256');
  for (const [path, a] of [...assets].sort(([x], [y]) => x.localeCompare(y))) hash.update(path).update(a.body);
  return hash.digest('hex').slice(0, 12);
}

// `tsx apps/console/src/build.ts` (npm run build:console) writes dist/ and prints the sizes.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await buildConsole();
  writeConsoleAssets(report.assets);
  const sizes = firstScreenGzipBytes(report);
  console.log(JSON.stringify({ build: consoleBuildId(report.assets), dir: DIST, first_screen_gzip: sizes, files: [...report.assets.keys()] }));
}
