import { and, eq, lt, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { idempotencyKeys } from '../schema.ts';
import { queryRows } from '../connect.ts';

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
  const now = t.now.toISOString();
  const lockedUntil = new Date(t.now.getTime() + t.lockMs).toISOString();
  const expiresAt = new Date(t.now.getTime() + t.retainMs).toISOString();
  const claimed = await queryRows<{ key: string }>(
    db,
    sql`INSERT INTO idempotency_keys (api_key_id, key, request_hash, state, created_at, locked_until, expires_at)
        VALUES (${apiKeyId}, ${key}, ${requestHash}, 'running', ${now}, ${lockedUntil}, ${expiresAt})
        ON CONFLICT (api_key_id, key) DO UPDATE
          SET request_hash = excluded.request_hash, state = 'running', response_status = NULL,
              response_body = NULL, created_at = excluded.created_at,
              locked_until = excluded.locked_until, expires_at = excluded.expires_at
          WHERE idempotency_keys.expires_at < excluded.created_at
             OR (idempotency_keys.state = 'running'
                 AND idempotency_keys.locked_until < excluded.created_at
                 AND idempotency_keys.request_hash = excluded.request_hash)
        RETURNING key`,
  );
  if (claimed.length === 1) return { outcome: 'reserved' };
  const [existing] = await db
    .select()
    .from(idempotencyKeys)
    .where(and(eq(idempotencyKeys.apiKeyId, apiKeyId), eq(idempotencyKeys.key, key)));
  if (!existing) return reserveIdempotencyKey(db, apiKeyId, key, requestHash, t);
  if (existing.requestHash !== requestHash) return { outcome: 'mismatch' };
  if (existing.state === 'running') return { outcome: 'in_progress' };
  return { outcome: 'replay', status: existing.responseStatus!, body: existing.responseBody };
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
