import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { queryRows } from '../connect.ts';
import type { Environment } from '../schema.ts';
import { cases, checkJobs } from '../schema.ts';
import { currentRequestId } from '../request-context.ts';
import type { Tenant } from './tenant.ts';

export type CheckJobRow = typeof checkJobs.$inferSelect;

/** Channel the journey's finish notifies (delivered at commit) so an idle checks runner claims at once. */
export const CHECKS_CHANNEL = 'idv_check_jobs';

/**
 * Enqueues the checks of a finished round, in the caller's transaction (the journey finish): the
 * job exists if and only if the finish committed. A second finish of the same round (it cannot
 * happen: the case has left collecting) would find the job already there and add nothing.
 */
export async function enqueueCheckJob(tx: Executor, tenant: Tenant, caseId: string, round: number, now: Date): Promise<void> {
  await tx
    .insert(checkJobs)
    .values({ caseId, round, ...tenant, status: 'pending', availableAt: now, createdAt: now, requestId: currentRequestId() })
    .onConflictDoNothing();
  await tx.execute(sql`SELECT pg_notify(${CHECKS_CHANNEL}, '')`);
}

export interface ClaimedCheckJob {
  caseId: string;
  round: number;
  clientId: string;
  environment: Environment;
  /** Claims including this one. */
  attempts: number;
  claimToken: string;
  /** The API request that queued the job (null for jobs queued before request ids were kept). */
  requestId: string | null;
}

/**
 * Claims up to `limit` due jobs in one short statement (FOR UPDATE SKIP LOCKED, then a token and
 * a lease): the checks run afterwards with no lock or transaction held. If the runner dies, the
 * lease lapses and another runner claims the job again.
 */
export async function claimCheckJobs(db: Executor, opts: { now: Date; limit: number; leaseMs: number; token: string }): Promise<ClaimedCheckJob[]> {
  const now = opts.now.toISOString();
  const leaseUntil = new Date(opts.now.getTime() + opts.leaseMs).toISOString();
  const rows = await queryRows<{ case_id: string; round: number; client_id: string; environment: Environment; attempts: number; request_id: string | null }>(
    db,
    sql`UPDATE check_jobs AS j
        SET locked_until = ${leaseUntil}, claim_token = ${opts.token}, attempts = j.attempts + 1
        FROM (
          SELECT case_id, round FROM check_jobs
          WHERE status = 'pending' AND available_at <= ${now}
            AND (locked_until IS NULL OR locked_until < ${now})
          ORDER BY available_at, case_id
          LIMIT ${opts.limit}
          FOR UPDATE SKIP LOCKED
        ) AS due
        WHERE j.case_id = due.case_id AND j.round = due.round
        RETURNING j.case_id, j.round, j.client_id, j.environment, j.attempts, j.request_id`,
  );
  return rows.map((r) => ({
    caseId: r.case_id,
    round: Number(r.round),
    clientId: r.client_id,
    environment: r.environment,
    attempts: Number(r.attempts),
    claimToken: opts.token,
    requestId: r.request_id,
  }));
}

/**
 * Locks the job row in the caller's transaction and returns it only while this claim still holds
 * it and it is pending: a runner whose lease lapsed and was re-claimed, or a job another run
 * already finished, gets null and must write nothing.
 */
export async function lockClaimedCheckJob(tx: Executor, job: Pick<ClaimedCheckJob, 'caseId' | 'round' | 'claimToken'>): Promise<CheckJobRow | null> {
  const [row] = await tx
    .select()
    .from(checkJobs)
    .where(and(eq(checkJobs.caseId, job.caseId), eq(checkJobs.round, job.round)))
    .for('update');
  if (!row || row.status !== 'pending' || row.claimToken !== job.claimToken) return null;
  return row;
}

