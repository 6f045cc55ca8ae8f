import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Loader, Metafile, Plugin } from 'esbuild';
import { SERVER_DIST } from './dist.ts';

/**
 * The service as one JavaScript bundle (apps/server/dist), which `npm run serve` and `npm run api`
 * run with plain Node (src/serve.mjs): through tsx, every one of the service's ~370 TypeScript
 * modules is resolved and transformed (or read from tsx's cache) by a loader thread at every start,
 * seconds of CPU before the API can listen (bench/README.md, `bench:start`).
 *
 * Only the repository's own sources are bundled; every package from node_modules stays an import
 * (native modules, WebAssembly and files found beside their package's code keep working), and
 * the service's dynamic import()s become chunks loaded when reached. In each bundled file,
 * `import.meta.url` is its source file's URL, so what the sources find beside themselves (the
 * migrations, the worker threads' entries, the models, the web apps' builds) is found as when they
 * run through tsx. The worker threads still load their TypeScript entries through tsx's require
 * hook, which serve.mjs's command line (`--require tsx/cjs`) gives every thread.
 */

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
const ENTRY = fileURLToPath(new URL('./main.ts', import.meta.url));
const MANIFEST = join(SERVER_DIST, 'bundle.json');

/** esbuild's loader for each extension the onLoad of bundleServer reads. */
const LOADERS: Record<string, Loader> = { ts: 'ts', mts: 'ts', cts: 'ts', tsx: 'tsx', js: 'js', mjs: 'js', cjs: 'js', jsx: 'jsx' };

/** What `import.meta.url` becomes (esbuild's define): a constant each bundled source declares. */
const SOURCE_URL = '__idvSourceUrl';

/**
 * The source with its own URL declared on its first line (after a `#!` line), so that its lines
 * keep their numbers in the source maps; only where it names `import.meta.url`.
 */
function withSourceUrl(source: string, url: string): string {
  if (!source.includes('import.meta.url')) return source;
  const declaration = `const ${SOURCE_URL} = ${JSON.stringify(url)};`;
  const shebang = source.startsWith('#!') ? source.indexOf('\n') + 1 : 0;
  return source.slice(0, shebang) + declaration + source.slice(shebang);
}

/**
 * Bundles the repository's own sources and leaves every package of node_modules an import, with
 * `import.meta.url` in each bundled file its source file's URL: what a source finds beside itself
 * (migrations, worker threads' entries, models, fixtures) is found as when it runs through tsx.
 * The service's bundle and the test runner's bundles of the test files (scripts/test.mjs) share it.
 */
function sourcesPlugin(): Plugin {
  return {
    name: 'idv-sources',
    setup(b) {
      // Packages from node_modules stay imports; the workspaces (@idv/*) are bundled.
      b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@idv/') ? undefined : { external: true }));
      b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => ({
        contents: withSourceUrl(await readFile(args.path, 'utf8'), pathToFileURL(args.path).href),
        loader: LOADERS[args.path.slice(args.path.lastIndexOf('.') + 1)],
      }));
    },
  };
}

/**
 * Bundles entry points with the repository's sources (sourcesPlugin) into ES modules for Node 20,
 * shared chunks split out and linked source maps, so that stack traces name the sources (under
 * Node's --enable-source-maps or process.setSourceMapsEnabled).
 * @public scripts/test.mjs loads it through tsx's tsImport, which knip cannot follow.
 */
export async function bundleSources(options: { entryPoints: string[]; outdir: string; outbase?: string }): Promise<Metafile> {
  // Lazily: esbuild is loaded only when a bundle is made, never by a start on a current one.
  const { build } = await import('esbuild');
  const result = await build({
    ...options,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    // An expression, not a text: `import.meta.url` inside a string or a comment is left alone.
    define: { 'import.meta.url': SOURCE_URL },
    plugins: [sourcesPlugin()],
  });
  return result.metafile;
}

/** What bundle.json records: the bundle's folder under dist/ and a hash of every source in it. */
interface BundleManifest {
  dir: string;
  sources: string;
  files: string[];
}

/** The bundled sources' contents, hashed (a few milliseconds): a change to any of them makes the bundle stale. */
function hashSources(files: string[]): string | null {
  const hash = createHash('sha256');
  for (const file of files) {
    const path = join(ROOT, file);
    if (!existsSync(path)) return null;
    hash.update(file).update('\0').update(readFileSync(path));
  }
  return hash.digest('hex');
}

/** The entry of the bundle made from the sources as they are now, or null when there is none (never built, or a source changed since). */
export function currentBundle(): string | null {
  if (!existsSync(MANIFEST)) return null;
  const manifest = JSON.parse(readFileSync(MANIFEST, 'utf8')) as BundleManifest;
  const entry = join(SERVER_DIST, manifest.dir, 'main.mjs');
  return existsSync(entry) && hashSources(manifest.files) === manifest.sources ? entry : null;
}

/**
 * Bundles the service into a new folder of dist/ and makes it current (bundle.json, replaced
 * atomically: services started at the same moment each bundle into a folder of their own and one
 * of them wins). `prune` removes the other folders, for `npm run build` (a service still running
 * on one may yet load a chunk of it). Returns the entry.
 */
export async function bundleServer({ prune = false } = {}): Promise<string> {
  const dir = `bundle-${Date.now().toString(36)}-${process.pid}`;
  const metafile = await bundleSources({ entryPoints: [ENTRY], outdir: join(SERVER_DIST, dir) });
  const files = Object.keys(metafile.inputs)
    .map((input) => relative(ROOT, join(process.cwd(), input)))
    .sort();
  const manifest: BundleManifest = { dir, sources: hashSources(files)!, files };
  const partial = `${MANIFEST}.${process.pid}`;
  writeFileSync(partial, `${JSON.stringify(manifest)}\n`);
  renameSync(partial, MANIFEST);
  if (prune) {
    for (const name of readdirSync(SERVER_DIST)) if (name.startsWith('bundle-') && name !== dir) rmSync(join(SERVER_DIST, name), { recursive: true, force: true });
  }
  return join(SERVER_DIST, dir, 'main.mjs');
}
