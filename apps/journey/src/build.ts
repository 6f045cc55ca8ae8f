import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import type { Plugin } from 'esbuild';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..', '..');
/** Where `npm run build:journey` writes the built files (the server reads them when present). */
export const DIST = join(HERE, '..', 'dist');

export interface Asset {
  /** URL path, e.g. /assets/app-4f2a….js */
  path: string;
  type: string;
  body: Buffer;
  gzip: Buffer;
  br: Buffer;
  /** Hashed names never change content: cached for a year. */
  immutable: boolean;
}

export interface JourneyAssets {
  files: Map<string, Asset>;
  /** Entry files of the page (app), of the /embed loader, the stylesheet and the integrator script. */
  app: string;
  loader: string;
  css: string;
  embedScript: string;
  /** Chunks the app entry imports statically: preloaded by the page so they download in parallel. */
  appImports: string[];
  /**
   * What the face step may download beyond the first screen: the detector's chunk and what it
   * imports, the weights, and tfjs's WebAssembly files (the browser fetches one of the three).
   */
  faceStep: string[];
}

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  // WebAssembly.instantiateStreaming needs this exact type.
  '.wasm': 'application/wasm',
  '.bin': 'application/octet-stream',
};

const AUTOCAPTURE = join(HERE, 'app', 'autocapture');

/**
 * face-api's browser build imports all of tfjs and its WebGL and WebAssembly backends. The face
 * step needs tfjs's core and the WebAssembly backend only: "@tensorflow/tfjs" becomes the core
 * (autocapture/tfjs/core.ts) and the WebGL backend nothing, which keeps the face step's download
 * within its budget (bench:journey prints it).
 */
const tfjsForFaceApi: Plugin = {
  name: 'tfjs-for-face-api',
  setup(build) {
    build.onResolve({ filter: /^@tensorflow\/tfjs\/dist\/index\.js$/ }, () => ({ path: join(AUTOCAPTURE, 'tfjs', 'core.ts') }));
    build.onResolve({ filter: /^@tensorflow\/tfjs-backend-webgl\/dist\/index\.js$/ }, () => ({ path: join(AUTOCAPTURE, 'tfjs', 'none.ts') }));
  },
};

/**
 * Brotli's best quality for the app's own small files; a fast one for the face step's large files
 * (tfjs, its WebAssembly, the weights), where quality 11 costs seconds of CPU for a few percent.
 */
const brotliQuality = (bytes: number) => (bytes > 64 * 1024 ? 5 : 11);

/** An asset, compressed now unless its encodings are given (a build read back from dist/). */
function asset(path: string, body: Buffer, immutable: boolean, encoded?: { gzip: Buffer; br: Buffer }): Asset {
  const ext = path.slice(path.lastIndexOf('.'));
  return {
    path,
    type: TYPES[ext] ?? 'application/octet-stream',
    body,
    gzip: encoded?.gzip ?? gzipSync(body, { level: 9 }),
    br: encoded?.br ?? brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: brotliQuality(body.length), [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }),
    immutable,
  };
}

/**
 * Bundles the journey with esbuild: the app and the /embed loader as ES modules split into
 * shared chunks (each message file is its own chunk, downloaded only for the session's language;
 * the camera and review code after the first screen is up, see Journey.prefetch), the stylesheet, and the integrator script
 * (packages/embed) as one classic script for any page.
 */
export async function buildJourneyAssets(): Promise<JourneyAssets> {
  const esbuild = await import('esbuild');
  const common = { bundle: true, minify: true, write: false, target: ['es2020', 'safari15', 'chrome100'], legalComments: 'none' as const, logLevel: 'silent' as const };
  const app = await esbuild.build({
    ...common,
    entryPoints: { app: join(HERE, 'app', 'main.ts'), loader: join(HERE, 'app', 'loader.ts'), style: join(HERE, 'app', 'styles.css') },
    format: 'esm',
    splitting: true,
    outdir: '/assets',
    entryNames: '[name]-[hash]',
    chunkNames: 'c-[hash]',
    // The face detector's weights and tfjs's WebAssembly files: copied under hashed names, their URL imported.
    loader: { '.bin': 'file', '.wasm': 'file' },
    assetNames: '[name]-[hash]',
    publicPath: '/assets',
    plugins: [tfjsForFaceApi],
    metafile: true,
  });
  const embed = await esbuild.build({
    ...common,
    entryPoints: [join(ROOT, 'packages', 'embed', 'src', 'browser.ts')],
    format: 'iife',
    outfile: '/embed.js',
  });
  const files = new Map<string, Asset>();
  for (const out of app.outputFiles ?? []) files.set(out.path, asset(out.path, Buffer.from(out.contents), true));
  const embedOut = embed.outputFiles![0];
  files.set('/embed.js', asset('/embed.js', Buffer.from(embedOut.contents), false));
  const outputs = app.metafile.outputs;
  // Metafile paths are relative to the working directory; served paths are /assets/<name>.
  const served = (p: string) => `/assets/${basename(p)}`;
  const find = (entry: string) => Object.keys(outputs).find((p) => outputs[p].entryPoint?.endsWith(entry))!;
  const appOut = find('app/main.ts');
  const faceChunk = Object.keys(outputs).find((p) => Object.keys(outputs[p].inputs).some((i) => i.endsWith('autocapture/face-model.ts')))!;
  const appImports = outputs[appOut].imports.filter((i) => i.kind === 'import-statement').map((i) => served(i.path));
  // What the face chunk imports that the first screen did not already bring (esbuild's shared helpers).
  const faceStep = [faceChunk, ...outputs[faceChunk].imports.map((i) => i.path)].map(served).filter((p) => p !== served(appOut) && !appImports.includes(p));
  return {
    files,
    app: served(appOut),
    loader: served(find('app/loader.ts')),
    css: served(find('app/styles.css')),
    embedScript: '/embed.js',
    appImports,
    faceStep,
  };
}

