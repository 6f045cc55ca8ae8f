import type { FastifyInstance } from 'fastify';
import { addApiUsage, type Db, type UsageIncrement } from '@idv/db';
import { errorCode, FailureStreak } from '@idv/domain';
import { countLoopFailure } from '@idv/metrics';

const DAY_MS = 86_400_000;

/**
 * Counts integration calls per day and response code. Counts are summed in memory and flushed
 * every second (and at shutdown) with additive upserts, so several instances add up correctly and
 * the hot path pays no extra write per request. A crash loses at most one second of counts.
 */
export class UsageRecorder {
  private pending = new Map<string, UsageIncrement>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> = Promise.resolve();

  constructor(private readonly db: Db) {}

  record(clientId: string, environment: UsageIncrement['environment'], at: Date, statusCode: number): void {
    this.add({ clientId, environment, day: this.dayOf(at.getTime()), statusCode, calls: 1 });
  }

  /** The UTC day of the last call, kept while calls fall on it: one date formatting per day, not per call. */
  private day = { from: 0, to: 0, text: '' };

  private dayOf(ms: number): string {
    if (ms < this.day.from || ms >= this.day.to) {
      const from = ms - (((ms % DAY_MS) + DAY_MS) % DAY_MS);
      this.day = { from, to: from + DAY_MS, text: new Date(from).toISOString().slice(0, 10) };
    }
    return this.day.text;
  }

  private add(inc: UsageIncrement): void {
    const id = `${inc.clientId}|${inc.environment}|${inc.day}|${inc.statusCode}`;
    const entry = this.pending.get(id);
    if (entry) entry.calls += inc.calls;
    else this.pending.set(id, { ...inc });
  }

  /**
   * Writes the counts summed so far. Flushes run one after the other (an additive upsert must not
   * race another with the same rows), each on its own: a failed flush puts its counts back for the
   * next one (a single statement, so nothing of it was written: nothing lost, nothing doubled) and
   * rejects only its own caller, never a later flush.
   */
  flush(): Promise<void> {
    const run = async () => {
      const batch = [...this.pending.values()];
      this.pending = new Map();
      try {
        await addApiUsage(this.db, batch);
      } catch (err) {
        for (const inc of batch) this.add(inc);
        throw err;
      }
    };
    const flushed = this.flushing.then(run);
    // The chain keeps only the settling, not the outcome: a rejection kept in it would be rethrown
    // by every later flush, and counting would stop for good.
    this.flushing = flushed.catch(() => {});
    return flushed;
  }

  install(app: FastifyInstance, now: () => Date): void {
    app.addHook('onResponse', async (req, reply) => {
      const key = req.auth?.key;
      if (key && key.kind === 'integration') this.record(key.clientId, key.environment, now(), reply.statusCode);
    });
    // While the database cannot be reached the counts wait in memory and flushes back off (one
    // warning for the whole outage); the first flush that succeeds writes them all.
    const streak = new FailureStreak('usage flush', app.log, 1000, 5000);
    let resumeAt = 0;
    this.timer = setInterval(() => {
      if (Date.now() < resumeAt) return;
      this.flush().then(
        () => streak.succeeded(),
        (err) => {
          countLoopFailure('usage_flush');
          resumeAt = Date.now() + streak.failed(err);
        },
      );
    }, 1000);
    this.timer.unref();
    app.addHook('onClose', async () => {
      if (this.timer) clearInterval(this.timer);
      await this.flush().catch((err) => app.log.warn({ err: errorCode(err) }, 'usage flush failed at shutdown'));
    });
  }
}
