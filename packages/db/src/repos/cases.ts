import { and, desc, eq, getTableColumns, gt, lt, or, sql, type Column, type SQL } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { newId, type CaseStatus } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { caseJournal, cases, idempotencyKeys } from '../schema.ts';
import type { ApiKeyRow } from './api-keys.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import type { StoredResponse } from './idempotency.ts';
import { encodeRow, encodeRowValues, namedSql, perHandle, raw, rowPlaceholders } from './prepared.ts';

export type CaseRow = typeof cases.$inferSelect;

export async function insertCase(tx: Executor, row: typeof cases.$inferInsert): Promise<CaseRow> {
  const [inserted] = await tx.insert(cases).values(row).returning();
  return inserted;
}

const createCaseStatement = perHandle((db) => {
  const c = db.$with('c').as(db.insert(cases).values(rowPlaceholders(cases, 'c_')).returning({ id: cases.id }));
  const j = db.$with('j').as(db.insert(caseJournal).values(rowPlaceholders(caseJournal, 'j_')).returning({ id: caseJournal.id }));
  const k = db.$with('k').as(
    db
      .update(idempotencyKeys)
      .set({ state: 'done', responseStatus: raw('k_status'), responseBody: raw('k_body') })
      .where(and(eq(idempotencyKeys.apiKeyId, raw('k_api_key_id')), eq(idempotencyKeys.key, raw('k_key'))))
      .returning({ key: idempotencyKeys.key }),
  );
  return db.with(c, j, k).select({ id: c.id }).from(c).prepare('idv_case_create');
});

/**
 * A new case, its journal entry and the stored response of the idempotent request that creates it,
 * written by ONE statement (data-modifying CTEs): the three commit together, or none does, without
 * the BEGIN and COMMIT round trips of a transaction. The row is written exactly as given (defaults
 * included), so the caller can present it without reading it back.
 */
export async function insertCaseWithJournal(
  db: Executor,
  row: CaseRow,
  journal: { actor: string; action: string; detail: Record<string, unknown> },
  response: StoredResponse,
): Promise<void> {
  const entry = {
    id: newId('jrn', row.createdAt.getTime()),
    clientId: row.clientId,
    environment: row.environment,
    caseId: row.id,
    actor: journal.actor,
    action: journal.action,
    detail: journal.detail,
    at: row.createdAt,
  } satisfies typeof caseJournal.$inferSelect;
  await createCaseStatement(db).execute({
    ...encodeRow(cases, 'c_', row),
    ...encodeRow(caseJournal, 'j_', entry),
    k_status: response.status,
    k_body: JSON.stringify(response.body),
    k_api_key_id: response.apiKeyId,
    k_key: response.key,
  });
}

export async function findCase(db: Executor, tenant: Tenant, id: string): Promise<CaseRow | null> {
  const [row] = await db.select().from(cases).where(and(tenantFilter(cases, tenant), eq(cases.id, id)));
  return row ?? null;
}

export interface CaseFilters {
  externalRef?: string;
  /** Prefix of the external reference or of the case id. */
  q?: string;
  status?: CaseStatus;
  country?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  cursor?: string;
  limit: number;
}

/** Newest first; returns up to limit + 1 rows so the caller can tell whether more follow. */
export async function listCases(db: Executor, tenant: Tenant, f: CaseFilters): Promise<CaseRow[]> {
  const where: SQL[] = [tenantFilter(cases, tenant)];
  if (f.externalRef !== undefined) where.push(eq(cases.externalRef, f.externalRef));
  if (f.q !== undefined) {
    where.push(or(sql`starts_with(${cases.externalRef}, ${f.q})`, sql`starts_with(${cases.id}, ${f.q})`)!);
  }
  if (f.status) where.push(eq(cases.status, f.status));
  if (f.country) where.push(eq(cases.country, f.country));
  if (f.createdAfter) where.push(gt(cases.createdAt, f.createdAfter));
  if (f.createdBefore) where.push(lt(cases.createdAt, f.createdBefore));
  if (f.cursor) where.push(lt(cases.id, f.cursor));
  return db.select().from(cases).where(and(...where)).orderBy(desc(cases.id)).limit(f.limit + 1);
}

