import { and, eq, inArray, isNotNull, lt, lte, notExists, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { queryRows } from '../connect.ts';
import type { Environment } from '../schema.ts';
import { webhookDeliveries, webhookEndpoints, webhookEvents } from '../schema.ts';

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
  /** The previous secret while a rotation's overlap lasts (it signs too), else null. */
  previousSecretSealed: string | null;
  body: string;
  claimToken: string;
  /** The API request that caused the event (for the worker's log lines), or null. */
  requestId: string | null;
  /** When the delivery was created (its event's time): the delivery lag is measured from it. */
  createdAt: Date;
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
    previous_secret_sealed: string | null;
    body: string;
    request_id: string | null;
    created_at: string | Date;
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
            AND e2.status = 'active' AND e2.deleted_at IS NULL
          ORDER BY d2.next_attempt_at, d2.id
          LIMIT ${opts.limit}
          FOR UPDATE OF d2 SKIP LOCKED
        ) AS due, webhook_endpoints AS e, webhook_events AS ev
        WHERE d.id = due.id AND e.id = d.endpoint_id AND ev.id = d.event_id
        RETURNING d.id, d.client_id, d.environment, d.endpoint_id, d.event_type, d.attempt_count, e.url, e.secret_sealed,
                  CASE WHEN e.previous_secret_expires_at > ${now} THEN e.previous_secret_sealed END AS previous_secret_sealed,
                  ev.body, ev.request_id, d.created_at`,
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
    previousSecretSealed: r.previous_secret_sealed,
    body: r.body,
    claimToken: opts.token,
    requestId: r.request_id,
    createdAt: new Date(r.created_at),
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

export interface AttemptRecord {
  claimed: ClaimedDelivery;
  result: AttemptResult;
  /** Null after a success. */
  followUp: FailureFollowUp | null;
}

export interface RecordedAttempts {
  /** Deliveries whose attempt was written (the others' claims had run out: another worker took them). */
  recorded: string[];
  /** Endpoints this batch suspended (a delivery failed for the eighth time). */
  suspended: string[];
}

/**
 * Records finished attempts in ONE statement (data-modifying CTEs, atomic as a whole): each
 * delivery's new state, its attempt log row and, on a last failure, its endpoint's suspension.
 * A row is written only while its worker's claim still holds (same token), so a worker that
 * stalled past its lease cannot overwrite a newer attempt. Several attempts finishing together
 * share the statement, which keeps the embedded database's single connection free for the rest.
 */
export async function recordAttempts(db: Executor, records: AttemptRecord[], now: Date): Promise<RecordedAttempts> {
  if (records.length === 0) return { recorded: [], suspended: [] };
  const iso = (d: Date | null) => (d ? d.toISOString() : null);
  const rows = records.map(({ claimed, result, followUp }) => {
    const status = result.ok ? 'succeeded' : followUp?.kind === 'retry' ? 'retrying' : 'failed';
    const next = !result.ok && followUp?.kind === 'retry' ? followUp.at : null;
    return sql`(${claimed.id}::text, ${claimed.claimToken}::text, ${status}::text, ${claimed.attemptCount + 1}::int,
      ${iso(next)}::timestamptz, ${iso(result.startedAt)}::timestamptz, ${result.durationMs}::int,
      ${result.responseStatus}::smallint, ${result.ok ? null : result.error}::text, ${result.ok ? iso(now) : null}::timestamptz)`;
  });
  const at = now.toISOString();
  const [row] = await queryRows<{ recorded: string[] | null; suspended: string[] | null }>(
    db,
    sql`WITH v (id, token, status, attempt, next_attempt_at, started_at, duration_ms, response_status, error, delivered_at) AS (
          VALUES ${sql.join(rows, sql`, `)}
        ), upd AS (
          UPDATE webhook_deliveries AS d
          SET status = v.status, attempt_count = v.attempt, next_attempt_at = v.next_attempt_at, locked_until = NULL,
              claim_token = NULL, last_attempt_at = v.started_at, last_response_status = v.response_status,
              last_error = v.error, delivered_at = v.delivered_at
          FROM v WHERE d.id = v.id AND d.claim_token = v.token
          RETURNING d.id, d.endpoint_id, d.status
        ), att AS (
          INSERT INTO webhook_attempts (delivery_id, attempt, started_at, duration_ms, response_status, error)
          SELECT v.id, v.attempt, v.started_at, v.duration_ms, v.response_status, v.error FROM v JOIN upd ON upd.id = v.id
        ), sus AS (
          UPDATE webhook_endpoints AS e SET status = 'suspended', suspended_at = ${at}, updated_at = ${at}
          WHERE e.status = 'active' AND e.id IN (SELECT endpoint_id FROM upd WHERE status = 'failed')
          RETURNING e.id
        )
        SELECT (SELECT array_agg(id) FROM upd) AS recorded, (SELECT array_agg(id) FROM sus) AS suspended`,
  );
  return { recorded: row?.recorded ?? [], suspended: row?.suspended ?? [] };
}

/**
 * Retention: the delivery log is readable for 30 days. Older finished deliveries go (their
 * attempts with them), then events no delivery refers to, then deleted endpoints no delivery
 * refers to. Pending ones are never purged. Previous secrets past their overlap are erased too
 * (they stopped signing at their expiry; this removes them from storage).
 */
export async function purgeWebhookLog(db: Executor, before: Date, now: Date): Promise<void> {
  await db
    .delete(webhookDeliveries)
    .where(and(inArray(webhookDeliveries.status, ['succeeded', 'failed', 'cancelled']), lt(webhookDeliveries.createdAt, before)));
  await db
    .update(webhookEndpoints)
    .set({ previousSecretSealed: null, previousSecretExpiresAt: null })
    .where(lte(webhookEndpoints.previousSecretExpiresAt, now));
  await db
    .delete(webhookEndpoints)
    .where(
      and(
        isNotNull(webhookEndpoints.deletedAt),
        notExists(db.select({ one: sql`1` }).from(webhookDeliveries).where(eq(webhookDeliveries.endpointId, webhookEndpoints.id))),
      ),
    );
  await db
    .delete(webhookEvents)
    .where(
      and(
        lt(webhookEvents.occurredAt, before),
        notExists(db.select({ one: sql`1` }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, webhookEvents.id))),
      ),
    );
}
