import { getTableColumns, type Column } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';
import { newId } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { caseJournal, cases } from '../schema.ts';
import type { ApiKeyRow } from './api-keys.ts';
import type { CaseRow } from './cases.ts';
import { entryTakenOver } from './idempotency.ts';
import { namedSql } from './prepared.ts';

/**
 * The signed creation of a case in ONE statement (POST /v1/cases). It runs on every creation, so
 * its parameters are written out for this statement alone, in the cheapest form for both sides:
 * timestamps as epoch milliseconds (`to_timestamp`, exact to the millisecond a Date holds) rather
 * than ISO text formatted by the process and parsed by the server, and no value sent twice (the
 * journal entry takes its tenant, case and time from the case the statement inserts, the case its
 * flow from the flow the statement checks).
 */

/** A timestamp parameter sent as epoch milliseconds. */
const at = (param: string) => `to_timestamp(${param}::text::float8 / 1000)`;

/**
 * Every column of `table` with the SQL expression that writes it: a column missing here (one
 * added to the schema later) stops the process at start rather than being written as its default.
 */
function insertColumns(table: PgTable, values: Record<string, string>): { columns: string; values: string } {
  const names = Object.values(getTableColumns(table) as Record<string, Column>).map((c) => c.name);
  const missing = names.filter((n) => !(n in values));
  const unknown = Object.keys(values).filter((n) => !names.includes(n));
  if (missing.length || unknown.length) throw new Error(`createCaseOnce: columns missing ${missing} / unknown ${unknown}`);
  return { columns: names.map((n) => `"${n}"`).join(', '), values: names.map((n) => values[n]).join(', ') };
}

// Parameters $1-$9: the key, the idempotency entry and its stored response; $10-$27: the case;
// $28-$31: the journal entry. Keep in step with `createCaseOnce` below.
const CASE = insertColumns(cases, {
  id: '$10::text',
  client_id: '$11::text',
  environment: '$12::text',
  flow_id: '$6::text',
  flow_name: '$13::text',
  flow_version: '$14::text::integer',
  country: '$15::text',
  external_ref: '$16::text',
  declared_sealed: '$17::text',
  state: '$18::text',
  status: '$19::text',
  journey_started: '$20::text::smallint',
  checks: '$21::text::jsonb',
  duplicates: '$22::text::jsonb',
  decision: '$23::text::jsonb',
  resubmission: '$24::text::jsonb',
  created_at: at('$25'),
  updated_at: at('$26'),
  expires_at: at('$27'),
});
const JOURNAL = insertColumns(caseJournal, {
  id: '$28::text',
  client_id: '"c".client_id',
  environment: '"c".environment',
  case_id: '"c".id',
  actor: '$29::text',
  action: '$30::text',
  detail: '$31::text::jsonb',
  at: '"c".created_at',
});

const NOW = at('$5');

/**
 * The whole signed creation of a case in ONE autocommit statement (one round trip, one commit):
 * reads the API key by the hash of its secret; reads the live entry of (key, Idempotency-Key)
 * (an expired one, or a running one whose lock elapsed for the same request, counts as none);
 * only for a key that exists, is not revoked and has no live entry, takes a transaction-level
 * advisory lock on (key, Idempotency-Key) without waiting; only with that lock and while the
 * given flow is still the active one of the key's own client and environment (the case's tenant
 * is the key's: cases hold no foreign keys to clients and flows, see schema.ts), inserts the entry
 * already done with its stored response, then the case (from the entry's RETURNING) and its
 * journal entry (from the case's). The unique index of the entries stays the backstop: a
 * concurrent twin whose row committed after this statement's snapshot makes the insert a no-op,
 * and nothing else is written.
 * The advisory lock is released at commit, after the rows are visible: a duplicate that failed
 * to take it was concurrent (in progress), one that takes it after sees the stored response.
 * The answer is ONE json column: the driver then describes and parses one field per creation
 * instead of nine (building a nine-field row object cost more than the parse).
 */