/** `$<n>::text::<type>, …` for every column of the table from parameter `first` on (text in, cast by the server). */
function castParams(table: PgTable, first: number): string {
  return Object.values(getTableColumns(table) as Record<string, Column>)
    .map((c, i) => `$${first + i}::text::${c.getSQLType()}`)
    .join(', ');
}

const columnList = (table: PgTable) =>
  Object.values(getTableColumns(table) as Record<string, Column>)
    .map((c) => `"${c.name}"`)
    .join(', ');

const CASE_PARAMS_FROM = 10;
const JOURNAL_PARAMS_FROM = CASE_PARAMS_FROM + Object.keys(getTableColumns(cases)).length;
const TAKEOVER = (e: string, now: string, hash: string) =>
  `(${e}.expires_at < ${now} OR (${e}.state = 'running' AND ${e}.locked_until < ${now} AND ${e}.request_hash = ${hash}))`;

/**
 * The whole signed creation of a case in ONE autocommit statement (one round trip, one commit):
 * reads the API key by the hash of its secret; reads the live entry of (key, Idempotency-Key)
 * (an expired one, or a running one whose lock elapsed for the same request, counts as none);
 * only for a key that exists, is not revoked and has no live entry, takes a transaction-level
 * advisory lock on (key, Idempotency-Key) without waiting; only with that lock and while the
 * given flow is still the active one, inserts the entry already done with its stored response,
 * then the case (from the entry's RETURNING) and its journal entry (from the case's). The unique
 * index of the entries stays the backstop: a concurrent twin whose row committed after this
 * statement's snapshot makes the insert a no-op, and nothing else is written.
 * The advisory lock is released at commit, after the rows are visible: a duplicate that failed
 * to take it was concurrent (in progress), one that takes it after sees the stored response.
 */
const createCaseOnceStatement = namedSql(
  'idv_case_create_once',
  `WITH "k" AS (SELECT * FROM api_keys WHERE secret_hash = $1::text),
  "e" AS (SELECT request_hash, state, response_status, response_body FROM idempotency_keys AS "x"
    WHERE "x".api_key_id = $2::text AND "x".key = $3::text AND NOT ${TAKEOVER('"x"', '$5::text::timestamptz', '$4::text')}),
  "ok" AS MATERIALIZED (SELECT 1 FROM "k" WHERE "k".id = $2::text AND "k".revoked_at IS NULL AND NOT EXISTS (SELECT 1 FROM "e")),
  "lk" AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(hashtextextended($2::text || chr(31) || $3::text, 0)) AS got FROM "ok"),
  "fl" AS MATERIALIZED (SELECT 1 FROM flows WHERE id = $6::text AND status = 'active' AND EXISTS (SELECT 1 FROM "lk" WHERE got)),
  "i" AS (
    INSERT INTO idempotency_keys AS "x" (api_key_id, key, request_hash, state, response_status, response_body, created_at, locked_until, expires_at)
    SELECT $2::text, $3::text, $4::text, 'done', $7::text::integer, $8::text::jsonb, $5::text::timestamptz, $5::text::timestamptz, $9::text::timestamptz FROM "fl"
    ON CONFLICT (api_key_id, key) DO UPDATE SET
      request_hash = excluded.request_hash, state = 'done', response_status = excluded.response_status, response_body = excluded.response_body,
      created_at = excluded.created_at, locked_until = excluded.locked_until, expires_at = excluded.expires_at
    WHERE ${TAKEOVER('"x"', 'excluded.created_at', 'excluded.request_hash')}
    RETURNING 1),
  "c" AS (INSERT INTO cases (${columnList(cases)}) SELECT ${castParams(cases, CASE_PARAMS_FROM)} FROM "i" RETURNING id),
  "j" AS (INSERT INTO case_journal (${columnList(caseJournal)}) SELECT ${castParams(caseJournal, JOURNAL_PARAMS_FROM)} FROM "c" RETURNING id)
  SELECT json_build_object('created', (SELECT count(*) FROM "j")::int, 'locked', (SELECT got FROM "lk"), 'flow_ok', EXISTS (SELECT 1 FROM "fl"),
    'e_hash', "e".request_hash, 'e_state', "e".state, 'e_status', "e".response_status, 'e_body', "e".response_body,
    'k_id', "k".id, 'k_revoked_at', "k".revoked_at) AS "r"
  FROM (SELECT 1) AS "one" LEFT JOIN "k" ON true LEFT JOIN "e" ON true`,
);

