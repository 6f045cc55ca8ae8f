import type { BlobStore } from '@idv/blobstore';
import { ChecksPool } from '@idv/engine';
import type { WebhookSettings } from '@idv/webhooks';
import { ChecksRunner, type ChecksRunnerOptions } from './checks-runner.ts';
import { WebhookDispatcher, type WorkerLog } from './dispatcher.ts';
import { RetentionSweeper, type RetentionOptions } from './retention.ts';

/** What the worker's parts share: the checks runner's own needs, plus the dispatcher's and sweeper's. */
export interface WorkerParts extends Pick<ChecksRunnerOptions, 'db' | 'keyring' | 'vault' | 'pieces' | 'listen'> {
  /** The blob store the API writes pieces to (DATA_DIR/blobs shared, or the same bucket). */
  blobs: BlobStore;
  settings: WebhookSettings;
  log: WorkerLog & RetentionOptions['log'];
  /** CHECKS_LEASE_MS: how long a claim holds a check job (default 2 minutes). */
  checksLeaseMs?: number;
}

export interface RunningWorker {
  /** Lets the work in flight finish (deliveries sent and recorded, checks concluded), then frees the threads. */
  stop(): Promise<void>;
}

/**
 * The worker's three parts started together, in `npm run worker` and inside `npm start`: the
 * webhook dispatcher, the retention sweeper, and the automated checks in a pool of worker threads
 * (models loaded once per thread) fed from check_jobs.
 */
export async function startWorker(parts: WorkerParts): Promise<RunningWorker> {
  const { db, keyring, listen, log } = parts;
  const dispatcher = new WebhookDispatcher({ db, keyring, settings: parts.settings, listen, log });
  await dispatcher.start();
  // Retention of images and personal data per flow.
  const retention = new RetentionSweeper({ db, blobs: parts.blobs, log });
  retention.start();
  const pool = new ChecksPool();
  const checks = new ChecksRunner({ db, keyring, vault: parts.vault, pieces: parts.pieces, analyser: pool, listen, log, leaseMs: parts.checksLeaseMs });
  await checks.start();
  return {
    async stop() {
      await Promise.all([dispatcher.stop(), retention.stop(), checks.stop()]);
      await pool.destroy();
    },
  };
}
