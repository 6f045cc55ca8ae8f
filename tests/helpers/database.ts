import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '@idv/db';

/** Which database the suite runs on: TEST_DB=pglite (default) or TEST_DB=postgres. */
export const TEST_DB = (process.env.TEST_DB ?? 'pglite') as 'pglite' | 'postgres';
export const ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

/**
 * A real, empty, migrated database for one test file: an in-memory PGlite, or a fresh database
 * created on the PostgreSQL server (dropped again by `drop`).
 */
export async function freshDatabase(): Promise<{ database: Database; url: string | null; drop: () => Promise<void> }> {
  if (TEST_DB === 'pglite') {
    const database = await openDatabase({ kind: 'pglite', memory: true });
    return { database, url: null, drop: () => database.close() };
  }
  const { url, dropDb } = await createPostgresDatabase();
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

/** Creates an empty database on the server; for tests and benchmarks that start their own processes. */
export async function createPostgresDatabase(): Promise<{ url: string; dropDb: () => Promise<void> }> {
  const name = `idv_t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: ADMIN_URL });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    dropDb: async () => {
      const c = new pg.Client({ connectionString: ADMIN_URL });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
