import { randomUUID } from 'node:crypto';
import {
  claimDueDeliveries,
  nextDueAt,
  purgeWebhookLog,
  recordAttempt,
  WEBHOOK_CHANNEL,
  type AttemptResult,
  type ClaimedDelivery,
  type Database,
  type Db,
  type FailureFollowUp,
} from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import { afterFailure, signWebhook, WEBHOOK_HEADERS, type WebhookSettings } from '@idv/webhooks';
import { DeliveryAgents, postDelivery } from './send.ts';

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
  private woken = false;
  private waiter: (() => void) | null = null;
  private unlisten: (() => Promise<void>) | null = null;
  private purgeTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: DispatcherOptions) {
    this.now = options.now ?? (() => new Date());
    this.log = options.log ?? silentLog;
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
    this.woken = true;
    const w = this.waiter;
    this.waiter = null;
    w?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      this.woken = false;
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
        } catch (err) {
          this.log.error({ err: errorSummary(err) }, 'webhook claim failed; retrying');
          await this.sleep(DB_RETRY_MS);
          continue;
        }
        for (const delivery of claimed) this.launch(delivery);
      }
      if (!this.running) break;
      // A full claim may have left more due rows behind; claim again as soon as a slot frees.
      if (claimed.length > 0 && claimed.length === free) {
        if (this.inFlight.size >= this.options.settings.concurrency) await this.sleep(this.options.settings.pollMs);
        continue;
      }
      if (this.woken) continue;
      await this.sleep(await this.idleDelay());
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
    if (this.woken || !this.running) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve();
      }, ms);
      this.waiter = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  private launch(delivery: ClaimedDelivery): void {
    const task = this.attempt(delivery)
      .catch((err) => this.log.error({ delivery: delivery.id, err: errorSummary(err) }, 'webhook attempt failed unexpectedly'))
      .finally(() => {
        this.inFlight.delete(task);
        this.wake(); // a slot is free
      });
    this.inFlight.add(task);
  }

  private async attempt(delivery: ClaimedDelivery): Promise<void> {
    const result = await this.send(delivery);
    const failures = delivery.attemptCount + 1;
    let followUp: FailureFollowUp | null = null;
    if (!result.ok) {
      const next = afterFailure(failures, this.options.settings.retryDelaysMs);
      followUp = next.kind === 'retry' ? { kind: 'retry', at: new Date(this.now().getTime() + next.delayMs) } : next;
    }
    // The attempt happened; record it even if the database hiccups. If it cannot be recorded, the
    // lease runs out and the delivery is sent again: a duplicate, never a loss.
    for (let tries = 1; ; tries++) {
      try {
        const outcome = await recordAttempt(this.options.db, delivery, result, followUp, this.now());
        if (outcome === 'failed_and_suspended') {
          this.log.warn({ endpoint: delivery.endpointId, delivery: delivery.id }, 'webhook endpoint suspended after the eighth failure');
        } else if (outcome === 'claim_lost') {
          this.log.warn({ delivery: delivery.id }, 'webhook claim expired before the attempt was recorded');
        }
        return;
      } catch (err) {
        if (tries >= 3) throw err;
        await new Promise((r) => setTimeout(r, DB_RETRY_MS * tries));
      }
    }
  }

  private async send(delivery: ClaimedDelivery): Promise<AttemptResult> {
    const secret = this.options.keyring.openText(delivery.secretSealed, `webhook_endpoint:${delivery.endpointId}:secret`);
    const timestamp = String(Math.floor(this.now().getTime() / 1000));
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'idv-webhooks/1',
      [WEBHOOK_HEADERS.event]: delivery.eventType,
      [WEBHOOK_HEADERS.delivery]: delivery.id,
      [WEBHOOK_HEADERS.timestamp]: timestamp,
      [WEBHOOK_HEADERS.signature]: signWebhook(secret, timestamp, delivery.body),
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

  private async purge(): Promise<void> {
    try {
      await purgeWebhookLog(this.options.db, new Date(this.now().getTime() - RETENTION_MS));
    } catch (err) {
      this.log.warn({ err: errorSummary(err) }, 'webhook log purge failed');
    }
  }
}

/** Error details for logs without payloads: the message of a database or network error names no personal data. */
function errorSummary(err: unknown): { message: string; code?: string } {
  const e = err as NodeJS.ErrnoException;
  return { message: e?.message ?? String(err), code: e?.code };
}
