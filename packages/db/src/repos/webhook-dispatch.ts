import { and, eq, inArray, lt, notExists, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { queryRows } from '../connect.ts';
import type { Environment } from '../schema.ts';
import { webhookAttempts, webhookDeliveries, webhookEvents } from '../schema.ts';
import { suspendWebhookEndpoint } from './webhook-endpoints.ts';

/** A delivery a worker has claimed, with everything needed to send it. */
export interface ClaimedDelivery {
  id: string;
  clientId: string;
  environment: Environment;
  endpointId: string;
  eventType: string;
  /** Attempts recorded before this one. */
  attemptCount: number;
  url: string;
  secretSealed: string;
  body: string;
  claimToken: string;
}

/**
 * Claims up to `limit` due deliveries of active endpoints in one short statement: the rows are
 * locked with FOR UPDATE SKIP LOCKED only while the claim (a token and a lease) is written, then
 * the statement commits. The HTTP call happens afterwards without any lock held; the lease keeps
 * other workers off the row meanwhile, and if this worker dies the lease runs out and another
 * worker sends the delivery again (at least once, never lost).
 */
export async function claimDueDeliveries(
  db: Executor,
  opts: { now: Date; limit: number; leaseMs: number; token: string },
): Promise<ClaimedDelivery[]> {
  const now = opts.now.toISOString();
  const leaseUntil = new Date(opts.now.getTime() + opts.leaseMs).toISOString();
  const rows = await queryRows<{
    id: string;
    client_id: string;
    environment: Environment;
    endpoint_id: string;
    event_type: string;
    attempt_count: number;
    url: string;
    secret_sealed: string;
    body: string;
  }>(
    db,
    sql`UPDATE webhook_deliveries AS d
        SET locked_until = ${leaseUntil}, claim_token = ${opts.token}
        FROM (
          SELECT d2.id FROM webhook_deliveries AS d2
          JOIN webhook_endpoints AS e2 ON e2.id = d2.endpoint_id
          WHERE d2.status IN ('pending', 'retrying')
            AND d2.next_attempt_at <= ${now}
            AND (d2.locked_until IS NULL OR d2.locked_until < ${now})
            AND e2.status = 'active'
          ORDER BY d2.next_attempt_at, d2.id
          LIMIT ${opts.limit}
          FOR UPDATE OF d2 SKIP LOCKED
        ) AS due, webhook_endpoints AS e, webhook_events AS ev
        WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
        RETURNING d.id, d.client_id, d.environment, d.endpoint_id, d.event_type, d.attempt_count, e.url, e.secret_sealed, ev.body`,
  );
  return rows.map((r) => ({
    id: r.id,
    clientId: r.client_id,
    environment: r.environment,
    endpointId: r.endpoint_id,
    eventType: r.event_type,
    attemptCount: Number(r.attempt_count),
    url: r.url,
    secretSealed: r.secret_sealed,
    body: r.body,
    claimToken: opts.token,
  }));
}

/** When the next claimable delivery falls due (null when none waits), so an idle worker sleeps just long enough. */
export async function nextDueAt(db: Executor): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`SELECT min(greatest(d.next_attempt_at, coalesce(d.locked_until, d.next_attempt_at))) AS at
        FROM webhook_deliveries AS d JOIN webhook_endpoints AS e ON e.id = d.endpoint_id
        WHERE d.status IN ('pending', 'retrying') AND e.status = 'active'`,
  );
  return row?.at ? new Date(row.at) : null;
}

export type AttemptResult =
  | { ok: true; startedAt: Date; durationMs: number; responseStatus: number }
  | { ok: false; startedAt: Date; durationMs: number; responseStatus: number | null; error: string };

/** What the schedule says after a failure: retry at a time, or give up and suspend the endpoint. */
export type FailureFollowUp = { kind: 'retry'; at: Date } | { kind: 'exhausted' };

export type RecordOutcome = 'succeeded' | 'retrying' | 'failed_and_suspended' | 'failed' | 'claim_lost';

/**
 * Records one attempt in one transaction: the attempt log row, the delivery's new state and,
 * on the last failure, the endpoint's suspension. Written only while this worker's claim still
 * holds (same token), so a worker that stalled past its lease cannot overwrite a newer attempt.
 */
export async function recordAttempt(
  db: Executor,
  claimed: ClaimedDelivery,
  result: AttemptResult,
  followUp: FailureFollowUp | null,
  now: Date,
): Promise<RecordOutcome> {
  const attempt = claimed.attemptCount + 1;
  return db.transaction(async (tx) => {
    const state = result.ok
      ? { status: 'succeeded' as const, nextAttemptAt: null, deliveredAt: now }
      : followUp?.kind === 'retry'
        ? { status: 'retrying' as const, nextAttemptAt: followUp.at }
        : { status: 'failed' as const, nextAttemptAt: null };
    const updated = await tx
      .update(webhookDeliveries)
      .set({
        ...state,
        attemptCount: attempt,
        lockedUntil: null,
        claimToken: null,
        lastAttemptAt: result.startedAt,
        lastResponseStatus: result.responseStatus,
        lastError: result.ok ? null : result.error,
      })
      .where(and(eq(webhookDeliveries.id, claimed.id), eq(webhookDeliveries.claimToken, claimed.claimToken)))
      .returning({ id: webhookDeliveries.id });
    if (updated.length === 0) return 'claim_lost';
    await tx.insert(webhookAttempts).values({
      deliveryId: claimed.id,
      attempt,
      startedAt: result.startedAt,
      durationMs: result.durationMs,
      responseStatus: result.responseStatus,
      error: result.ok ? null : result.error,
    });
    if (state.status !== 'failed') return state.status;
    return (await suspendWebhookEndpoint(tx, claimed.endpointId, now)) ? 'failed_and_suspended' : 'failed';
  });
}

/**
 * Retention: the delivery log is readable for 30 days. Older finished deliveries go (their
 * attempts with them), then events no delivery refers to. Pending ones are never purged.
 */
export async function purgeWebhookLog(db: Executor, before: Date): Promise<void> {
  await db
    .delete(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.status, ['succeeded', 'failed']), lt(webhookDeliveries.createdAt, before)));
  await db
    .delete(webhookEvents)
    .where(
      and(
        lt(webhookEvents.occurredAt, before),
        notExists(db.select({ one: sql`1` }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, webhookEvents.id))),
      ),
    );
}