const createCaseOnceStatement = namedSql(
  'idv_case_create_once',
  `WITH "k" AS (SELECT * FROM api_keys WHERE secret_hash = $1::text),
  "e" AS (SELECT request_hash, state, response_status, response_body FROM idempotency_keys AS "x"
    WHERE "x".api_key_id = $2::text AND "x".key = $3::text AND NOT ${entryTakenOver('"x"', NOW, '$4::text')}),
  "ok" AS MATERIALIZED (SELECT 1 FROM "k" WHERE "k".id = $2::text AND "k".revoked_at IS NULL AND NOT EXISTS (SELECT 1 FROM "e")),
  "lk" AS MATERIALIZED (SELECT pg_try_advisory_xact_lock(hashtextextended($2::text || chr(31) || $3::text, 0)) AS got FROM "ok"),
  "fl" AS MATERIALIZED (SELECT 1 FROM flows AS "f", "k" WHERE "f".id = $6::text AND "f".status = 'active'
    AND "f".client_id = $11::text AND "f".environment = $12::text AND "k".client_id = $11::text AND "k".environment = $12::text
    AND EXISTS (SELECT 1 FROM "lk" WHERE got)),
  "i" AS (
    INSERT INTO idempotency_keys AS "x" (api_key_id, key, request_hash, state, response_status, response_body, created_at, locked_until, expires_at)
    SELECT $2::text, $3::text, $4::text, 'done', $7::text::integer, $8::text::jsonb, ${NOW}, ${NOW}, ${at('$9')} FROM "fl"
    ON CONFLICT (api_key_id, key) DO UPDATE SET
      request_hash = excluded.request_hash, state = 'done', response_status = excluded.response_status, response_body = excluded.response_body,
      created_at = excluded.created_at, locked_until = excluded.locked_until, expires_at = excluded.expires_at
    WHERE ${entryTakenOver('"x"', 'excluded.created_at', 'excluded.request_hash')}
    RETURNING 1),
  "c" AS (INSERT INTO cases (${CASE.columns}) SELECT ${CASE.values} FROM "i" RETURNING id, client_id, environment, created_at),
  "j" AS (INSERT INTO case_journal (${JOURNAL.columns}) SELECT ${JOURNAL.values} FROM "c" RETURNING id)
  SELECT json_build_object('created', (SELECT count(*) FROM "j")::int, 'locked', (SELECT got FROM "lk"), 'flow_ok', EXISTS (SELECT 1 FROM "fl"),
    'e_hash', "e".request_hash, 'e_state', "e".state, 'e_status', "e".response_status, 'e_body', "e".response_body,
    'k_id', "k".id, 'k_revoked_at', "k".revoked_at) AS "r"
  FROM (SELECT 1) AS "one" LEFT JOIN "k" ON true LEFT JOIN "e" ON true`,
  // Under load creations share a commit; two under one (key, Idempotency-Key) never share one.
  { batchKey: (values) => `${values[1]}\u001f${values[2]}` },
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
  /** The journal entry of the creation (its tenant, case and time are the case's). */
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

const json = (value: unknown) => (value === null ? null : JSON.stringify(value));

/**
 * createCaseOnceStatement: `apiKey` is what the statement read of the key (null when no key has
 * that hash): its id and revocation, the rest of a key never changing. Nothing is written unless
 * it exists, is not revoked and has the id given. Run it outside a transaction (it is its own).
 */
export async function createCaseOnce(
  db: Executor,
  c: CaseCreationOnce,
): Promise<{ apiKey: Pick<ApiKeyRow, 'id' | 'revokedAt'> | null; result: CaseCreationOnceResult }> {
  const r = c.row;
  const [{ r: row }] = (await createCaseOnceStatement(db, [
    c.secretHash,
    c.apiKeyId,
    c.idempotencyKey,
    c.requestHash,
    c.now.getTime(),
    r.flowId,
    c.response.status,
    JSON.stringify(c.response.body),
    c.retainUntil.getTime(),
    r.id,
    r.clientId,
    r.environment,
    r.flowName,
    r.flowVersion,
    r.country,
    r.externalRef,
    r.declaredSealed,
    r.state,
    r.status,
    r.journeyStarted,
    JSON.stringify(r.checks),
    JSON.stringify(r.duplicates),
    json(r.decision),
    json(r.resubmission),
    r.createdAt.getTime(),
    r.updatedAt.getTime(),
    r.expiresAt.getTime(),
    newId('jrn', r.createdAt.getTime()),
    c.journal.actor,
    c.journal.action,
    JSON.stringify(c.journal.detail),
  ])) as [{ r: CreateOnceAnswer }];
  const apiKey = row.k_id === null ? null : { id: row.k_id, revokedAt: row.k_revoked_at === null ? null : new Date(row.k_revoked_at) };
  return { apiKey, result: outcomeOf(row) };
}

/** The statement's answer (JSON carries timestamps as ISO text). */
interface CreateOnceAnswer {
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

function outcomeOf(row: CreateOnceAnswer): CaseCreationOnceResult {
  if (row.created === 1) return { outcome: 'created' };
  if (row.e_hash !== null) {
    return { outcome: 'existing', requestHash: row.e_hash, state: row.e_state!, status: row.e_status, body: row.e_body };
  }
  if (row.locked === false) return { outcome: 'locked' };
  if (row.locked === true && row.flow_ok === false) return { outcome: 'flow_changed' };
  return { outcome: 'conflict' };
}