interface Manifest {
  app: string;
  loader: string;
  css: string;
  embedScript: string;
  appImports: string[];
  faceStep: string[];
  files: { path: string; immutable: boolean }[];
}

/** Writes the built files and a manifest to apps/journey/dist (a production install without esbuild serves these). */
export function writeJourneyAssets(assets: JourneyAssets, dir = DIST): void {
  mkdirSync(join(dir, 'assets'), { recursive: true });
  for (const a of assets.files.values()) {
    writeFileSync(join(dir, a.path), a.body);
    writeFileSync(join(dir, `${a.path}.gz`), a.gzip);
    writeFileSync(join(dir, `${a.path}.br`), a.br);
  }
  const manifest: Manifest = {
    app: assets.app,
    loader: assets.loader,
    css: assets.css,
    embedScript: assets.embedScript,
    appImports: assets.appImports,
    faceStep: assets.faceStep,
    files: [...assets.files.values()].map((a) => ({ path: a.path, immutable: a.immutable })),
  };
  writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 2));
}

/** Newest modification time of the journey's sources (the app and the integrator script). */
function newestSource(): number {
  let newest = 0;
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const p = join(d, name);
      const st = statSync(p);
      if (st.isDirectory()) walk(p);
      else newest = Math.max(newest, st.mtimeMs);
    }
  };
  for (const d of [join(HERE, 'app'), join(ROOT, 'packages', 'embed', 'src')]) if (existsSync(d)) walk(d);
  return newest;
}

/**
 * The built journey: from apps/journey/dist when it was built after the last change of the
 * sources (`npm run build:journey`, what a production image ships), otherwise bundled now.
 */
export async function loadJourneyAssets(dir = DIST): Promise<JourneyAssets> {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath) || statSync(manifestPath).mtimeMs < newestSource()) return buildJourneyAssets();
  const m = JSON.parse(readFileSync(manifestPath, 'utf8')) as Manifest;
  const files = new Map<string, Asset>();
  for (const f of m.files) {
    const file = join(dir, f.path);
    // The encodings written beside each file: compressing again would cost every start ~0.3 s of CPU.
    const encoded = existsSync(`${file}.br`) && existsSync(`${file}.gz`) ? { gzip: readFileSync(`${file}.gz`), br: readFileSync(`${file}.br`) } : undefined;
    files.set(f.path, asset(f.path, readFileSync(file), f.immutable, encoded));
  }
  return { files, app: m.app, loader: m.loader, css: m.css, embedScript: m.embedScript, appImports: m.appImports, faceStep: m.faceStep ?? [] };
}

/** A short fingerprint of the whole build (for logs and the benchmark). */
export function buildId(assets: JourneyAssets): string {
  const hash = createHash('sha256');
  for (const a of [...assets.files.values()].sort((x, y) => x.path.localeCompare(y.path))) hash.update(a.path).update(a.body);
  return hash.digest('hex').slice(0, 12);
}

// `tsx apps/journey/src/build.ts` writes dist/.
if (process.argv[1] && basename(process.argv[1]) === 'build.ts' && fileURLToPath(import.meta.url) === process.argv[1]) {
  const assets = await buildJourneyAssets();
  writeJourneyAssets(assets);
  const sizes = [...assets.files.values()].map((a) => `${a.path} ${a.body.length} B (br ${a.br.length} B)`);
  console.log(`built ${buildId(assets)} into ${DIST}:\n${sizes.join('\n')}`);
}
