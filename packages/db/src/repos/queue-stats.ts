import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../connect.ts';

export interface QueueStats {
  /** Check jobs pending and not held by a runner (due now or waiting for a retry). */
  checkJobsWaiting: number;
  /** Check jobs claimed under a lease that has not run out: being analysed now. */
  checkJobsRunning: number;
  /** Deliveries not yet delivered nor given up (pending or retrying, suspended endpoints included). */
  outboxBacklog: number;
  /** Age of the oldest of those deliveries, in seconds (0 when none waits). */
  outboxOldestSeconds: number;
}

/**
 * The queues' sizes for the metrics, read when they are scraped: one statement over the partial
 * indexes of pending jobs and of deliveries waiting (check_jobs_due, webhook_deliveries_due).
 */
export async function queueStats(db: Executor, now: Date): Promise<QueueStats> {
  const at = now.toISOString();
  const [row] = await queryRows<{ waiting: number | string; running: number | string; backlog: number | string; oldest: string | Date | null }>(
    db,
    sql`SELECT
          (SELECT count(*) FROM check_jobs WHERE status = 'pending' AND (locked_until IS NULL OR locked_until < ${at})) AS waiting,
          (SELECT count(*) FROM check_jobs WHERE status = 'pending' AND locked_until >= ${at}) AS running,
          (SELECT count(*) FROM webhook_deliveries WHERE status IN ('pending', 'retrying')) AS backlog,
          (SELECT min(created_at) FROM webhook_deliveries WHERE status IN ('pending', 'retrying')) AS oldest`,
  );
  const oldest = row?.oldest ? new Date(row.oldest).getTime() : null;
  return {
    checkJobsWaiting: Number(row?.waiting ?? 0),
    checkJobsRunning: Number(row?.running ?? 0),
    outboxBacklog: Number(row?.backlog ?? 0),
    outboxOldestSeconds: oldest === null ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
  };
}