export async function finishCheckJob(tx: Executor, job: Pick<ClaimedCheckJob, 'caseId' | 'round'>, status: 'done' | 'failed', now: Date, error: string | null = null): Promise<void> {
  await tx
    .update(checkJobs)
    .set({ status, finishedAt: now, lockedUntil: null, lastError: error })
    .where(and(eq(checkJobs.caseId, job.caseId), eq(checkJobs.round, job.round)));
}

/** A run failed (no decision written): released for another attempt after `retryAt`. */
export async function releaseCheckJob(
  db: Executor,
  job: ClaimedCheckJob,
  retryAt: Date,
  error: string,
  /** The run failed for a cause outside the job (the database unreachable): it does not count as one of its attempts. */
  opts: { refundAttempt?: boolean } = {},
): Promise<void> {
  await db
    .update(checkJobs)
    .set({
      lockedUntil: null,
      claimToken: null,
      availableAt: retryAt,
      lastError: error.slice(0, 200),
      ...(opts.refundAttempt ? { attempts: sql`greatest(${checkJobs.attempts} - 1, 0)` } : {}),
    })
    .where(and(eq(checkJobs.caseId, job.caseId), eq(checkJobs.round, job.round), eq(checkJobs.claimToken, job.claimToken)));
}

/**
 * Extends a claim's lease while its run goes on (the runner renews it periodically), so that a
 * lease can be short — a worker that died is replaced quickly — without a slow analysis being
 * taken over while it still runs. False when the claim is no longer this runner's.
 */
export async function renewCheckJobLease(db: Executor, job: ClaimedCheckJob, until: Date): Promise<boolean> {
  const rows = await db
    .update(checkJobs)
    .set({ lockedUntil: until })
    .where(and(eq(checkJobs.caseId, job.caseId), eq(checkJobs.round, job.round), eq(checkJobs.claimToken, job.claimToken), eq(checkJobs.status, 'pending')))
    .returning({ caseId: checkJobs.caseId });
  return rows.length > 0;
}

export async function findCheckJob(db: Executor, caseId: string, round: number): Promise<CheckJobRow | null> {
  const [row] = await db.select().from(checkJobs).where(and(eq(checkJobs.caseId, caseId), eq(checkJobs.round, round)));
  return row ?? null;
}

/** When the next pending job falls due (null when none waits), so an idle runner sleeps just long enough. */
export async function nextCheckJobDueAt(db: Executor): Promise<Date | null> {
  const [row] = await queryRows<{ at: string | Date | null }>(
    db,
    sql`SELECT min(greatest(available_at, coalesce(locked_until, available_at))) AS at FROM check_jobs WHERE status = 'pending'`,
  );
  return row?.at ? new Date(row.at) : null;
}

/**
 * Other cases of the client in the same environment whose readings share a keyed document
 * fingerprint with `fingerprints` (an indexed JSON containment query). Faces are searched in the
 * face index (face-index.ts).
 */
export async function sameDocumentCases(db: Executor, tenant: Tenant, caseId: string, fingerprints: readonly string[]): Promise<string[]> {
  if (fingerprints.length === 0) return [];
  const rows = await queryRows<{ case_id: string }>(
    db,
    sql`SELECT DISTINCT case_id FROM document_readings
        WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment}
          AND case_id <> ${caseId} AND erased_at IS NULL
          AND fingerprints ?| ARRAY[${sql.join(
            fingerprints.map((f) => sql`${f}`),
            sql`, `,
          )}]::text[]
        ORDER BY case_id`,
  );
  return rows.map((r) => r.case_id);
}

/** Stores the check reports and duplicates on a case locked by the caller (no personal data: codes and numbers). */
export async function storeCaseChecks(tx: Executor, tenant: Tenant, caseId: string, checks: unknown[], duplicates: string[], now: Date): Promise<void> {
  await tx
    .update(cases)
    .set({ checks, duplicates, updatedAt: now })
    .where(and(eq(cases.clientId, tenant.clientId), eq(cases.environment, tenant.environment), eq(cases.id, caseId)));
}
