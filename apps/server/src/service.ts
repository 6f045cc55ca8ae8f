import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { openBlobStore } from '@idv/blobstore';
import { pieceBlobs } from '@idv/case-data';
import { localMasterKey, type Config } from '@idv/config';
import { openDatabase } from '@idv/db';
import { serveProcessMetrics } from '@idv/metrics';
import { MasterKeyring } from '@idv/vault';
import pino from 'pino';
// The composition root is the one place that imports other apps, and only what their package.json
// exports (the rule no-app-to-app in .dependency-cruiser.cjs enforces both).
import { build } from '@idv/api';
import { bootstrapDemoClient, credentialsPath, hasCredentialsFile, writeCredentials } from '@idv/api/bootstrap';
import { startChecksPool, startWorker, type RunningWorker } from '@idv/worker';
import { COMPANIONS, listenOnUrlPort } from './companions.ts';
import { startConsoleCompanions } from './console.ts';

/**
 * The whole service in one process on the embedded default (or PostgreSQL with DATABASE_URL):
 * on the configuration main.ts read, the database and the keyring opened once, and the API, the
 * worker (unless RUN_WORKER=false) and the companion servers (docs, journey, the operator console
 * and its development identity provider) started on them.
 * `apiOnly` (`npm run api`) starts the API alone, for deployments that run the rest elsewhere.
 */
export async function runService(config: Config, apiOnly: boolean): Promise<void> {
  // The checks' models start loading first, in the pool's threads, so that they load while this
  // thread opens the database and builds the API rather than after (the first case would wait).
  const checks = config.runWorker && !apiOnly ? startChecksPool(config.checksWarmUp) : undefined;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  let masterKey = config.masterKey;
  if (!masterKey) {
    const local = localMasterKey(config.dataDir);
    if (local.created) console.warn(`No MASTER_KEY set: generated one in ${local.path} (set MASTER_KEY in production).`);
    masterKey = local.key;
  }
  const database = await openDatabase(
    config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: config.dataDir },
  );
  const keyring = new MasterKeyring(masterKey, config.previousMasterKeys);

  const demo = await bootstrapDemoClient(database.db, keyring, new Date());
  if (demo) {
    const path = writeCredentials(config.dataDir, demo);
    console.log(`Created the demo client (sandbox). Its credentials are shown once here and kept in ${path}:`);
    console.log(JSON.stringify(demo, null, 2));
  } else if (!hasCredentialsFile(config.dataDir)) {
    console.log(`The database already has clients; no demo credentials in ${credentialsPath(config.dataDir)}.`);
  }

  // The operator console and, without OIDC_ISSUER outside production, the development identity
  // provider: started before the API is built, because the provider's settings become the API's
  // re-authentication check (config.reauth). Not with --api-only.
  const consoleParts = apiOnly ? null : await startConsoleCompanions(config, database.db, keyring, pino({ level: config.logLevel }), demo);

  let stopping = false;
  // Ready only once startup is complete, SIGTERM handling included: a stop asked for earlier
  // would otherwise find the default handler and kill the process without a clean shutdown.
  let started = false;
  // Assigned once the API listens; /readyz says `not_running` until then (and without a worker).
  let worker: RunningWorker | null = null;
  // One blob store for the API and the worker in this process (BLOB_STORE).
  const blobs = openBlobStore(config, database.db);
  const { app, ctx } = await build({
    config,
    db: database.db,
    keyring,
    blobs,
    ready: async () => started && !stopping && (await database.ping().then(() => true)),
    checks: () => worker?.checksWarmth() ?? 'not_running',
  });
  await app.listen({ port: config.port, host: config.host });
  // One registry for the whole process: the API's requests, the worker's jobs and deliveries.
  const metrics = await serveProcessMetrics(config.metricsPort, config.host, database);
  const companions = apiOnly ? [] : COMPANIONS;
  const servers: Server[] = [];
  for (const companion of companions) {
    servers.push(await listenOnUrlPort(await companion.create({ config, db: database.db }), companion.url(config), config.host));
  }
  // The worker, in this process unless separate workers run (RUN_WORKER=false, PostgreSQL only):
  // where it runs, its checks pool was started (and is warming) at the top of runService.
  worker =
    checks
      ? await startWorker({
          db: database.db,
          keyring,
          vault: ctx.vault,
          blobs: ctx.blobs,
          pieces: pieceBlobs(ctx),
          settings: config.webhooks,
          checksLeaseMs: config.checksLeaseMs,
          checks,
          listen: database.listen,
          log: app.log,
        })
      : null;
  if (!worker && database.kind === 'pglite') {
    app.log.warn(apiOnly ? 'the API alone with the embedded database: no webhook will be sent' : 'RUN_WORKER=false with the embedded database: no webhook will be sent');
  }
  const urls = Object.fromEntries(companions.map((companion) => [companion.name, companion.url(config)]));
  app.log.info({ database: database.kind, blobs: config.blobStore, api: config.apiBaseUrl, ...urls, worker: Boolean(worker), metricsPort: metrics.port }, 'service started');

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    const force = setTimeout(() => {
      app.log.error('shutdown took over 15 s; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    // Requests and attempts in flight finish (and are recorded) before the database closes.
    await Promise.all([app.close(), worker?.stop(), ...servers.map((server) => new Promise((r) => server.close(r))), consoleParts?.close(), metrics.close()]);
    await database.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  started = true;
}
