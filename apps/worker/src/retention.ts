import type { BlobStore } from '@idv/blobstore';
import {
  appendJournal,
  casesPastDataRetention,
  erasePersonalData,
  findCaseForUpdate,
  markPiecesDeleted,
  piecesPastRetention,
  purgeExpiredIdempotencyKeys,
  type Db,
  type Environment,
} from '@idv/db';
import { errorCode, FailureStreak, isClosed } from '@idv/domain';
import { countLoopFailure } from '@idv/metrics';

export interface RetentionOptions {
  db: Db;
  blobs: BlobStore;
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
  now?: () => Date;
  /** Time between sweeps (default ten minutes). */
  intervalMs?: number;
  /** Rows handled per transaction. */
  batchSize?: number;
}

export interface SweepReport {
  images_deleted: number;
  cases_erased: number;
}

const DEFAULT_INTERVAL_MS = 10 * 60_000;

/**
 * Applies each flow's retention policy after a case closed: its images go after
 * `retention.images_days`, all its personal data after `retention.data_days` (erased as by
 * `POST /v1/cases/{id}/erasure`, actor `system`). Small transactions, blobs deleted after each
 * commit; several workers may sweep at once.
 */
export class RetentionSweeper {
  private timer: NodeJS.Timeout | null = null;
  private retry: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly now: () => Date;
  private readonly batch: number;

  constructor(private readonly o: RetentionOptions) {
    this.now = o.now ?? (() => new Date());
    this.batch = o.batchSize ?? 200;
  }

  start(): void {
    if (this.timer) return;
    // A sweep that fails (the database restarting) is tried again soon, backing off, rather than
    // at the next interval; one warning for the outage.
    const streak = new FailureStreak('retention sweep', this.o.log, 5_000, 60_000);
    const tick = () => {
      if (this.retry) clearTimeout(this.retry);
      this.retry = null;
      this.running = this.sweep().then(
        () => streak.succeeded(),
        (err) => {
          countLoopFailure('retention_sweeper');
          if (!this.timer) return;
          this.retry = setTimeout(tick, streak.failed(err));
          this.retry.unref();
        },
      );
    };
    this.timer = setInterval(tick, this.o.intervalMs ?? DEFAULT_INTERVAL_MS);
    this.timer.unref();
    tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    if (this.retry) clearTimeout(this.retry);
    this.timer = null;
    this.retry = null;
    await this.running;
  }

  /** One full pass: every image and every case past retention now, and stored idempotent responses past their 24 hours. */
  async sweep(): Promise<SweepReport> {
    const report: SweepReport = { images_deleted: 0, cases_erased: 0 };
    // Expired entries are already treated as absent by the reservation; this only frees the space.
    await purgeExpiredIdempotencyKeys(this.o.db, this.now());
    // Full batches mean more may be due; a batch that changed nothing ends the pass (another worker has it).
    for (;;) {
      const n = await this.deleteImages();
      report.images_deleted += n.deleted;
      if (n.seen < this.batch || n.deleted === 0) break;
    }
    for (;;) {
      const n = await this.eraseCases();
      report.cases_erased += n.erased;
      if (n.seen < this.batch || n.erased === 0) break;
    }
    if (report.images_deleted || report.cases_erased) this.o.log.info({ ...report }, 'retention applied');
    return report;
  }

  private async deleteImages(): Promise<{ seen: number; deleted: number }> {
    const now = this.now();
    const due = await piecesPastRetention(this.o.db, now, this.batch);
    if (due.length === 0) return { seen: 0, deleted: 0 };
    const deleted = await this.o.db.transaction(async (tx) => {
      const rows = await markPiecesDeleted(tx, due.map((d) => d.id), now);
      const byCase = new Map<string, string[]>();
      for (const r of rows) byCase.set(r.caseId, [...(byCase.get(r.caseId) ?? []), r.id]);
      for (const [caseId, ids] of byCase) {
        const d = due.find((x) => x.case_id === caseId)!;
        await appendJournal(tx, { clientId: d.client_id, environment: d.environment as Environment }, {
          caseId,
          actor: 'system',
          action: 'retention.images_deleted',
          detail: { pieces: ids.sort() },
          at: now,
        });
      }
      return rows;
    });
    await this.deleteBlobs(deleted.map((r) => r.blobId));
    return { seen: due.length, deleted: deleted.length };
  }

  private async eraseCases(): Promise<{ seen: number; erased: number }> {
    const now = this.now();
    const due = await casesPastDataRetention(this.o.db, now, this.batch);
    let erased = 0;
    for (const d of due) {
      const tenant = { clientId: d.client_id, environment: d.environment as Environment };
      const result = await this.o.db.transaction(async (tx) => {
        const row = await findCaseForUpdate(tx, tenant, d.id);
        if (!row || !isClosed(row.state)) return null;
        return erasePersonalData(tx, tenant, row, 'system', now, { reason: 'retention' });
      });
      if (result?.first) erased += 1;
      if (result) await this.deleteBlobs(result.blobIds);
    }
    return { seen: due.length, erased };
  }

  private async deleteBlobs(ids: string[]): Promise<void> {
    for (const id of ids) {
      await this.o.blobs.delete(id).catch((err) => this.o.log.warn({ err: errorCode(err), blob: id }, 'blob deletion after retention failed'));
    }
  }
}
