import pino from 'pino';
import { openBlobStore } from '@idv/blobstore';
import { openDatabase } from '@idv/db';
import { serveProcessMetrics } from '@idv/metrics';
import { LocalKeyWrapper, MasterKeyring } from '@idv/vault';
import { loadConfigOrExit } from '@idv/config';
import { CaseVault, PieceBlobs } from '@idv/case-data';
import { startChecksPool, startWorker } from './worker.ts';

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
  // The checks' models load while the database opens (see startChecksPool).
  const checks = startChecksPool(config.checksWarmUp, { threads: config.checksThreads ?? undefined });
  // One connection per delivery in flight is never needed (sends hold none); a few cover claims and records.
  const database = await openDatabase({ kind: 'postgres', url: config.databaseUrl, poolSize: 4 });
  const keyring = new MasterKeyring(config.masterKey, config.previousMasterKeys);
  // The blob store must be the API's: BLOB_STORE=postgres, or DATA_DIR/blobs on a shared file system.
  const blobs = openBlobStore(config, database.db);
  const vault = new CaseVault(new LocalKeyWrapper(keyring));
  const worker = await startWorker({
    db: database.db,
    keyring,
    vault,
    blobs,
    pieces: new PieceBlobs(blobs, vault, keyring),
    settings: config.webhooks,
    checksLeaseMs: config.checksLeaseMs,
    checks,
    listen: database.listen,
    log,
  });
  // Its own registry and port: beside an API on the same host, give it another METRICS_PORT.
  const metrics = await serveProcessMetrics(config.metricsPort, config.host, database);
  log.info({ concurrency: config.webhooks.concurrency, metricsPort: metrics.port }, 'webhook worker started');

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
    await Promise.all([worker.stop(), metrics.close()]);
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
