import { sql } from 'drizzle-orm';
import pg from 'pg';
import { queryRows, type Db } from '../connect.ts';
import type { Tenant } from './tenant.ts';

/** A line of the usage export: codes, quantities, instants and case ids, nothing else. */
export interface ExportedUnit {
  /** ISO 8601 in UTC with milliseconds, as ctx.now() wrote it. */
  occurred_at: string;
  service: string;
  quantity: number;
  case_id: string;
}

const PAGE = 2000;
const INSTANT = `to_char(occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
// ORDER BY names the table's column: a bare `occurred_at` there means the output column of that
// name, the formatted text above, which no index serves (a scan and sort of the whole month per
// page), and whose millisecond text need not agree with the keyset on the column itself.

/**
 * The tenant's units of [start, end), by instant then source key, in pages of at most `pageSize`
 * rows: only a page is in memory at a time, however large the month. Stop early with `return()`
 * (a `for await` that breaks, a stream destroyed): the database side is released.
 *
 * On PostgreSQL: a server-side cursor (DECLARE … FETCH) in a read-only repeatable-read transaction
 * on a connection of its own, so the export is one snapshot: its lines add up to the month's
 * totals read at the same moment. On PGlite a transaction holds the whole database until it ends
 * (pglite-remote.ts), so a cursor would stop every other request for the whole export; there each
 * page is its own indexed query that starts after the last line of the previous one.
 */
export async function* usageUnitPages(db: Db, tenant: Tenant, range: { start: Date; end: Date }, pageSize = PAGE): AsyncGenerator<ExportedUnit[]> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) yield* cursorPages(client, tenant, range, pageSize);
  else yield* keysetPages(db, tenant, range, pageSize);
}

async function* cursorPages(pool: pg.Pool, tenant: Tenant, range: { start: Date; end: Date }, pageSize: number): AsyncGenerator<ExportedUnit[]> {
  const conn = await pool.connect();
  let state: 'open' | 'ended' | 'failed' = 'open';
  try {
    await conn.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    await conn.query(
      `DECLARE usage_export NO SCROLL CURSOR FOR
         SELECT ${INSTANT} AS occurred_at, service, quantity, case_id FROM usage_units
         WHERE client_id = $1 AND environment = $2 AND occurred_at >= $3 AND occurred_at < $4
         ORDER BY usage_units.occurred_at, source_key`,
      [tenant.clientId, tenant.environment, range.start.toISOString(), range.end.toISOString()],
    );
    for (;;) {
      const { rows } = await conn.query<ExportedUnit>(`FETCH ${pageSize} FROM usage_export`);
      if (rows.length > 0) yield rows;
      if (rows.length < pageSize) break;
    }
    await conn.query('COMMIT');
    state = 'ended';
  } catch (err) {
    state = 'failed';
    throw err;
  } finally {
    // Stopped early: the transaction is ended before the connection goes back to the pool. A
    // connection that failed, or cannot even roll back, is discarded rather than reused.
    if (state === 'open') state = await conn.query('ROLLBACK').then(() => 'ended' as const, () => 'failed' as const);
    conn.release(state === 'failed' ? true : undefined);
  }
}

async function* keysetPages(db: Db, tenant: Tenant, range: { start: Date; end: Date }, pageSize: number): AsyncGenerator<ExportedUnit[]> {
  let after: { at: string; key: string } | null = null;
  for (;;) {
    const rows: (ExportedUnit & { at_key: string; source_key: string })[] = await queryRows(
      db,
      sql`SELECT ${sql.raw(INSTANT)} AS occurred_at, service, quantity, case_id, occurred_at::text AS at_key, source_key
          FROM usage_units
          WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment}
            AND occurred_at >= ${range.start.toISOString()} AND occurred_at < ${range.end.toISOString()}
            ${after ? sql`AND (occurred_at, source_key) > (${after.at}::timestamptz, ${after.key})` : sql``}
          ORDER BY usage_units.occurred_at, source_key
          LIMIT ${pageSize}`,
    );
    if (rows.length > 0) {
      const last = rows[rows.length - 1];
      after = { at: last.at_key, key: last.source_key };
      yield rows.map(({ occurred_at, service, quantity, case_id }) => ({ occurred_at, service, quantity, case_id }));
    }
    if (rows.length < pageSize) return;
  }
}
