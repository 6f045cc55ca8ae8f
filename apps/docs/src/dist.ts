import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { SiteAddresses } from './addresses.ts';

// What the docs server needs of a build: kept apart from build.ts so that serving a built site
// loads none of the build's libraries (markdown-it, minisearch, esbuild: development dependencies).

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
/** Where `npm run docs:build` writes the site (gitignored); the docs server serves it. */
export const DIST = join(ROOT, 'apps', 'docs', 'dist');

export interface ManifestFile {
  path: string;
  immutable: boolean;
  etag: string;
  /** A .gz beside the file (compressible and worth it). */
  gzip: boolean;
  /** The file shows the addresses of the manifest: the docs server writes its own in their place. */
  addresses?: boolean;
}

export interface Manifest {
  /** What the files marked `addresses` were written with. */
  addresses: SiteAddresses;
  files: ManifestFile[];
}

/** A file's validator: the build's and, for a file the server rewrites with its addresses, the server's. */
export const etagOf = (body: Buffer) => `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;

/** Newest modification time among what the site is built from. */
function newestSource(root = ROOT): number {
  let newest = 0;
  const walk = (p: string) => {
    if (!existsSync(p)) return;
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
    else newest = Math.max(newest, st.mtimeMs);
  };
  for (const p of ['docs', 'bench/README.md', 'openapi/openapi.json', 'apps/docs/src', 'packages/domain/src/error-catalogue.ts', 'packages/domain/src/webhook-events.ts', 'packages/webhooks/src']) walk(join(root, p));
  return newest;
}

/** Whether `dir` holds a build at least as new as its sources. */
export function isBuilt(dir = DIST): boolean {
  const manifest = join(dir, 'manifest.json');
  return existsSync(manifest) && statSync(manifest).mtimeMs >= newestSource();
}
