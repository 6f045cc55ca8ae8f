import { randomUUID } from 'node:crypto';
import {
  claimDueDeliveries,
  isDatabaseUnavailable,
  nextDueAt,
  purgeWebhookLog,
  recordAttempts,
  WEBHOOK_CHANNEL,
  type AttemptRecord,
  type AttemptResult,
  type ClaimedDelivery,
  type Database,
  type Db,
  type FailureFollowUp,
} from '@idv/db';
import { errorCode, FailureStreak } from '@idv/domain';
import { countLoopFailure } from '@idv/metrics';
import type { MasterKeyring } from '@idv/vault';
import { afterFailure, signWebhook, WEBHOOK_HEADERS, type WebhookSettings } from '@idv/webhooks';
import { observeAttempt } from './attempt-log.ts';
import { DeliveryAgents, postDelivery } from './send.ts';
import { Wakeup } from './wakeup.ts';

/** The few logger methods used (pino and Fastify's logger fit). Only ids, codes and counts are logged. */
export interface WorkerLog {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const silentLog: WorkerLog = { info() {}, warn() {}, error() {} };

export interface DispatcherOptions {
  db: Db;
  keyring: MasterKeyring;
  settings: WebhookSettings;
  /** Subscribes to the outbox notifications (Database.listen); without it the dispatcher only polls. */
  listen?: Database['listen'];
  now?: () => Date;
  log?: WorkerLog;
}

/** The delivery log is readable for 30 days (days 1–30 on GET /v1/webhook-deliveries). */
const RETENTION_MS = 30 * 24 * 3_600_000;
const PURGE_EVERY_MS = 3_600_000;
/** Floor of an idle sleep, so rows another worker is claiming right now do not make this one spin. */
const MIN_IDLE_MS = 10;
const DB_RETRY_MS = 1_000;
/**
 * Pause before each claim so that events committed together, and attempts finishing together,
 * share one claim statement instead of one each: at 200 events per second that halves the work of
 * the embedded database's single connection, for at most this much latency.
 */
const CLAIM_COALESCE_MS = 10;
/** Likewise, attempts finishing within this window are recorded by one statement. */
const RECORD_COALESCE_MS = 10;

/**
 * The webhook dispatcher: claims due deliveries from the database (SKIP LOCKED, short
 * statements), sends each outside any transaction, and records the outcome with the spec's
 * retry schedule. Any number of dispatchers may run against one database. It wakes on the
 * outbox's NOTIFY and otherwise sleeps until the next delivery falls due (at most pollMs).
 */
export class WebhookDispatcher {
  private readonly now: () => Date;
  private readonly log: WorkerLog;
  private readonly agents = new DeliveryAgents();
  private readonly inFlight = new Set<Promise<void>>();
  private running = false;
  private loop: Promise<void> | null = null;
  private readonly wakeup = new Wakeup();
  private unlisten: (() => Promise<void>) | null = null;
  private purgeTimer: NodeJS.Timeout | null = null;
  /** Finished attempts waiting to be written, and the write in progress (see record()). */
  private toRecord: { record: AttemptRecord; done: () => void }[] = [];
  private recording: Promise<void> | null = null;
  private claims: FailureStreak;

  constructor(private readonly options: DispatcherOptions) {
    this.now = options.now ?? (() => new Date());
    this.log = options.log ?? silentLog;
    this.claims = new FailureStreak('webhook claim', this.log);
  }

  async start(): Promise<void> {
    if (this.running) return;
    this.running = true;
    if (this.options.listen) this.unlisten = await this.options.listen(WEBHOOK_CHANNEL, () => this.wake());
    this.purgeTimer = setInterval(() => void this.purge(), PURGE_EVERY_MS);
    this.purgeTimer.unref();
    this.loop = this.run();
  }

  /** Stops claiming, then waits for the attempts in flight (each bounded by the timeout) to be recorded. */
  async stop(): Promise<void> {
    if (!this.running) return;
    this.running = false;
    if (this.purgeTimer) clearInterval(this.purgeTimer);
    this.wake();
    await this.loop;
    await Promise.all([...this.inFlight]);
    await this.unlisten?.();
    this.agents.destroy();
  }

  /** Something may be due: claim without waiting for the next poll. */
  wake(): void {
    this.wakeup.wake();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.wakeup.reset();
      const free = this.options.settings.concurrency - this.inFlight.size;
      let claimed: ClaimedDelivery[] = [];
      if (free > 0) {
        try {
          claimed = await claimDueDeliveries(this.options.db, {
            now: this.now(),
            limit: free,
            leaseMs: this.options.settings.leaseMs,
            token: randomUUID(),
          });
          this.claims.succeeded();
        } catch (err) {
          countLoopFailure('dispatcher');
          await this.sleep(this.claims.failed(err));
          continue;
        }
        for (const delivery of claimed) this.launch(delivery);
      }
      if (!this.running) break;
      // While attempts are in flight, each one finishing wakes the loop (and new events notify),
      // so there is no need to ask the database when the next delivery falls due.
      if (!this.wakeup.pending) {
        await this.sleep(claimed.length > 0 || this.inFlight.size > 0 ? this.options.settings.pollMs : await this.idleDelay());
      }
      if (this.running) await new Promise((r) => setTimeout(r, CLAIM_COALESCE_MS));
    }
  }