export interface CaseCreationOnce {
  /** Hash of the request's API key secret: the key is read by the statement itself. */
  secretHash: string;
  /** The id of that key as this process knows it (the entry is written under it). */
  apiKeyId: string;
  idempotencyKey: string;
  requestHash: string;
  now: Date;
  /** Until when the stored response is replayed. */
  retainUntil: Date;
  /** The response to store, as stored (sealed by the caller). */
  response: { status: number; body: unknown };
  /** The case, written exactly as given (its flowId must be the flow believed active). */
  row: CaseRow;
  journal: { actor: string; action: string; detail: Record<string, unknown> };
}

export type CaseCreationOnceResult =
  | { outcome: 'created' }
  /** A live entry for (key, Idempotency-Key) decides: replay, mismatch or in progress. */
  | { outcome: 'existing'; requestHash: string; state: 'running' | 'done'; status: number | null; body: unknown }
  /** A concurrent twin holds the advisory lock. */
  | { outcome: 'locked' }
  /** The flow given is no longer the active one: nothing written. */
  | { outcome: 'flow_changed' }
  /** A twin committed after this statement's snapshot (the unique index refused the entry): read it again. */
  | { outcome: 'conflict' };

/**
 * createCaseOnceStatement: `apiKey` is what the statement read of the key (null when no key has
 * that hash): its id and revocation, the rest of a key never changing. Nothing is written unless
 * it exists, is not revoked and has the id given. Run it outside a transaction (it is its own).
 */
export async function createCaseOnce(
  db: Executor,
  c: CaseCreationOnce,
): Promise<{ apiKey: Pick<ApiKeyRow, 'id' | 'revokedAt'> | null; result: CaseCreationOnceResult }> {
  const entry = {
    id: newId('jrn', c.row.createdAt.getTime()),
    clientId: c.row.clientId,
    environment: c.row.environment,
    caseId: c.row.id,
    actor: c.journal.actor,
    action: c.journal.action,
    detail: c.journal.detail,
    at: c.row.createdAt,
  } satisfies typeof caseJournal.$inferSelect;
  const values: unknown[] = [
    c.secretHash,
    c.apiKeyId,
    c.idempotencyKey,
    c.requestHash,
    c.now.toISOString(),
    c.row.flowId,
    c.response.status,
    JSON.stringify(c.response.body),
    c.retainUntil.toISOString(),
  ];
  encodeRowValues(cases, c.row, values);
  encodeRowValues(caseJournal, entry, values);
  const [{ r: row }] = (await createCaseOnceStatement(db, values)) as [{ r: CreateOnceRow }];
  const apiKey = row.k_id === null ? null : { id: row.k_id, revokedAt: row.k_revoked_at === null ? null : new Date(row.k_revoked_at) };
  return { apiKey, result: outcomeOf(row) };
}

/**
 * The statement's answer, as ONE json column: the driver then describes and parses one field per
 * creation instead of nine (building the row object of nine fields cost more than the parse).
 * JSON carries timestamps as ISO text.
 */
interface CreateOnceRow {
  created: number;
  locked: boolean | null;
  flow_ok: boolean;
  e_hash: string | null;
  e_state: 'running' | 'done' | null;
  e_status: number | null;
  e_body: unknown;
  k_id: string | null;
  k_revoked_at: string | null;
}

function outcomeOf(row: CreateOnceRow): CaseCreationOnceResult {
  if (row.created === 1) return { outcome: 'created' };
  if (row.e_hash !== null) {
    return { outcome: 'existing', requestHash: row.e_hash, state: row.e_state!, status: row.e_status, body: row.e_body };
  }
  if (row.locked === false) return { outcome: 'locked' };
  if (row.locked === true && row.flow_ok === false) return { outcome: 'flow_changed' };
  return { outcome: 'conflict' };
}
