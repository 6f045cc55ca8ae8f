import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { idempotencyKeys } from '../schema.ts';
import { perHandle, raw, textStatement } from './prepared.ts';

export type Reservation =
  | { outcome: 'reserved' }
  | { outcome: 'replay'; status: number; body: unknown }
  | { outcome: 'in_progress' }
  | { outcome: 'mismatch' };

export interface IdempotencyTimes {
  now: Date;
  /** How long a running request holds the key before it is presumed crashed and may be retried. */
  lockMs: number;
  /** How long the response is kept for replay. */
  retainMs: number;
}

/**
 * The claim: a new entry, or the takeover of an expired entry or of a running one whose process
 * died (lock elapsed) for the same request. Returns the key when claimed, no row otherwise.
 */
const claimInsert = (db: Executor) =>
  db
    .insert(idempotencyKeys)
    .values({
      apiKeyId: raw('apiKeyId'),
      key: raw('key'),
      requestHash: raw('requestHash'),
      state: 'running',
      createdAt: raw('now'),
      lockedUntil: raw('lockedUntil'),
      expiresAt: raw('expiresAt'),
      signature: raw('signature'),
    })
    .onConflictDoUpdate({
      target: [idempotencyKeys.apiKeyId, idempotencyKeys.key],
      set: {
        requestHash: sql`excluded.request_hash`,
        state: 'running',
        responseStatus: sql`NULL`,
        responseBody: sql`NULL`,
        createdAt: sql`excluded.created_at`,
        lockedUntil: sql`excluded.locked_until`,
        expiresAt: sql`excluded.expires_at`,
        signature: sql`excluded.signature`,
      },
      setWhere: sql`${idempotencyKeys.expiresAt} < excluded.created_at
        OR (${idempotencyKeys.state} = 'running'
            AND ${idempotencyKeys.lockedUntil} < excluded.created_at
            AND ${idempotencyKeys.requestHash} = excluded.request_hash)`,
    })
    .returning({ key: idempotencyKeys.key });

const claim = perHandle((db) => claimInsert(db).prepare('idv_idempotency_claim'));

const existingEntry = perHandle((db) =>
  db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.apiKeyId, raw('apiKeyId')), eq(idempotencyKeys.key, raw('key'))))
    .prepare('idv_idempotency_entry'),
);

/** The entry of (API key, Idempotency-Key) as it stands, or null: for a creation whose claim lost a race. */
async function findIdempotencyEntry(db: Executor, apiKeyId: string, key: string) {
  const [row] = await existingEntry(db).execute({ apiKeyId, key });
  return row ?? null;
}

/** What identifies a request's entry: its key and Idempotency-Key, its fingerprint and its signature (null when unsigned). */
export interface EntryOwner {
  apiKeyId: string;
  key: string;
  requestHash: string;
  signature: string | null;
}

/**
 * Claims an idempotency key for a request, committed on its own so that concurrent duplicates see
 * it at once. An expired entry, or a running one whose process died (lock elapsed) for the same
 * request, is taken over; otherwise the existing entry decides: replay, in progress, or mismatch.
 * A signature already held by another entry of the key fails the statement (isSignatureReplay).
 */
export async function reserveIdempotencyKey(db: Executor, owner: EntryOwner, t: IdempotencyTimes): Promise<Reservation> {
  const claimed = await claim(db).execute({
    ...owner,
    now: t.now.toISOString(),
    lockedUntil: new Date(t.now.getTime() + t.lockMs).toISOString(),
    expiresAt: new Date(t.now.getTime() + t.retainMs).toISOString(),
  });
  if (claimed.length === 1) return { outcome: 'reserved' };
  const [existing] = await existingEntry(db).execute({ apiKeyId: owner.apiKeyId, key: owner.key });
  if (!existing) return reserveIdempotencyKey(db, owner, t);
  if (existing.requestHash !== owner.requestHash) return { outcome: 'mismatch' };
  if (existing.state === 'running') return { outcome: 'in_progress' };
  return { outcome: 'replay', status: existing.responseStatus!, body: existing.responseBody };
}

/**
 * The statement failed because its request's signature is held by another entry of the key: the
 * same signed request sent again under another Idempotency-Key (a replay, refused).
 */
export function isSignatureReplay(err: unknown): boolean {
  for (let e: unknown = err; e && typeof e === 'object'; e = (e as { cause?: unknown }).cause) {
    const { code, constraint } = e as { code?: unknown; constraint?: unknown };
    if (code === '23505' && constraint === 'idempotency_signature') return true;
  }
  return false;
}

