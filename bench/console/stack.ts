import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { insertOperator, openDatabase, queryRows, type Tenant } from '@idv/db';
import { newId } from '@idv/domain';
import { MasterKeyring, generateMasterKey, parseMasterKey } from '@idv/vault';
import { createDevIdp } from '../../apps/dev-idp/src/index.ts';
import { issueApiKey } from '../../apps/api/src/services/api-keys.ts';
import { createPostgresDatabase } from '../../tests/helpers/database.ts';
import { freePort } from '../../tests/helpers/processes.ts';
import { seedReviewTasks } from '../review-tasks-seed.ts';
import { seedDecidedTasks } from '../../tests/helpers/review-seed.ts';
import type { Processes } from './processes.ts';
import { caseInReviewThroughJourney } from './real-case.ts';

export type Backend = 'pglite' | 'postgres';

/** Everything the browser part needs: where to go, who signs in, which task has the real images. */
export interface Stack {
  consoleUrl: string;
  baselineUrl: string;
  login: string;
  password: string;
  /** The review task of the case sent through the journey (its case has real image pieces). */
  taskId: string;
  seedS: number;
  /** Seconds to seed the year of decided tasks the review metrics read. */
  decidedSeedS: number;
}

const url = (port: number) => `http://127.0.0.1:${port}`;

/**
 * The whole system on loopback for one backend, as `npm start` lays it out, every part real:
 * - the development identity provider (apps/dev-idp, in this process) with one account;
 * - the service (apps/server/src/main.ts, the composition root, a child process, its checks worker
 *   included) on PGlite in a temporary DATA_DIR or on a fresh PostgreSQL database. OIDC_ISSUER is
 *   set, so it starts no development provider of its own, and without OIDC_CLIENT_SECRET no console
 *   of its own either; its CONSOLE_URL and IDP_URL still get free ports of their own, so that
 *   nothing it might start can take the ports of the console measured here;
 * - one case sent to review through the journey routes with real photos, then the service stopped
 *   while `tasks` more review tasks are seeded (as bench:reviews does), and `decided` decided ones
 *   spread over the last year (tests/helpers/review-seed.ts), with an administrator
 *   operator attached to the provider's account and a console credential, then started again;
 * - the console server (apps/console/src/main.ts, a child process, web app built at its start);
 * - the baseline server (bench/console/baseline-server.ts, a child process).
 */
