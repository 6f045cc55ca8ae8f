import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { idempotencyKeys } from '../schema.ts';
import { perHandle, raw } from './prepared.ts';

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
const claim = perHandle((db) =>
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
    .returning({ key: idempotencyKeys.key })
    .prepare('idv_idempotency_claim'),
);

const existingEntry = perHandle((db) =>
  db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.apiKeyId, raw('apiKeyId')), eq(idempotencyKeys.key, raw('key'))))
    .prepare('idv_idempotency_entry'),
);

/**
 * Claims an idempotency key for a request, committed on its own so that concurrent duplicates see
 * it at once. An expired entry, or a running one whose process died (lock elapsed) for the same
 * request, is taken over; otherwise the existing entry decides: replay, in progress, or mismatch.
 */
export async function reserveIdempotencyKey(
  db: Executor,
  apiKeyId: string,
  key: string,
  requestHash: string,
  t: IdempotencyTimes,
): Promise<Reservation> {
  const claimed = await claim(db).execute({
    apiKeyId,
    key,
    requestHash,
    now: t.now.toISOString(),
    lockedUntil: new Date(t.now.getTime() + t.lockMs).toISOString(),
    expiresAt: new Date(t.now.getTime() + t.retainMs).toISOString(),
  });
  if (claimed.length === 1) return { outcome: 'reserved' };
  const [existing] = await existingEntry(db).execute({ apiKeyId, key });
  if (!existing) return reserveIdempotencyKey(db, apiKeyId, key, requestHash, t);
  if (existing.requestHash !== requestHash) return { outcome: 'mismatch' };
  if (existing.state === 'running') return { outcome: 'in_progress' };
  return { outcome: 'replay', status: existing.responseStatus!, body: existing.responseBody };
}

/** A response to store for replay, written by the statement (or transaction) of the work itself. */
export interface StoredResponse {
  apiKeyId: string;
  key: string;
  status: number;
  /** As stored (sealed by the caller when it may hold a secret). */
  body: unknown;
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
