import { cpSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema.ts';
import { acquireLock } from './lockfile.ts';
import { RemotePglite } from './pglite-remote.ts';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Anything that runs queries: the database or an open transaction. */
export type Executor = Db | Tx;

export interface Database {
  db: Db;
  kind: 'pglite' | 'postgres';
  ping(): Promise<void>;
  /**
   * Calls `onNotify` for each NOTIFY on `channel` (delivered at commit). On PostgreSQL this holds
   * one connection of its own, reopened after a loss; callers must also poll, since a
   * notification sent while the connection was down is gone. Returns a function that stops.
   */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  /** The connections' use now, for the metrics (read on scrape, no query). */
  poolStats(): PoolStats;
  close(): Promise<void>;
}

/**
 * PostgreSQL: the pg Pool's connections open, busy, and queries waiting for one. PGlite: one
 * connection (the database's thread), busy while statements sent to it are unanswered, the
 * others queued behind the first counting as waiting.
 */
interface PoolStats {
  total: number;
  inUse: number;
  waiting: number;
}

export type DatabaseTarget =
  | { kind: 'postgres'; url: string; poolSize?: number }
  /**
   * `template`: a migrated data directory (pglite-template.ts) that a new data directory starts as
   * a copy of, when it exists; an existing database, or a missing template, opens as without it.
   */
  | { kind: 'pglite'; dataDir: string; template?: string }
  | { kind: 'pglite'; memory: true; snapshot?: string };

const MIGRATIONS = join(dirname(fileURLToPath(import.meta.url)), '..', 'migrations');
/** Any constant: serialises migrations when several instances start against one PostgreSQL. */
const MIGRATION_LOCK = 7_414_021;

/** Opens the database and applies pending migrations before returning. */
export async function openDatabase(target: DatabaseTarget): Promise<Database> {
  return target.kind === 'postgres' ? openPostgres(target.url, target.poolSize ?? 10) : openPglite(target);
}

/**
 * How long a request waits for a new connection before it fails (and is answered 503): while the
 * server is down a connection is refused at once, but a host that stopped answering would leave
 * requests hanging without a bound.
 */
const CONNECT_TIMEOUT_MS = 5_000;

async function openPostgres(url: string, poolSize: number): Promise<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // TCP keep-alive: a connection whose peer vanished without a word is found dead, not waited on.
    keepAlive: true,
  });
  pool.on('error', () => {
    // An idle client lost its connection (a restart of the server ends them all); the pool drops
    // it and opens a new one when needed. Without this listener the event would end the process.
    // Queries in flight see their own error (answered 503, see unavailable.ts).
  });
  pool.on('connect', (client) => {
    // A client checked out when its connection is lost (a transaction between two statements,
    // while the request writes an image, say) reports it as an 'error' event, which the pool only
    // listens to on idle clients: unheard, it would end the process. The transaction's next
    // statement fails on its own (unavailable), and the pool drops the client at its release.
    client.on('error', () => {});
  });
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    await migratePg(drizzlePg(client, { schema }), { migrationsFolder: MIGRATIONS });
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
  } finally {
    client.release();
  }
  const db = drizzlePg(pool, { schema }) as unknown as Db;
  return {
    db,
    kind: 'postgres',
    ping: async () => void (await pool.query('SELECT 1')),
    listen: (channel, onNotify) => listenPostgres(url, channel, onNotify),
    poolStats: () => ({ total: pool.totalCount, inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }),
    close: () => pool.end(),
  };
}

/**
 * Writes a tarball of a new, migrated in-memory database to `path` (atomically: concurrent writers
 * leave one whole file), to open others from it with `{ memory: true, snapshot: path }`.
 * Initialising PGlite's data directory and migrating it costs several seconds of CPU; loading a
 * snapshot a fraction of it, which test files opening a database each pay once. Opening from a
 * snapshot still applies the migrations it lacks.
 * `settings` are kept in the snapshot's postgresql.auto.conf (ALTER SYSTEM), so every database
 * opened from it starts with them. A checkpoint is taken before the dump, so that an opening
 * starts from it instead of replaying the migrations' log.
 */
