import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Loader } from 'esbuild';
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
  // Lazily: esbuild is loaded only when a bundle is made, never by a start on a current one.
  const { build } = await import('esbuild');
  const dir = `bundle-${Date.now().toString(36)}-${process.pid}`;
  const result = await build({
    entryPoints: [ENTRY],
    outdir: join(SERVER_DIST, dir),
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outExtension: { '.js': '.mjs' },
    // Stack traces name the sources (serve.mjs turns source maps on).
    sourcemap: 'linked',
    metafile: true,
    logLevel: 'warning',
    plugins: [
      {
        name: 'idv-server',
        setup(b) {
          // Packages from node_modules stay imports; the workspaces (@idv/*) are bundled.
          b.onResolve({ filter: /^[^./]/ }, (args) => (args.path.startsWith('@idv/') ? undefined : { external: true }));
          b.onLoad({ filter: /\.[cm]?[jt]sx?$/ }, async (args) => ({
            contents: (await readFile(args.path, 'utf8')).replaceAll('import.meta.url', JSON.stringify(pathToFileURL(args.path).href)),
            loader: LOADERS[args.path.slice(args.path.lastIndexOf('.') + 1)],
          }));
        },
      },
    ],
  });
  const files = Object.keys(result.metafile.inputs)
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
