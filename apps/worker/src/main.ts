import { join } from 'node:path';
import pino from 'pino';
import { FileBlobStore } from '@idv/blobstore';
import { openDatabase } from '@idv/db';
import { LocalKeyWrapper, MasterKeyring } from '@idv/vault';
import { loadConfigOrExit } from '@idv/api/config';
import { CaseVault } from '@idv/api/services/case-vault';
import { PieceBlobs } from '@idv/api/services/pieces';
import { ChecksPool } from '@idv/engine';
import { ChecksRunner } from './checks-runner.ts';
import { WebhookDispatcher } from './dispatcher.ts';
import { RetentionSweeper } from './retention.ts';

/**
 * A worker process on its own (`npm run worker`): any number of them may run beside the API
 * instances (started with RUN_WORKER=false) against one PostgreSQL. The embedded database
 * belongs to a single process, so with it the dispatcher runs inside `npm start` instead.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.databaseUrl || !config.masterKey) {
    console.error('A separate worker needs DATABASE_URL (PostgreSQL) and MASTER_KEY; with the embedded database the worker runs inside npm start.');
    process.exit(1);
  }
  const log = pino({ level: config.logLevel, base: { service: 'worker' } });
  // One connection per delivery in flight is never needed (sends hold none); a few cover claims and records.
  const database = await openDatabase({ kind: 'postgres', url: config.databaseUrl, poolSize: 4 });
  const keyring = new MasterKeyring(config.masterKey, config.previousMasterKeys);
  const dispatcher = new WebhookDispatcher({
    db: database.db,
    keyring,
    settings: config.webhooks,
    listen: database.listen,
    log,
  });
  await dispatcher.start();
  // Retention per flow: the blob store must be the API's (DATA_DIR/blobs shared, or the same bucket).
  const blobs = new FileBlobStore(join(config.dataDir, 'blobs'));
  const retention = new RetentionSweeper({ db: database.db, blobs, log });
  retention.start();
  // The automated checks: a pool of worker threads (models loaded once per thread) fed from check_jobs.
  const pool = new ChecksPool();
  const vault = new CaseVault(new LocalKeyWrapper(keyring));
  const checks = new ChecksRunner({ db: database.db, keyring, vault, pieces: new PieceBlobs(blobs, vault, keyring), analyser: pool, listen: database.listen, log });
  await checks.start();
  log.info({ concurrency: config.webhooks.concurrency }, 'webhook worker started');

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'webhook worker stopping: finishing attempts in flight');
    const force = setTimeout(() => {
      log.error({}, 'worker shutdown took over 15 s; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    await Promise.all([dispatcher.stop(), retention.stop(), checks.stop()]);
    await pool.destroy();
    await database.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