/** An entry written with its response at once (a creation that needs no reservation ahead). */
export interface DoneEntry extends EntryOwner {
  status: number;
  /** As stored (sealed by the caller when it may hold a secret). */
  body: unknown;
  now: Date;
  expiresAt: Date;
}

const DONE_ENTRY_COLUMNS = 'api_key_id, key, request_hash, state, response_status, response_body, created_at, locked_until, expires_at, signature';

/**
 * A new done entry takes over an expired one, or a running one whose process died (lock elapsed)
 * for the same request; otherwise the live entry stays and decides (no row returned).
 */
const DONE_ENTRY_CONFLICT = `ON CONFLICT (api_key_id, key) DO UPDATE SET
      request_hash = excluded.request_hash, state = 'done', response_status = excluded.response_status, response_body = excluded.response_body,
      created_at = excluded.created_at, locked_until = excluded.locked_until, expires_at = excluded.expires_at, signature = excluded.signature
    WHERE "e".expires_at < excluded.created_at
      OR ("e".state = 'running' AND "e".locked_until < excluded.created_at AND "e".request_hash = excluded.request_hash)`;

/**
 * INSERT of a done entry with its response ($1-$8: doneEntryValues); RETURNING its key, no row
 * when a live entry decides instead (DONE_ENTRY_CONFLICT). A concurrent twin's insert waits for
 * this one's commit, then finds it.
 */
const DONE_ENTRY_UPSERT = `INSERT INTO idempotency_keys AS "e" (${DONE_ENTRY_COLUMNS})
    VALUES ($1::text, $2::text, $3::text, 'done', $4::integer, $5::jsonb, $6::timestamptz, $6::timestamptz, $7::timestamptz, $8::text)
    ${DONE_ENTRY_CONFLICT}
    RETURNING key`;

/**
 * The same for every entry of `source`, a relation of idempotency_keys rows (doneEntryRecord):
 * RETURNING the api_key_id and key of each entry written.
 */
export const doneEntriesUpsert = (source: string) => `INSERT INTO idempotency_keys AS "e" (${DONE_ENTRY_COLUMNS})
    SELECT ${DONE_ENTRY_COLUMNS} FROM "${source}"
    ${DONE_ENTRY_CONFLICT}
    RETURNING api_key_id, key`;

const doneEntryValues = (e: DoneEntry): unknown[] => [
  e.apiKeyId,
  e.key,
  e.requestHash,
  e.status,
  JSON.stringify(e.body),
  e.now.toISOString(),
  e.expiresAt.toISOString(),
  e.signature,
];

/** A done entry as a row of idempotency_keys for json_populate_recordset (doneEntriesUpsert). */
export const doneEntryRecord = (e: DoneEntry): Record<string, unknown> => ({
  api_key_id: e.apiKeyId,
  key: e.key,
  request_hash: e.requestHash,
  state: 'done',
  response_status: e.status,
  response_body: e.body,
  created_at: e.now.toISOString(),
  locked_until: e.now.toISOString(),
  expires_at: e.expiresAt.toISOString(),
  signature: e.signature,
});

const storeDone = textStatement('idv_idempotency_store_done', DONE_ENTRY_UPSERT);

/** Stores a response under a new (or taken-over) entry; false, writing nothing, when a live entry decides. */
export async function storeDoneEntry(db: Executor, e: DoneEntry): Promise<boolean> {
  return (await storeDone(db, doneEntryValues(e))).length > 0;
}

/** The live entry of (API key, Idempotency-Key) for a request of `requestHash` at `now`, or null when a new one would take its place. */
export async function findLiveIdempotencyEntry(db: Executor, apiKeyId: string, key: string, requestHash: string, now: Date) {
  const row = await findIdempotencyEntry(db, apiKeyId, key);
  if (!row || row.expiresAt < now) return null;
  if (row.state === 'running' && row.lockedUntil < now && row.requestHash === requestHash) return null;
  return row;
}

/** Stores the response; pass the transaction of the creation so both commit together. */
export async function completeIdempotencyKey(tx: Executor, apiKeyId: string, key: string, status: number, body: unknown) {
  await tx
    .update(idempotencyKeys)
    .set({ state: 'done', responseStatus: status, responseBody: body })
    .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key)));
}

/** Forgets a reservation whose request failed unexpectedly, so the client may retry at once. */
export async function releaseIdempotencyKey(db: Executor, apiKeyId: string, key: string) {
  await db
    .delete(idempotencyKeys)
    .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key), eq(idempotencyKeys.state, 'running')));
}

export async function purgeExpiredIdempotencyKeys(db: Executor, now: Date): Promise<void> {
  await db.delete(idempotencyKeys).where(lt(idempotencyKeys.expiresAt, now));
}
