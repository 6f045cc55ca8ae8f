import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase } from './connect.ts';

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
 * given to openDatabase as `template`): a folder named for the fingerprint, so a stale one is
 * simply not found.
 */
export function pgliteTemplatePath(dir: string): string {
  return join(dir, `${PREFIX}${migrationsFingerprint().slice(0, 16)}`);
}

/**
 * Writes the template of a new embedded database in `dir` (`npm run build`), unless the current
 * one is there, and removes those of earlier migrations: a PGlite data directory, migrated and
 * closed cleanly. A first start then copies its files (a fraction of a second) instead of
 * initialising PostgreSQL's files and running every migration (seconds of CPU before the API can
 * answer). Made beside it and renamed: a build stopped halfway leaves no half template. Returns
 * its path.
 */
export async function writePgliteTemplate(dir: string): Promise<string> {
  mkdirSync(dir, { recursive: true });
  const path = pgliteTemplatePath(dir);
  if (!existsSync(path)) {
    const work = mkdtempSync(join(dir, '.template-'));
    try {
      const database = await openDatabase({ kind: 'pglite', dataDir: work });
      await database.close();
      try {
        renameSync(join(work, 'pgdata'), path);
      } catch (err) {
        // Another build made it meanwhile (the same migrations: the same template).
        if (!existsSync(path)) throw err;
      }
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  for (const name of readdirSync(dir)) {
    if (name.startsWith(PREFIX) && join(dir, name) !== path) rmSync(join(dir, name), { recursive: true, force: true });
  }
  return path;
}
