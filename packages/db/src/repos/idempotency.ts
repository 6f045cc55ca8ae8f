import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { flows, idempotencyKeys } from '../schema.ts';
import type { FlowRow } from './flows.ts';
import { perHandle, raw, textStatement } from './prepared.ts';
import type { Tenant } from './tenant.ts';

export type Reservation =
  /** `flow`: the activated flow asked for with the reservation (null when none), read by the same statement. */
  | { outcome: 'reserved'; flow?: FlowRow | null }
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
      },
      setWhere: sql`${idempotencyKeys.expiresAt} < excluded.created_at
        OR (${idempotencyKeys.state} = 'running'
            AND ${idempotencyKeys.lockedUntil} < excluded.created_at
            AND ${idempotencyKeys.requestHash} = excluded.request_hash)`,
    })
    .returning({ key: idempotencyKeys.key });

const claim = perHandle((db) => claimInsert(db).prepare('idv_idempotency_claim'));

/**
 * The claim and, in the same statement (one round trip less on the hot path of a creation), the
 * activated flow of the given name: always one row, `claimed` null when the key was not claimed,
 * the flow's columns null when there is no such flow. The claim commits with the statement, as
 * the claim alone does.
 */
const claimWithFlow = perHandle((db) => {
  const claimed = db.$with('claimed').as(claimInsert(db));
  return db
    .with(claimed)
    .select({ claimed: sql<string | null>`(SELECT "key" FROM ${claimed})`, flow: flows })
    .from(sql`(SELECT 1) AS "one"`)
    .leftJoin(
      flows,
      and(
        eq(flows.clientId, raw('clientId')),
        eq(flows.environment, raw('environment')),
        eq(flows.name, raw('flowName')),
        eq(flows.status, 'active'),
      ),
    )
    .prepare('idv_idempotency_claim_flow');
});

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

/**
 * Claims an idempotency key for a request, committed on its own so that concurrent duplicates see
 * it at once. An expired entry, or a running one whose process died (lock elapsed) for the same
 * request, is taken over; otherwise the existing entry decides: replay, in progress, or mismatch.
 * With `activeFlow`, the same statement also reads that activated flow, returned with a claim.
 */
export async function reserveIdempotencyKey(
  db: Executor,
  apiKeyId: string,
  key: string,
  requestHash: string,
  t: IdempotencyTimes,
  activeFlow?: { tenant: Tenant; name: string },
): Promise<Reservation> {
  const values = {
    apiKeyId,
    key,
    requestHash,
    now: t.now.toISOString(),
    lockedUntil: new Date(t.now.getTime() + t.lockMs).toISOString(),
    expiresAt: new Date(t.now.getTime() + t.retainMs).toISOString(),
  };
  if (activeFlow) {
    const [row] = await claimWithFlow(db).execute({
      ...values,
      clientId: activeFlow.tenant.clientId,
      environment: activeFlow.tenant.environment,
      flowName: activeFlow.name,
    });
    if (row.claimed !== null) return { outcome: 'reserved', flow: row.flow };
  } else {
    const claimed = await claim(db).execute(values);
    if (claimed.length === 1) return { outcome: 'reserved' };
  }
  const [existing] = await existingEntry(db).execute({ apiKeyId, key });
  if (!existing) return reserveIdempotencyKey(db, apiKeyId, key, requestHash, t, activeFlow);
  if (existing.requestHash !== requestHash) return { outcome: 'mismatch' };
  if (existing.state === 'running') return { outcome: 'in_progress' };
  return { outcome: 'replay', status: existing.responseStatus!, body: existing.responseBody };
}

/** An entry written with its response at once (a creation that needs no reservation ahead). */
export interface DoneEntry {
  apiKeyId: string;
  key: string;
  requestHash: string;
  status: number;
  /** As stored (sealed by the caller when it may hold a secret). */
  body: unknown;
  now: Date;
  expiresAt: Date;
}

/**
 * INSERT of a done entry with its response ($1-$7: doneEntryValues), or the takeover of an expired
 * entry or of a running one whose process died (lock elapsed) for the same request; RETURNING its
 * key, no row when a live entry decides instead. A concurrent twin's insert waits for this one's
 * commit, then finds it.
 */
export const DONE_ENTRY_UPSERT = `INSERT INTO idempotency_keys AS "e" (api_key_id, key, request_hash, state, response_status, response_body, created_at, locked_until, expires_at)
    VALUES ($1::text, $2::text, $3::text, 'done', $4::integer, $5::jsonb, $6::timestamptz, $6::timestamptz, $7::timestamptz)
    ON CONFLICT (api_key_id, key) DO UPDATE SET
      request_hash = excluded.request_hash, state = 'done', response_status = excluded.response_status, response_body = excluded.response_body,
      created_at = excluded.created_at, locked_until = excluded.locked_until, expires_at = excluded.expires_at
    WHERE "e".expires_at < excluded.created_at
      OR ("e".state = 'running' AND "e".locked_until < excluded.created_at AND "e".request_hash = excluded.request_hash)
    RETURNING key`;
export const DONE_ENTRY_PARAMS = 7;

export const doneEntryValues = (e: DoneEntry): unknown[] => [
  e.apiKeyId,
  e.key,
  e.requestHash,
  e.status,
  JSON.stringify(e.body),
  e.now.toISOString(),
  e.expiresAt.toISOString(),
];

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
