import { sql } from 'drizzle-orm';
import pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
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
 * rows: only a page is in memory at a time, however large the month. Each page is its own indexed
 * query starting after the last line of the previous one (no transaction held open: on PGlite a
 * transaction holds the whole database, pglite-remote.ts). Stop early with `return()`.
 */
export function usageUnitPages(db: Db, tenant: Tenant, range: { start: Date; end: Date }, pageSize = PAGE): AsyncGenerator<ExportedUnit[]> {
  return keysetPages(db, tenant, range, pageSize);
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

/**
 * The export as CSV text (RFC 4180: header row, CRLF line ends), by instant then source key.
 * On PostgreSQL the server formats it (COPY (SELECT …) TO STDOUT, CSV) from one read-only
 * repeatable-read snapshot, and its bytes pass through as they come: no row object, no string per
 * line in this process, which keeps the export's memory flat however many units the month holds.
 * On PGlite (no COPY to a client stream, and a transaction would hold the whole database) each
 * keyset page of `usageUnitPages` is formatted by `formatPage`. Stop early with `return()`.
 */
export async function* usageCsv(
  db: Db,
  tenant: Tenant,
  range: { start: Date; end: Date },
  formatPage: (rows: ExportedUnit[], header: boolean) => string,
): AsyncGenerator<string | Buffer> {
  const client = (db as unknown as { $client?: unknown }).$client;
  if (client instanceof pg.Pool) {
    yield* copyCsv(client, tenant, range);
    return;
  }
  yield formatPage([], true);
  for await (const page of keysetPages(db, tenant, range, PAGE)) yield formatPage(page, false);
}

async function* copyCsv(pool: pg.Pool, tenant: Tenant, range: { start: Date; end: Date }): AsyncGenerator<Buffer> {
  const conn = await pool.connect();
  let state: 'open' | 'ended' | 'failed' = 'open';
  try {
    await conn.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    // COPY takes no bind parameters: the values are quoted by the driver's escapeLiteral.
    const q = (v: string) => conn.escapeLiteral(v);
    const stream = conn.query(
      copyTo(`COPY (SELECT ${INSTANT} AS occurred_at, service, quantity, case_id FROM usage_units
         WHERE client_id = ${q(tenant.clientId)} AND environment = ${q(tenant.environment)}
           AND occurred_at >= ${q(range.start.toISOString())} AND occurred_at < ${q(range.end.toISOString())}
         ORDER BY usage_units.occurred_at, source_key) TO STDOUT WITH (FORMAT csv, HEADER true)`),
    );
    // PostgreSQL ends CSV lines with LF; RFC 4180 wants CRLF. No field can hold a line break
    // (instants, service codes, integers, case ids), so every LF is a line end.
    for await (const chunk of stream as AsyncIterable<Buffer>) yield crlf(chunk);
    await conn.query('COMMIT');
    state = 'ended';
  } catch (err) {
    state = 'failed';
    throw err;
  } finally {
    // Stopped early (the client gone): the COPY is cut by discarding the connection, since a
    // connection in the middle of a COPY cannot be handed back to the pool.
    if (state === 'open') state = 'failed';
    conn.release(state === 'failed' ? true : undefined);
  }
}

function crlf(chunk: Buffer): Buffer {
  let lines = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) lines++;
  if (lines === 0) return chunk;
  const out = Buffer.allocUnsafe(chunk.length + lines);
  let o = 0;
  let from = 0;
  for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) {
    o += chunk.copy(out, o, from, i);
    out[o++] = 13;
    out[o++] = 10;
    from = i + 1;
  }
  chunk.copy(out, o, from);
  return out;
}