export async function writePgliteSnapshot(path: string, settings: Record<string, string> = {}): Promise<void> {
  const client = await RemotePglite.open(null);
  try {
    await migratePglite(drizzlePglite({ client: client as unknown as PGlite, schema }), { migrationsFolder: MIGRATIONS });
    for (const [name, value] of Object.entries(settings)) {
      if (!/^[a-z_]+$/.test(name)) throw new Error(`not a setting name: ${name}`);
      await client.exec(`ALTER SYSTEM SET ${name} = '${value.replaceAll("'", "''")}'`);
    }
    await client.exec('CHECKPOINT');
    const partial = `${path}.${process.pid}.${Date.now()}`;
    writeFileSync(partial, await client.dump());
    renameSync(partial, path);
  } finally {
    await client.close();
  }
}

/**
 * Makes `dir` a copy of the migrated data directory `template` (a file copy: a fraction of a second
 * where initialising and migrating one costs seconds of CPU). Copied beside it and renamed, so an
 * interrupted copy never leaves half a database: `dir`, which holds no database (no PG_VERSION;
 * at most what an interrupted initialisation left), is replaced whole.
 */
function copyTemplate(template: string, dir: string): void {
  const partial = `${dir}.partial-${process.pid}`;
  rmSync(partial, { recursive: true, force: true });
  cpSync(template, partial, { recursive: true });
  rmSync(dir, { recursive: true, force: true });
  renameSync(partial, dir);
}

async function openPglite(target: { dataDir: string; template?: string } | { memory: true; snapshot?: string }): Promise<Database> {
  let release = () => {};
  let dir: string | null = null;
  if ('dataDir' in target) {
    mkdirSync(target.dataDir, { recursive: true, mode: 0o700 });
    dir = join(target.dataDir, 'pgdata');
    release = acquireLock(`${dir}.lock`);
  }
  let client: RemotePglite;
  try {
    // Under the lock: a database (PG_VERSION) is never replaced by the template.
    const template = 'template' in target ? target.template : undefined;
    if (dir && template && existsSync(join(template, 'PG_VERSION')) && !existsSync(join(dir, 'PG_VERSION'))) copyTemplate(template, dir);
    // On a thread of its own, off the API's event loop (see pglite-remote.ts).
    client = await RemotePglite.open(dir, 'snapshot' in target ? target.snapshot : undefined);
  } catch (err) {
    release();
    throw err;
  }
  const db = drizzlePglite({ client: client as unknown as PGlite, schema });
  try {
    await migratePglite(db, { migrationsFolder: MIGRATIONS });
  } catch (err) {
    await client.close().catch(() => {});
    release();
    throw err;
  }
  return {
    db: db as unknown as Db,
    kind: 'pglite',
    ping: async () => void (await client.query('SELECT 1')),
    listen: (channel, onNotify) => client.listen(channel, onNotify),
    poolStats: () => {
      const unanswered = client.unanswered;
      return { total: 1, inUse: unanswered > 0 ? 1 : 0, waiting: Math.max(0, unanswered - 1) };
    },
    close: async () => {
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
}

const RELISTEN_DELAY_MS = 1000;

async function listenPostgres(url: string, channel: string, onNotify: () => void): Promise<() => Promise<void>> {
  let stopped = false;
  let current: pg.Client | null = null;
  let retry: NodeJS.Timeout | null = null;
  const connect = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS, keepAlive: true });
    const reconnect = () => {
      if (stopped || current !== client) return;
      current = null;
      client.end().catch(() => {});
      retry = setTimeout(() => void connect().catch(() => {}), RELISTEN_DELAY_MS);
    };
    client.on('error', reconnect);
    client.on('end', reconnect);
    client.on('notification', () => onNotify());
    current = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${pg.escapeIdentifier(channel)}`);
      // Whatever was committed while no connection listened is picked up by the caller's next poll;
      // a wake-up now shortens that gap after a reconnection.
      onNotify();
    } catch {
      reconnect(); // keeps trying in the background; polling covers the gap
    }
  };
  await connect();
  return async () => {
    stopped = true;
    if (retry) clearTimeout(retry);
    const client = current;
    current = null;
    await client?.end().catch(() => {});
  };
}

/** Rows of a raw `db.execute(sql…)` result; both drivers return `{ rows }`. */
export async function queryRows<T>(executor: Executor, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/** The driver under a Db: node-postgres against a server, or the embedded PGlite (for code whose best encoding differs). */
export function driverOf(db: Db): 'postgres' | 'pglite' {
  return (db as unknown as { $client: unknown }).$client instanceof pg.Pool ? 'postgres' : 'pglite';
}
