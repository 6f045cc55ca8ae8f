import { Counter, Gauge } from 'prom-client';
import { queueStats, type Database, type QueueStats } from '@idv/db';
import { registry } from './registry.ts';

/** A scrape waits this long for the queues' statement, then answers without those gauges. */
const QUERY_TIMEOUT_MS = 1000;

type Watched = Pick<Database, 'db' | 'poolStats'>;
let watched: Watched | null = null;
/** One statement per scrape, shared by the gauges it feeds (prom-client collects them together). */
let pending: Promise<QueueStats | null> | null = null;

/**
 * Makes the gauges below read this database (the process has one). The pool's gauges are read
 * from the pool itself; the queues' with one statement when Prometheus scrapes, bounded by a
 * short timeout, never by polling. Returns a function that stops.
 */
export function watchDatabase(database: Watched): () => void {
  watched = database;
  return () => {
    if (watched === database) watched = null;
  };
}

const metricsQueryFailures = new Counter({
  name: 'idv_metrics_query_failures_total',
  help: 'Scrapes whose queue statement failed or took over 1 s (the queue gauges are then absent)',
  registers: [registry],
});

function readQueues(): Promise<QueueStats | null> {
  if (pending) return pending;
  const database = watched;
  if (!database) return Promise.resolve(null);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), QUERY_TIMEOUT_MS);
    timer.unref();
  });
  const query = queueStats(database.db, new Date()).catch(() => null);
  pending = Promise.race([query, timeout]).then((stats) => {
    clearTimeout(timer);
    if (!stats) metricsQueryFailures.inc();
    return stats;
  });
  // Forgotten once answered: the next scrape asks again.
  void pending.finally(() => (pending = null));
  return pending;
}

/** A gauge set from the queues' statement at each scrape; absent when it failed. */
function queueGauge(name: string, help: string, pick: (s: QueueStats) => number): Gauge {
  return new Gauge({
    name,
    help,
    registers: [registry],
    async collect() {
      const stats = await readQueues();
      if (stats) this.set(pick(stats));
      else this.reset();
    },
  });
}

// The gauges register themselves and read their values at each scrape (collect).
queueGauge('idv_check_jobs_waiting', 'Check jobs pending and not claimed (due or waiting for a retry)', (s) => s.checkJobsWaiting);
queueGauge('idv_check_jobs_running', 'Check jobs claimed under a live lease (being analysed)', (s) => s.checkJobsRunning);
queueGauge('idv_webhook_outbox_backlog', 'Webhook deliveries not yet delivered nor given up (pending or retrying)', (s) => s.outboxBacklog);
queueGauge(
  'idv_webhook_outbox_oldest_age_seconds',
  'Age of the oldest webhook delivery not yet delivered (0 when none waits)',
  (s) => s.outboxOldestSeconds,
);

/** The database connections (PostgreSQL: the pg Pool; PGlite: its one thread), by state. */
new Gauge({
  name: 'idv_db_pool_connections',
  help: 'Database connections by state: in_use, idle, waiting (queries waiting for a connection)',
  labelNames: ['state'] as const,
  registers: [registry],
  collect() {
    if (!watched) return this.reset();
    const { total, inUse, waiting } = watched.poolStats();
    this.set({ state: 'in_use' }, inUse);
    this.set({ state: 'idle' }, total - inUse);
    this.set({ state: 'waiting' }, waiting);
  },
});