  private async idleDelay(): Promise<number> {
    const { pollMs } = this.options.settings;
    try {
      const due = await nextDueAt(this.options.db);
      if (!due) return pollMs;
      return Math.min(pollMs, Math.max(MIN_IDLE_MS, due.getTime() - this.now().getTime()));
    } catch {
      return pollMs;
    }
  }

  /** Resolves after ms, or earlier on wake() or when an attempt in flight finishes. */
  private sleep(ms: number): Promise<void> {
    return this.running ? this.wakeup.sleep(ms) : Promise.resolve();
  }

  private launch(delivery: ClaimedDelivery): void {
    const task = this.attempt(delivery)
      .catch((err) => this.log.error({ delivery: delivery.id, err: errorCode(err) }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(task);
        this.wake(); // a slot is free
      });
    this.inFlight.add(task);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const result = await this.send(delivery);
    observeAttempt(delivery, result, this.now(), this.log);
    let followUp: FailureFollowUp | null = null;
    if (!result.ok) {
      const next = afterFailure(delivery.attemptCount + 1, this.options.settings.retryDelaysMs);
      followUp = next.kind === 'retry' ? { kind: 'retry', at: new Date(this.now().getTime() + next.delayMs) } : next;
    }
    await this.record({ claimed: delivery, result, followUp });
  }

  /**
   * Group commit: attempts that finish within a short window, or while a write is in progress,
   * are written together by one statement, which spares the embedded database a statement each.
   * Resolves once this attempt's outcome is written (or given up after retries: the lease then
   * runs out and the delivery is sent again, a duplicate but never a loss).
   */
  private record(record: AttemptRecord): Promise<void> {
    return new Promise((done) => {
      this.toRecord.push({ record, done });
      if (!this.recording) this.recording = this.flushRecords();
    });
  }

  private async flushRecords(): Promise<void> {
    await new Promise((r) => setTimeout(r, RECORD_COALESCE_MS));
    while (this.toRecord.length > 0) {
      const batch = this.toRecord.splice(0, 200);
      // While the database cannot be reached, keep trying as long as the claims hold: past their
      // lease the deliveries are claimed and sent again anyway.
      const until = Date.now() + this.options.settings.leaseMs;
      for (let tries = 1; ; tries++) {
        try {
          const { recorded, suspended } = await recordAttempts(this.options.db, batch.map((b) => b.record), this.now());
          for (const endpoint of suspended) this.log.warn({ endpoint }, 'webhook endpoint suspended after the eighth failure of a delivery');
          if (recorded.length < batch.length) {
            const lost = batch.filter((b) => !recorded.includes(b.record.claimed.id)).map((b) => b.record.claimed.id);
            this.log.warn({ deliveries: lost }, 'webhook claims expired before their attempts were recorded');
          }
          break;
        } catch (err) {
          if (tries >= 3 && !(isDatabaseUnavailable(err) && Date.now() < until)) {
            this.log.error({ err: errorCode(err), deliveries: batch.length }, 'webhook attempts could not be recorded; they will be sent again');
            countLoopFailure('dispatcher');
            break;
          }
          await new Promise((r) => setTimeout(r, Math.min(DB_RETRY_MS * tries, 5_000)));
        }
      }
      for (const b of batch) b.done();
    }
    this.recording = null;
  }

  private async send(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const timestamp = String(Math.floor(this.now().getTime() / 1000));
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'idv-webhooks/1',
      [WEBHOOK_HEADERS.event]: delivery.eventType,
      [WEBHOOK_HEADERS.delivery]: delivery.id,
      [WEBHOOK_HEADERS.timestamp]: timestamp,
      [WEBHOOK_HEADERS.signature]: this.signatures(delivery, timestamp),
    };
    const { settings } = this.options;
    return postDelivery(
      delivery.url,
      headers,
      delivery.body,
      { environment: delivery.environment, allowPrivateNetworks: settings.allowPrivateNetworks },
      this.agents,
      { timeoutMs: settings.timeoutMs, maxResponseBytes: settings.maxResponseBytes },
    );
  }

  /**
   * `v1=<new>` alone, or during a rotation's overlap `v1=<new>,v1=<previous>`: a receiver that
   * verifies any one of the values (the SDK's verifyWebhook does) accepts the delivery whichever
   * of the two secrets it holds, so it can switch at its own pace within the window.
   */
  private signatures(delivery: ClaimedDelivery, timestamp: string): string {
    const { keyring } = this.options;
    const secrets = [keyring.openText(delivery.secretSealed, `webhook_endpoint:${delivery.endpointId}:secret`)];
    if (delivery.previousSecretSealed) {
      secrets.push(keyring.openText(delivery.previousSecretSealed, `webhook_endpoint:${delivery.endpointId}:previous_secret`));
    }
    return secrets.map((secret) => signWebhook(secret, timestamp, delivery.body)).join(',');
  }

  private async purge(): Promise<void> {
    try {
      const now = this.now();
      await purgeWebhookLog(this.options.db, new Date(now.getTime() - RETENTION_MS), now);
    } catch (err) {
      this.log.warn({ err: errorCode(err) }, 'webhook log purge failed');
      countLoopFailure('webhook_log_purge');
    }
  }
}
