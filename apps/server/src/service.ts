import { mkdirSync, readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import { openBlobStore } from '@idv/blobstore';
import { pieceBlobs } from '@idv/case-data';
import { localMasterKey, type Config } from '@idv/config';
import { openDatabase, pgliteTemplatePath } from '@idv/db';
import { serveProcessMetrics } from '@idv/metrics';
import { MasterKeyring } from '@idv/vault';
import pino from 'pino';
// The composition root is the one place that imports other apps, and only what their package.json
// exports (the rule no-app-to-app in .dependency-cruiser.cjs enforces both).
import { build } from '@idv/api';
import { bootstrapDemoClient, credentialsPath, hasCredentialsFile, writeCredentials } from '@idv/api/bootstrap';
import { startChecksPool, startWorker, type RunningWorker, type WarmingChecks } from '@idv/worker';
import { COMPANIONS, listenOnPort } from './companions.ts';
import { startConsoleCompanions } from './console.ts';
import { readyBanner, type BannerFacts } from './banner.ts';
import { SERVER_DIST } from './dist.ts';

/**
 * The whole service in one process on the embedded default (or PostgreSQL with DATABASE_URL):
 * on the configuration main.ts read, the database and the keyring opened once, and the API, the
 * worker (unless RUN_WORKER=false) and the companion servers (docs, journey, the operator console
 * and its development identity provider) started on them.
 * `apiOnly` (`npm run api`) starts the API alone, for deployments that run the rest elsewhere;
 * `withoutConsole` (`--without-console`) leaves out the console and its development identity
 * provider, for deployments that run the console apart (the image's `web` role).
 */
export async function runService(config: Config, apiOnly: boolean, withoutConsole = false): Promise<void> {
  // Everything that is not the API waits until the API listens: its first answer comes within
  // seconds of the start rather than after the checks' warm-up (seconds of CPU on every core) and
  // the companions (bench:start, bench/README.md).
  const runsChecks = config.runWorker && !apiOnly;
  mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
  let masterKey = config.masterKey;
  let masterKeyFile: string | null = null;
  if (!masterKey) {
    const local = localMasterKey(config.dataDir);
    if (local.created) console.warn(`No MASTER_KEY set: generated one in ${local.path} (set MASTER_KEY in production).`);
    masterKey = local.key;
    masterKeyFile = local.path;
  }
  // A new embedded database starts from the migrated template `npm run build` made, when current.
  const database = await openDatabase(
    config.databaseUrl
      ? { kind: 'postgres', url: config.databaseUrl }
      : { kind: 'pglite', dataDir: config.dataDir, template: pgliteTemplatePath(SERVER_DIST) },
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

  // The development identity provider (without OIDC_ISSUER, outside production) starts before the
  // API is built, because its settings become the API's re-authentication check (config.reauth);
  // the console server itself waits for the API. Not with --api-only.
  const consoleParts = apiOnly || withoutConsole ? null : await startConsoleCompanions(config, database.db, keyring, pino({ level: config.logLevel }), demo);

  let stopping = false;
  // Ready (/readyz 200) once every server listens and the worker runs, SIGTERM handling included
  // (a stop asked for earlier would find the default handler and kill the process without a
  // clean shutdown): a client that waits for it may call the journey, the console and the docs
  // at once. The API answers its other routes from the moment it listens.
  let started = false;
  // Assigned once the API listens and the companions are up.
  let worker: RunningWorker | null = null;
  let checks: WarmingChecks | undefined;
  // What /readyz says of the checks before the worker runs: the warm-up is on its way.
  const checksBeforeWorker: 'warming' | 'cold' | 'not_running' = runsChecks ? (config.checksWarmUp ? 'warming' : 'cold') : 'not_running';
  // One blob store for the API and the worker in this process (BLOB_STORE).
  const blobs = openBlobStore(config, database.db);
  const { app, ctx } = await build({
    config,
    db: database.db,
    keyring,
    blobs,
    ready: async () => started && !stopping && (await database.ping().then(() => true)),
    checks: () => worker?.checksWarmth() ?? checksBeforeWorker,
  });
  await app.listen({ port: config.port, host: config.host });
  const apiAfterS = process.uptime();
  const servers: Server[] = [];
  let metrics: Awaited<ReturnType<typeof serveProcessMetrics>> | null = null;

  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down: finishing requests in flight');
    // What has not finished yet, named in the log line of a forced exit.
    const pending = new Set<string>();
    const step = (name: string, done: Promise<unknown> | undefined) => {
      pending.add(name);
      return Promise.resolve(done).finally(() => pending.delete(name));
    };
    const force = setTimeout(() => {
      app.log.error({ pending: [...pending] }, 'shutdown took over 15 s; exiting');
      process.exit(1);
    }, 15_000);
    force.unref();
    // Requests and attempts in flight finish (and are recorded) before the database closes.
    await Promise.all([
      step('api', app.close()),
      step('worker', worker ? worker.stop() : checks?.pool.destroy()),
      ...servers.map((server, i) => step(`server ${i + 1}`, new Promise((r) => server.close(r)))),
      step('console', consoleParts?.close()),
      step('metrics', metrics?.close()),
    ]);
    await step('database', database.close());
    clearTimeout(force);
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));

  // One registry for the whole process: the API's requests, the worker's jobs and deliveries.
  metrics = await serveProcessMetrics(config.metricsPort, config.host, database);
  const consoleUrl = (await consoleParts?.listen()) ?? null;
  const companions = apiOnly ? [] : COMPANIONS;
  for (const companion of companions) {
    servers.push(await listenOnPort(await companion.create({ config, db: database.db }), companion.port(config), config.host));
  }
  if (stopping) return;
  // The worker, in this process unless separate workers run (RUN_WORKER=false, PostgreSQL only).
  // Its checks' models load now, in threads of a lower priority (nice 10): a request to the API
  // or a companion is served before them whenever both want the CPU.
  checks = runsChecks ? startChecksPool(config.checksWarmUp, { niceness: CHECKS_NICENESS, threads: config.checksThreads ?? undefined }) : undefined;
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
  started = true;
  if (!worker && database.kind === 'pglite') {
    app.log.warn(apiOnly ? 'the API alone with the embedded database: no webhook will be sent' : 'RUN_WORKER=false with the embedded database: no webhook will be sent');
  }
  const urls = Object.fromEntries(companions.map((companion) => [companion.name, companion.url(config)]));
  app.log.info({ database: database.kind, blobs: config.blobStore, api: config.apiBaseUrl, ...urls, worker: Boolean(worker), metricsPort: metrics.port }, 'service started');

  // The banner, once the models are loaded (or will load with the first case): printed at every
  // start, first or not, after the JSON lines of the start.
  const warm = checks?.warmUp;
  const checksState: Promise<BannerFacts['checks']> = !checks
    ? Promise.resolve({ state: 'not_running' })
    : !warm
      ? Promise.resolve({ state: 'on_first_case' })
      : warm.then(
          (ms) => ({ state: 'warm', loadS: ms / 1000 }),
          () => ({ state: 'cold_failed' }),
        );
  const metricsPort = metrics.port;
  void checksState.then((state) => {
    if (stopping) return;
    process.stdout.write(
      readyBanner({
        apiAfterS,
        readyAfterS: process.uptime(),
        api: config.apiBaseUrl,
        journey: apiOnly ? null : config.journeyUrl,
        console: consoleUrl,
        docs: apiOnly ? null : config.docsUrl,
        idp: consoleParts?.idpUrl ?? null,
        metricsPort,
        database: database.kind === 'pglite' ? { kind: 'pglite', dataDir: config.dataDir } : { kind: 'postgres' },
        credentials: hasCredentialsFile(config.dataDir) ? { path: credentialsPath(config.dataDir), consoleAdmin: hasConsoleAdmin(config.dataDir) } : null,
        masterKeyFile,
        checks: state,
      }),
    );
  });
}

/** The checks threads' nice value inside the whole service: below the API's threads, never stopped by them. */
const CHECKS_NICENESS = 10;

/** Whether the credentials file holds the console's demo administrator (read for its keys only, nothing printed). */
function hasConsoleAdmin(dataDir: string): boolean {
  try {
    return 'console' in (JSON.parse(readFileSync(credentialsPath(dataDir), 'utf8')) as object);
  } catch {
    return false;
  }
}
