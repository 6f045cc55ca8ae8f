import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMasterKey } from '@idv/vault';
import { TEST_DB, createPostgresDatabase, seedPgliteDataDir } from './database.ts';
import { freePort, runServe, stop, waitUntilReady, type Proc } from './processes.ts';

/** The whole service as `npm start` runs it, on free ports, a fresh data directory and the database of TEST_DB. */
export interface WholeService {
  proc: Proc;
  api: string;
  journeyUrl: string;
  consoleUrl: string;
  docsUrl: string;
  /** The development identity provider's issuer (IDP_URL). */
  idpUrl: string;
  dataDir: string;
  /** The demo client's bootstrap credentials (.data/bootstrap-credentials.json of a default start). */
  creds: { api_key: { secret: string; signing_secret: string } };
  stop(): Promise<void>;
}

/**
 * Starts apps/server/src/main.ts (API, worker with the real checks, journey, docs, console and its
 * development provider) and waits until it is ready. `env` adds or overrides variables.
 */
export async function startWholeService(env: Record<string, string> = {}): Promise<WholeService> {
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-service-'));
  let databaseUrl: string | null = null;
  let dropDb = async () => {};
  // A migrated database either way: these suites' subject is not the first start (server-process's).
  if (TEST_DB === 'postgres') ({ url: databaseUrl, dropDb } = await createPostgresDatabase({ migrated: true }));
  else await seedPgliteDataDir(dataDir);
  const [port, jport, dport, cport, iport] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  const api = `http://127.0.0.1:${port}`;
  const journeyUrl = `http://127.0.0.1:${jport}`;
  const docsUrl = `http://127.0.0.1:${dport}`;
  const consoleUrl = `http://127.0.0.1:${cport}`;
  const idpUrl = `http://127.0.0.1:${iport}`;
  const proc = runServe([], {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dataDir,
    API_BASE_URL: api,
    JOURNEY_URL: journeyUrl,
    DOCS_URL: docsUrl,
    CONSOLE_URL: consoleUrl,
    IDP_URL: idpUrl,
    LOG_LEVEL: 'warn',
    MASTER_KEY: generateMasterKey(),
    // The checks' models load with the first case instead: the warm-up costs about 9 s of CPU a
    // start and is server-process's subject, not these suites'.
    CHECKS_WARM_UP: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    ...env,
  });
  const stopAll = async () => {
    await stop(proc);
    await dropDb();
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    // A first start migrates a new database and bundles the console and the journey: on a 2-core
    // machine shared with other test runs that was seen to take 85 s, so the default 90 is tight.
    await waitUntilReady(proc, `${api}/readyz`, 180_000);
  } catch (err) {
    await stopAll();
    throw err;
  }
  const creds = JSON.parse(readFileSync(join(dataDir, 'bootstrap-credentials.json'), 'utf8'));
  return { proc, api, journeyUrl, consoleUrl, docsUrl, idpUrl, dataDir, creds, stop: stopAll };
}

/** Polls until `check` holds, or fails after `ms` with the process's error output. */
export async function waitUntil(what: string, check: () => Promise<boolean> | boolean, ms: number, proc?: Proc): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}${proc ? `\n${proc.stderr()}` : ''}`);
}
