import type { BlobStore } from '@idv/blobstore';
import { ChecksPool, type ChecksPoolOptions } from '@idv/engine';
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
  /**
   * The checks' pool, already warming (`startChecksPool`, called first thing by the process so
   * that the loading overlaps the rest of its startup; `startChecksPool(false)` for a process
   * that will never run a check, CHECKS_WARM_UP=false, which production refuses).
   */
  checks: WarmingChecks;
}

/** A checks pool whose models are loading in the background (or not, when `warmUp` is null). */
export interface WarmingChecks {
  pool: ChecksPool;
  /** Resolves with the warm-up's duration (ms) once every thread has loaded and run its models. */
  warmUp: Promise<number> | null;
}

/**
 * Creates the checks pool and starts loading its models on every thread, in the background. Call
 * it early in a process that runs checks (`npm run worker`: first thing), so the first case does
 * not wait for them (bench/README.md, bench:checks). A process that also serves the API calls it
 * once the API listens, with `niceness` (apps/server/src/service.ts): the loading, seconds of CPU
 * on every thread, would otherwise delay the API's first answer (bench:start).
 */
export function startChecksPool(warm = true, options: Pick<ChecksPoolOptions, 'niceness' | 'threads'> = {}): WarmingChecks {
  const pool = new ChecksPool(options);
  if (!warm) return { pool, warmUp: null };
  const started = Date.now();
  const warmUp = pool.warmUp().then(() => Date.now() - started);
  // Its failure is reported by startWorker; until then it must not count as unhandled.
  warmUp.catch(() => {});
  return { pool, warmUp };
}

/** Whether the checks' models are loaded: `cold` until a warm-up ends, or when it failed (they then load with the first case). */
type ChecksWarmth = 'warming' | 'warm' | 'cold';

export interface RunningWorker {
  /** Lets the work in flight finish (deliveries sent and recorded, checks concluded), then frees the threads. */
  stop(): Promise<void>;
  /** Where the background loading of the checks' models stands (/readyz reports it). */
  checksWarmth(): ChecksWarmth;
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
  const { pool, warmUp } = parts.checks;
  let warmth: ChecksWarmth = 'cold';
  let stopping = false;
  if (warmUp) {
    // Not awaited: the API is ready at once. The loading runs in the pool's threads, off this
    // event loop; a case claimed meanwhile waits
    // for the same loading (each thread loads its models once), not for a second one.
    warmth = 'warming';
    warmUp.then(
      (ms) => {
        warmth = 'warm';
        log.info({ ms }, 'checks warm');
      },
      (err: unknown) => {
        warmth = 'cold';
        // Destroying the pool on stop cancels a warm-up in flight: not a failure worth a log line.
        if (!stopping) log.error({ err: err instanceof Error ? err.message : String(err) }, 'checks warm-up failed: the models will load with the first case');
      },
    );
  }
  const checks = new ChecksRunner({ db, keyring, vault: parts.vault, pieces: parts.pieces, analyser: pool, listen, log, leaseMs: parts.checksLeaseMs });
  await checks.start();
  // Readings made before the face search index existed are indexed once, in the background; those
  // of an older descriptor are marked once and then skipped by the query (docs/face-match.md).
  const faceBackfill = checks.indexMissingFaces().then(
    (n) => {
      if (n.templates > 0) log.info(n, 'face index: earlier readings indexed');
      if (n.superseded > 0) log.info(n, 'face index: readings of an older descriptor marked, not searched until read again');
    },
    (err: unknown) => {
      if (!stopping) log.error({ err: err instanceof Error ? err.name : 'error' }, 'face index: indexing earlier readings failed');
    },
  );
  return {
    checksWarmth: () => warmth,
    async stop() {
      stopping = true;
      await Promise.all([dispatcher.stop(), retention.stop(), checks.stop(), faceBackfill]);
      await pool.destroy();
    },
  };
}
