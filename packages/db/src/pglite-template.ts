import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { writePgliteSnapshot } from './connect.ts';

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
const PREFIX = 'pglite-migrated-';

/**
 * The migrations' files and PGlite's version, hashed: what a migrated PGlite data directory made
 * ahead of time depends on. A new or renumbered migration, or another PGlite (another data
 * format), gives another fingerprint, so a template made before is never mistaken for current.
 */
export function migrationsFingerprint(): string {
  const hash = createHash('sha256');
  for (const name of readdirSync(MIGRATIONS, { recursive: true }).map(String).sort()) {
    if (name.endsWith('.sql') || name.endsWith('.json')) hash.update(name).update(readFileSync(join(MIGRATIONS, name)));
  }
  // Its package.json (not exported: found beside its entry, dist/).
  hash.update(readFileSync(join(dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite')), '..', 'package.json')));
  return hash.digest('hex');
}

/**
 * Where the template for the current migrations lives in `dir` (made by writePgliteTemplate,
 * given to openDatabase as `template`): a name holding the fingerprint, so a stale one is simply
 * not found.
 */
export function pgliteTemplatePath(dir: string): string {
  return join(dir, `${PREFIX}${migrationsFingerprint().slice(0, 16)}.tar`);
}

/**
 * Writes the template of a new embedded database in `dir` (`npm run build`), unless the current
 * one is there, and removes those of earlier migrations. A first start then copies it (well
 * under a second) instead of initialising PostgreSQL's files and running every migration
 * (seconds of CPU before the API can answer). Returns its path.
 */
export async function writePgliteTemplate(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = pgliteTemplatePath(dir);
  if (!existsSync(path)) await writePgliteSnapshot(path);
  for (const name of readdirSync(dir)) {
    if (name.startsWith(PREFIX) && join(dir, name) !== path) rmSync(join(dir, name), { force: true });
  }
  return path;
}
