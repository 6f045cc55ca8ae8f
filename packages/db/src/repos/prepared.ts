import { getTableColumns, sql, type Column, type SQL } from 'drizzle-orm';
import pg from 'pg';
import type { PgTable } from 'drizzle-orm/pg-core';
import { queryRows, type Executor } from '../connect.ts';

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

/** A placeholder passed to the driver as given (text, numbers, arrays of text). */
export function raw(name: string): SQL {
  return sql`${sql.placeholder(name)}`;
}

const columnLists = new WeakMap<PgTable, [string, Column][]>();

/** The table's (field, column) pairs, listed once per table (a hot path encodes rows per request). */
function columnsOf(table: PgTable): [string, Column][] {
  let list = columnLists.get(table);
  if (!list) columnLists.set(table, (list = Object.entries(getTableColumns(table)) as [string, Column][]));
  return list;
}

/**
 * A row as `json_populate_recordset(NULL::table, $n::json)` takes it: keyed by column name, JSON
 * columns as their value, every other column as its driver value (a timestamp's text, say), null
 * as null. Every column must be given.
 */
export function recordOf<T extends PgTable>(table: T, row: T['$inferSelect']): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [field, column] of columnsOf(table)) {
    const value = (row as Record<string, unknown>)[field];
    if (value === undefined) throw new Error(`${field} missing from a row for a recordset insert`);
    const json = column.getSQLType() === 'jsonb' || column.getSQLType() === 'json';
    out[column.name] = value === null || json ? value : column.mapToDriverValue(value);
  }
  return out;
}

/** The column list of a table, quoted, each prefixed by `alias.` when given: for INSERT … SELECT. */
export function columnList(table: PgTable, alias?: string): string {
  return columnsOf(table)
    .map(([, c]) => (alias ? `"${alias}"."${c.name}"` : `"${c.name}"`))
    .join(', ');
}

/** The same statement as drizzle SQL, for a transaction (whose driver client drizzle keeps to itself). */
function sqlOf(text: string, values: unknown[]): SQL {
  const chunks: SQL[] = [];
  let last = 0;
  for (const m of text.matchAll(/\$(\d+)/g)) {
    chunks.push(sql.raw(text.slice(last, m.index)), sql`${values[Number(m[1]) - 1]}`);
    last = m.index + m[0].length;
  }
  chunks.push(sql.raw(text.slice(last)));
  return sql.join(chunks);
}


/**
 * A statement written in SQL with $n parameters, its text built once: on PostgreSQL a named
 * statement (parsed and planned once per connection), on PGlite its client's query (which the
 * database's thread keeps prepared: pglite-thread.ts), in a transaction through drizzle.
 */
export function textStatement(name: string, text: string): (db: Executor, values: unknown[]) => Promise<Record<string, unknown>[]> {
  return async (db, values) => {
    const client = (db as unknown as { $client?: unknown }).$client;
    if (client instanceof pg.Pool) return (await client.query({ name, text, values })).rows;
    if (client && typeof (client as { query?: unknown }).query === 'function') {
      return (await (client as { query(text: string, values: unknown[]): Promise<{ rows: Record<string, unknown>[] }> }).query(text, values)).rows;
    }
    return queryRows(db, sqlOf(text, values));
  };
}
