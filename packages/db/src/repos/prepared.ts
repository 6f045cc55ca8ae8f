import { getTableColumns, sql, type Column, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../connect.ts';

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
