import { getTableColumns, sql, type Column, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import type { Executor } from '../connect.ts';
import { StatementBatcher, queryNamed, type BatchOptions, type NamedStatement } from '../pg-batch.ts';

/**
 * A statement of the hot path, built once per database handle and then only executed: no query
 * building per call, and on PostgreSQL a named statement, parsed and planned once per connection.
 * A transaction is another handle; it gets its own on first use (built as a plain query would be).
 */
export function perHandle<T>(build: (db: Executor) => T): (db: Executor) => T {
  const built = new WeakMap<Executor, T>();
  return (db) => {
    let statement = built.get(db);
    if (statement === undefined) {
      statement = build(db);
      built.set(db, statement);
    }
    return statement;
  };
}

/** A placeholder passed to the driver as given: encode it with `encodeRow` (or pass text and numbers). */
export function raw(name: string): SQL {
  return sql`${sql.placeholder(name)}`;
}

/** `{ field: $<prefix><field> }` for every column of the table: the values of a prepared insert. */
export function rowPlaceholders<T extends PgTable>(table: T, prefix: string): { [K in keyof T['$inferInsert']]-?: SQL } {
  return Object.fromEntries(Object.keys(getTableColumns(table)).map((field) => [field, raw(prefix + field)])) as {
    [K in keyof T['$inferInsert']]-?: SQL;
  };
}

const columnLists = new WeakMap<PgTable, [string, Column][]>();

/** The table's (field, column) pairs, listed once per table (a hot path encodes rows per request). */
function columnsOf(table: PgTable): [string, Column][] {
  let list = columnLists.get(table);
  if (!list) columnLists.set(table, (list = Object.entries(getTableColumns(table)) as [string, Column][]));
  return list;
}

/**
 * The values for `rowPlaceholders`, encoded as drizzle encodes the values of a plain insert (each
 * column's driver mapping; null stays SQL NULL, which a prepared statement's own mapping would turn
 * into JSON null or a crash). Every column must be given.
 */
export function encodeRow<T extends PgTable>(table: T, prefix: string, row: T['$inferSelect']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, column] of columnsOf(table)) {
    const value = (row as Record<string, unknown>)[field];
    if (value === undefined) throw new Error(`${field} missing from a row for a prepared insert`);
    out[prefix + field] = value === null ? null : column.mapToDriverValue(value);
  }
  return out;
}

/**
 * How a pool's connections are shared with a batched statement: half of them at most, so that
 * reads and the worker keep connections of their own under a flood of creations (batches grow
 * instead), and up to 32 executions a batch.
 */
function batchOptionsFor(pool: pg.Pool): BatchOptions {
  const max = (pool as unknown as { options: { max: number } }).options.max;
  return { connections: Math.max(1, Math.floor(max / 2)), maxBatch: 32 };
}

/**
 * A statement written in SQL (for what the query builder cannot say, such as INSERT … SELECT …
 * ON CONFLICT inside a CTE), run on the database's own client: named on PostgreSQL (parsed and
 * planned once per connection), and on PGlite through its client, which names each text once.
 * Only outside a transaction. With `batchKey`, executions on PostgreSQL share round trips and
 * commits under load (pg-batch.ts; executions with equal keys never share one). Rows come with
 * the driver's own parsing (timestamps as Date, JSON parsed), keyed by column alias: read them
 * with `rowFrom`.
 */
export function namedSql(
  name: string,
  text: string,
  options: { batchKey?: (values: unknown[]) => string } = {},
): (db: Executor, values: unknown[]) => Promise<Record<string, unknown>[]> {
  const statement: NamedStatement = { name, text };
  const batchers = new WeakMap<pg.Pool, StatementBatcher>();
  const { batchKey } = options;
  return async (db, values) => {
    const client = (db as unknown as { $client?: unknown }).$client;
    if (client instanceof pg.Pool) {
      if (batchKey) {
        let batcher = batchers.get(client);
        if (!batcher) batchers.set(client, (batcher = new StatementBatcher(client, statement, batchOptionsFor(client))));
        return batcher.run(values, batchKey(values));
      }
      return queryNamed(client, statement, values);
    }
    if (client && typeof (client as PGlite).query === 'function') return (await (client as PGlite).query<Record<string, unknown>>(text, values)).rows;
    throw new Error(`${name} runs on the database itself, not inside a transaction`);
  };
}

/** `alias."column" AS "<prefix>column", …` for every column of the table. */
export function columnsAs(table: PgTable, alias: string, prefix: string): string {
  return Object.values(getTableColumns(table) as Record<string, Column>)
    .map((c) => `${alias}."${c.name}" AS "${prefix}${c.name}"`)
    .join(', ');
}

/** The table's row from `columnsAs` aliases, or null when the row's primary key is null (an outer join found none). */
export function rowFrom<T extends PgTable>(table: T, prefix: string, row: Record<string, unknown>): T['$inferSelect'] | null {
  const out: Record<string, unknown> = {};
  for (const [field, column] of columnsOf(table)) {
    const value = row[prefix + column.name];
    if (column.primary && value === null) return null;
    out[field] = value;
  }
  return out as T['$inferSelect'];
}