export async function startStack(backend: Backend, tasks: number, procs: Processes, decided: number): Promise<Stack> {
  const root = mkdtempSync(join(tmpdir(), `bench-console-${backend}-`));
  procs.later('temporary directory', () => rmSync(root, { recursive: true, force: true }));
  const [apiPort, journeyPort, docsPort, consolePort, idpPort, baselinePort, idleConsolePort, idleIdpPort] = await Promise.all(
    Array.from({ length: 8 }, () => freePort()),
  );
  const apiBase = url(apiPort);
  const consoleUrl = url(consolePort);
  const masterKey = generateMasterKey();

  const idp = await createDevIdp({ issuer: url(idpPort), dataDir: join(root, 'dev-idp'), consoleUrl, nodeEnv: 'development' });
  procs.later('development identity provider', () => idp.close());
  const login = 'bench-reviewer';
  const password = randomBytes(12).toString('base64url');
  const subject = idp.addAccount(login, password);

  let databaseUrl: string | null = null;
  if (backend === 'postgres') {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    procs.later('PostgreSQL database', created.dropDb);
  }
  const serviceDir = join(root, 'service');
  const serviceEnv: Record<string, string> = {
    PORT: String(apiPort),
    HOST: '127.0.0.1',
    DATA_DIR: serviceDir,
    MASTER_KEY: masterKey,
    API_BASE_URL: apiBase,
    JOURNEY_URL: url(journeyPort),
    DOCS_URL: url(docsPort),
    // Not the measured console's port (see above); the measured one is started below.
    CONSOLE_URL: url(idleConsolePort),
    IDP_URL: url(idleIdpPort),
    OIDC_ISSUER: idp.issuer,
    OIDC_JWKS_URL: idp.jwksUrl,
    OIDC_AUDIENCE: idp.clientId,
    LOG_LEVEL: 'warn',
    // The benchmark measures the service, not its rate limiter (docs/rate-limits.md): limits off.
    RATE_LIMIT_ENABLED: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };

  // 1. The first start bootstraps the demo client; one real case goes to review.
  console.error(`[${backend}] starting the service, sending one case through the journey (the checks run on it)…`);
  let service = await procs.start('service', 'apps/server/src/main.ts', serviceEnv, `${apiBase}/readyz`);
  const boot = JSON.parse(readFileSync(join(serviceDir, 'bootstrap-credentials.json'), 'utf8')) as { client_id: string; api_key: { secret: string; signing_secret: string } };
  const caseId = await caseInReviewThroughJourney(apiBase, { secret: boot.api_key.secret, signingSecret: boot.api_key.signing_secret });
  await procs.stop(service);

  // 2. Stopped (PGlite has one process at a time): the queue's bulk, the operator, the console credential.
  console.error(`[${backend}] seeding ${tasks} review tasks…`);
  const database = await openDatabase(databaseUrl ? { kind: 'postgres', url: databaseUrl, poolSize: 2 } : { kind: 'pglite', dataDir: serviceDir });
  let taskId: string;
  let operatorId: string;
  let consoleKey: string;
  let seedS: number;
  let decidedSeedS: number;
  try {
    const now = new Date();
    const tenant: Tenant = { clientId: boot.client_id, environment: 'sandbox' };
    const [task] = await queryRows<{ id: string }>(database.db, sql`SELECT id FROM review_tasks WHERE case_id = ${caseId}`);
    if (!task) throw new Error(`no review task for the case ${caseId}`);
    taskId = task.id;
    const [flow] = await queryRows<{ id: string }>(database.db, sql`SELECT id FROM flows WHERE client_id = ${tenant.clientId} LIMIT 1`);
    const started = performance.now();
    await seedReviewTasks(database, tenant, flow.id, now, tasks);
    seedS = Math.round((performance.now() - started) / 100) / 10;
    // A year of decided tasks for the review metrics' screen (its time to first chart over 365 days).
    const decidedStarted = performance.now();
    await seedDecidedTasks(database.db, tenant, now, decided, 365);
    decidedSeedS = Math.round((performance.now() - decidedStarted) / 100) / 10;
    const operator = await insertOperator(database.db, {
      id: newId('op', now.getTime()),
      ...tenant,
      name: 'Bench Reviewer',
      email: null,
      role: 'administrator',
      countries: ['*'],
      sensitivity: 'restricted',
      status: 'active',
      // Attached to the provider's account, as the first resolve of an invitation leaves it.
      subject,
      createdBy: 'bench',
      createdAt: now,
      updatedAt: now,
    });
    operatorId = operator.id;
    const keyring = new MasterKeyring(parseMasterKey(masterKey));
    consoleKey = (await issueApiKey(database.db, keyring, { ...tenant, kind: 'console', name: 'console', permissions: [], createdBy: 'bench', now })).secret;
  } finally {
    await database.close();
  }

  // 3. The service again, the console server and the baseline beside it.
  console.error(`[${backend}] starting the service, the console server and the baseline…`);
  service = await procs.start('service', 'apps/server/src/main.ts', serviceEnv, `${apiBase}/readyz`);
  await procs.start(
    'console server',
    'apps/console/src/main.ts',
    {
      CONSOLE_URL: consoleUrl,
      API_BASE_URL: apiBase,
      DOCS_URL: url(docsPort),
      HOST: '127.0.0.1',
      CONSOLE_API_KEY: consoleKey,
      MASTER_KEY: masterKey,
      OIDC_ISSUER: idp.issuer,
      OIDC_CLIENT_ID: idp.clientId,
      OIDC_CLIENT_SECRET: idp.clientSecret,
      DATA_DIR: join(root, 'console'),
      LOG_LEVEL: 'warn',
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    },
    `${consoleUrl}/signed-out`,
  );
  const baselineUrl = url(baselinePort);
  await procs.start(
    'baseline server',
    'bench/console/baseline-server.ts',
    { PORT: String(baselinePort), API_BASE_URL: apiBase, BASELINE_API_KEY: consoleKey, BASELINE_OPERATOR_ID: operatorId },
    `${baselineUrl}/queue.html`,
  );
  return { consoleUrl, baselineUrl, login, password, taskId, seedS, decidedSeedS };
}
