import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, encodedFile, type ManifestEntry } from './dist.ts';
import type { ConsoleAssets } from './server/assets.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Newest modification time of what the web app is built from. */
function newestSource(): number {
  let newest = 0;
  const walk = (p: string) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  walk(join(HERE, 'web'));
  return newest;
}

/**
 * The web app for the console server: read from `dir` when it was built after the last change of
 * the sources; otherwise (a development checkout) bundled now, in memory, with the build's
 * development dependencies (esbuild and the browser libraries).
 */
export async function loadAssets(dir = DIST): Promise<ConsoleAssets> {
  const manifestPath = join(dir, 'manifest.json');
  if (!existsSync(manifestPath) || statSync(manifestPath).mtimeMs < newestSource()) {
    const { loadConsoleAssets } = await import('./build.ts');
    return loadConsoleAssets();
  }
  const assets: ConsoleAssets = new Map();
  for (const f of JSON.parse(readFileSync(manifestPath, 'utf8')) as ManifestEntry[]) {
    const file = join(dir, f.path);
    const encoded = Object.fromEntries(f.encoded.map((e) => [e, readFileSync(encodedFile(file, e))]));
    assets.set(f.path, { body: readFileSync(file), contentType: f.contentType, immutable: f.immutable, ...(f.encoded.length ? { encoded } : {}) });
  }
  return assets;
}
