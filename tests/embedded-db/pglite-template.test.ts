import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { migrationsFingerprint, openDatabase, pgliteTemplatePath, writePgliteTemplate } from '@idv/db';
import { ROOT } from '../helpers/processes.ts';

/** The rows of `db.execute` (typed unknown by drizzle's generic database type). */
const rowsOf = (result: unknown) => (result as { rows: Record<string, unknown>[] }).rows;

/** How many migrations the repository has (drizzle's journal). */
const MIGRATIONS = (JSON.parse(readFileSync(join(ROOT, 'packages/db/migrations/meta/_journal.json'), 'utf8')) as { entries: unknown[] }).entries.length;

/**
 * The template of a new embedded database (packages/db/src/pglite-template.ts), which
 * `npm run build` writes and a first start of the service copies instead of migrating. These open
 * PGlite whatever TEST_DB says.
 */
describe('the migrated template of a new embedded database', () => {
  const dir = mkdtempSync(join(tmpdir(), 'idv-template-'));
  const stale = join(dir, 'pglite-migrated-0000000000000000');
  let template: string;
  before(async () => {
    mkdirSync(stale);
    writeFileSync(join(stale, 'PG_VERSION'), '17\n');
    template = await writePgliteTemplate(dir);
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("is named for the migrations' and PGlite's fingerprint, replaces the templates of other migrations, and is not rewritten when current", async () => {
    assert.equal(template, pgliteTemplatePath(dir));
    assert.equal(basename(template), `pglite-migrated-${migrationsFingerprint().slice(0, 16)}`);
    assert.equal(existsSync(stale), false);
    const written = statSync(join(template, 'PG_VERSION')).mtimeMs;
    assert.equal(await writePgliteTemplate(dir), template);
    assert.equal(statSync(join(template, 'PG_VERSION')).mtimeMs, written);
  });

  test('a new data directory starts as a copy of it, with every migration applied; a database already there is opened, never replaced', async () => {
    // initdb gives every new database a system identifier of its own (the first 8 bytes of its
    // control file, little-endian on every platform PGlite runs on): a copy keeps the template's.
    const identifier = sql`SELECT system_identifier::text AS id FROM pg_control_system()`;
    const templateId = readFileSync(join(template, 'global', 'pg_control')).readBigUInt64LE(0).toString();
    const dataDir = join(dir, 'data');
    const first = await openDatabase({ kind: 'pglite', dataDir, template });
    try {
      assert.deepEqual(rowsOf(await first.db.execute(identifier)), [{ id: templateId }]);
      assert.deepEqual(rowsOf(await first.db.execute(sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)), [{ n: MIGRATIONS }]);
      // A table of the schema, empty as in a new database.
      assert.deepEqual(rowsOf(await first.db.execute(sql`SELECT count(*)::int AS n FROM clients`)), [{ n: 0 }]);
      await first.db.execute(sql`CREATE TABLE template_probe (note text)`);
      await first.db.execute(sql`INSERT INTO template_probe VALUES ('kept')`);
    } finally {
      await first.close();
    }
    const again = await openDatabase({ kind: 'pglite', dataDir, template });
    try {
      assert.deepEqual(rowsOf(await again.db.execute(sql`SELECT note FROM template_probe`)), [{ note: 'kept' }]);
      assert.deepEqual(rowsOf(await again.db.execute(sql`SELECT count(*)::int AS n FROM drizzle.__drizzle_migrations`)), [{ n: MIGRATIONS }]);
    } finally {
      await again.close();
    }
  });
});
