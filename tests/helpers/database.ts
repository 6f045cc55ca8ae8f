import { execFileSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { migrationsFingerprint, openDatabase, writePgliteSnapshot, type Database } from '@idv/db';

/** Which database the suite runs on: TEST_DB=pglite (default) or TEST_DB=postgres. */
export const TEST_DB = (process.env.TEST_DB ?? 'pglite') as 'pglite' | 'postgres';
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A real, empty, migrated database for one test file: PGlite on a new data directory extracted from
 * the migrated snapshot (tar is cheaper than loading it into memory), or a fresh database created
 * on the PostgreSQL server; `drop` removes it.
 */
export async function freshDatabase(): Promise<{ database: Database; url: string | null; drop: () => Promise<void> }> {
  if (TEST_DB === 'pglite') {
    const dataDir = mkdtempSync(join(tmpdir(), 'idv-test-db-'));
    const remove = () => rmSync(dataDir, { recursive: true, force: true });
    // A file that ends without its `drop` (a failed before hook) leaves no directory behind.
    process.once('exit', remove);
    await seedPgliteDataDir(dataDir);
    const database = await openDatabase({ kind: 'pglite', dataDir });
    return {
      database,
      url: null,
      drop: async () => {
        await database.close();
        remove();
        process.off('exit', remove);
      },
    };
  }
  const { url, dropDb } = await createPostgresDatabase({ migrated: true });
  const database = await openDatabase({ kind: 'postgres', url, poolSize: 20 });
  return {
    database,
    url,
    drop: async () => {
      await database.close();
      await dropDb();
    },
  };
}

/**
 * Creates a database on the server, empty or (`migrated`) a copy of the migrated template; for
 * tests and benchmarks that start their own processes. The servers' first start (server-process)
 * takes an empty one.
 */
export async function createPostgresDatabase(opts: { migrated?: boolean } = {}): Promise<{ url: string; dropDb: () => Promise<void> }> {
  const template = opts.migrated ? await migratedTemplate() : null;
  const name = `idv_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`);
  await admin.end();
  return {
    url: urlOf(name),
    dropDb: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}

function urlOf(database: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${database}`;
  return url.toString();
}

/** Any constant: serialises the making of the template between test files started together. */
const TEMPLATE_LOCK = 7_414_022;
let template: Promise<string> | null = null;

/**
 * A migrated, empty database on the server, named after the migrations, from which each file's
 * database is created (CREATE DATABASE … TEMPLATE copies files instead of migrating again). Built
 * under another name and renamed, so a file stopped halfway leaves no half-migrated template.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const name = `idv_template_${migrationsFingerprint().slice(0, 16)}`;
    const admin = new pg.Client({ connectionString: ADMIN_URL });
    await admin.connect();
    try {
      await admin.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK]);
      if ((await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 0) {
        const building = `${name}_${process.pid}`;
        await admin.query(`DROP DATABASE IF EXISTS ${building}`);
        await admin.query(`CREATE DATABASE ${building}`);
        await (await openDatabase({ kind: 'postgres', url: urlOf(building), poolSize: 1 })).close();
        await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      }
    } finally {
      await admin.end(); // ends the session, and with it the lock
    }
    return name;
  })();
  return template;
}

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let snapshot: Promise<string> | null = null;

/**
 * The settings of every test database opened from the snapshot (in its postgresql.auto.conf).
 * shared_buffers: PGlite's default of 128 MB is set up at each opening (about half a second of
 * CPU, measured on this machine); a test database of a few megabytes fits whole in 16.
 */
const SNAPSHOT_SETTINGS = { shared_buffers: '16MB' };

/**
 * A migrated, empty PGlite data directory as a tarball in .tmp/, shared by every file's database
 * and the started services' DATA_DIRs (a fraction of migrating a new one). Its name holds the
 * migrations', PGlite's and SNAPSHOT_SETTINGS' versions, so a change makes a new one.
 */
function migratedSnapshot(): Promise<string> {
  snapshot ??= (async () => {
    // The migrations' and PGlite's fingerprint, and the settings.
    const hash = createHash('sha256').update(migrationsFingerprint()).update(JSON.stringify(SNAPSHOT_SETTINGS));
    const dir = join(ROOT, '.tmp');
    const path = join(dir, `pglite-migrated-${hash.digest('hex').slice(0, 16)}.tar`);
    if (!existsSync(path)) {
      mkdirSync(dir, { recursive: true });
      await writePgliteSnapshot(path, SNAPSHOT_SETTINGS);
    }
    return path;
  })();
  return snapshot;
}

/**
 * Gives a service's new DATA_DIR the migrated snapshot as its embedded database (DATA_DIR/pgdata),
 * for the suites whose subject is not the first start: the service then opens an existing
 * database (about 1.3 s) rather than initialising and migrating one (about 6 s, paid by every
 * start of every such suite). tests/e2e/server-process.test.ts keeps the real first start.
 */
export async function seedPgliteDataDir(dataDir: string): Promise<void> {
  const snapshot = await migratedSnapshot();
  mkdirSync(join(dataDir, 'pgdata'), { recursive: true, mode: 0o700 });
  execFileSync('tar', ['-xf', snapshot, '-C', join(dataDir, 'pgdata')], { stdio: 'ignore' });
}
