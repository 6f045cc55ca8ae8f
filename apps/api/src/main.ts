import { mkdirSync } from 'node:fs';
import type { Server } from 'node:http';
import { findEmbedding, openDatabase } from '@idv/db';
import { MasterKeyring } from '@idv/vault';
import { createDocsServer } from '@idv/docs';
import { createJourneyServer, loadJourneyAssets } from '@idv/journey';
import { ChecksPool } from '@idv/engine';
import { ChecksRunner, RetentionSweeper, WebhookDispatcher } from '@idv/worker';
import { build } from './app.ts';
import { bootstrapDemoClient, credentialsPath, hasCredentialsFile, writeCredentials } from './bootstrap.ts';
import { loadConfigOrExit } from './config.ts';
import { localMasterKey } from './master-key-file.ts';
import { pieceBlobs } from './services/pieces.ts';

/** The whole service in one process on the embedded default (or PostgreSQL with DATABASE_URL). */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
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

  let stopping = false;
  // Ready only once startup is complete, SIGTERM handling included: a stop asked for earlier
  // would otherwise find the default handler and kill the process without a clean shutdown.
  let started = false;
  const { app, ctx } = await build({
    config,
    db: database.db,
    keyring,
    ready: async () => started && !stopping && (await database.ping().then(() => true)),
  });
  await app.listen({ port: config.port, host: config.host });
  const docs = await listenOnUrlPort(createDocsServer(config.apiBaseUrl), config.docsUrl, config.host);
  const journeyServer = createJourneyServer({
    assets: await loadJourneyAssets(),
    apiBaseUrl: config.apiBaseUrl,
    embeddingOrigins: async (clientId, environment) => (await findEmbedding(database.db, { clientId, environment }))?.origins ?? [],
  });
  const journey = await listenOnUrlPort(journeyServer, config.journeyUrl, config.host);
  // The webhook dispatcher, in this process unless separate workers run (RUN_WORKER=false, PostgreSQL only).
  const dispatcher = config.runWorker
    ? new WebhookDispatcher({ db: database.db, keyring, settings: config.webhooks, listen: database.listen, log: app.log })
    : null;
  await dispatcher?.start();
  // Retention of images and personal data per flow, with the dispatcher (the same workers sweep).
  const retention = config.runWorker ? new RetentionSweeper({ db: database.db, blobs: ctx.blobs, log: app.log }) : null;
  retention?.start();
  // The automated checks of finished journeys, in a pool of worker threads, with the other workers.
  const pool = config.runWorker ? new ChecksPool() : null;
  const checks = pool
    ? new ChecksRunner({ db: database.db, keyring, vault: ctx.vault, pieces: pieceBlobs(ctx), analyser: pool, listen: database.listen, log: app.log })
    : null;
  await checks?.start();
  if (!dispatcher && database.kind === 'pglite') app.log.warn('RUN_WORKER=false with the embedded database: no webhook will be sent');
  app.log.info({ database: database.kind, api: config.apiBaseUrl, journey: config.journeyUrl, docs: config.docsUrl, worker: Boolean(dispatcher) }, 'service started');

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
    await Promise.all([app.close(), dispatcher?.stop(), retention?.stop(), checks?.stop(), new Promise((r) => docs.close(r)), new Promise((r) => journey.close(r))]);
    await pool?.destroy();
    await database.close();
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
  started = true;
}

/** Serves a companion app on the port of its configured URL (journey, console and docs each have an origin). */
function listenOnUrlPort(server: Server, url: string, host: string): Promise<Server> {
  const u = new URL(url);
  const port = Number(u.port || (u.protocol === 'https:' ? 443 : 80));
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
