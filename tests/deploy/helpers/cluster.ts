import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { connect } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { IdvClient } from '@idv/sdk';
import { startContainer, runOnce, type Container } from './podman.ts';

/**
 * Two API containers and two worker containers of the image on this machine's PostgreSQL (a
 * database of their own) and a Redis server of their own, as docs/deployment.md lays them out:
 * what the deploy test checks and bench:deploy measures.
 */

const PG_ADMIN = process.env.DEPLOY_PG_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Credentials {
  client_id: string;
  api_key: { id: string; secret: string; signing_secret: string };
}

export interface Cluster {
  database: string;
  databaseUrl: string;
  /** The API containers' base URLs, by container name. */
  apis: Map<string, string>;
  containers: Map<string, Container>;
  creds: Credentials;
  client(base: string): IdvClient;
  query<T>(sql: string, params?: unknown[]): Promise<T[]>;
  /** What every container of the cluster gets (one MASTER_KEY, the database, Redis, the blob store in PostgreSQL). */
  env: Record<string, string>;
  /** An API container in `role` (`web` unless told: with the journey on port + 1 and the docs on port + 3, or `api`). */
  startApi(name: string, port: number, role?: 'web' | 'api'): Promise<Container>;
  startWorker(name: string, metricsPort: number, extra?: Record<string, string>): Promise<Container>;
  close(): Promise<void>;
}

/** Polls `url` until it answers `status`; returns the seconds it took. */
export async function waitForStatus(url: string, status: number, deadlineMs: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(3_000) });
      await res.arrayBuffer();
      if (res.status === status) return (Date.now() - started) / 1000;
    } catch {
      // not answering yet
    }
    if (Date.now() - started > deadlineMs) throw new Error(`${url} did not answer ${status} within ${deadlineMs} ms`);
    await sleep(100);
  }
}

/** A Redis server of the cluster's own on 127.0.0.1 (the rate limits' shared counters). */
async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`redis-server exited ${child.exitCode} (apt-get install redis-server)`);
    const up = await new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => resolve(true)).on('error', () => resolve(false));
      socket.unref();
      setTimeout(() => socket.destroy(), 500);
    });
    if (up) return child;
    await sleep(100);
  }
  throw new Error(`redis-server did not listen on ${port}`);
}

/**
 * A fresh database (pgvector created by the administrator role, as docs/deployment.md asks), the
 * migrations and the demo client through the image's `migrate` role, Redis; no API nor worker yet.
 */
export async function startCluster(opts: { database: string; basePort: number }): Promise<Cluster> {
  const admin = new pg.Client({ connectionString: PG_ADMIN });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${opts.database} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${opts.database}`);
  await admin.end();
  const adminUrl = new URL(PG_ADMIN);
  adminUrl.pathname = `/${opts.database}`;
  const databaseUrl = adminUrl.toString();
  const ext = new pg.Client({ connectionString: databaseUrl });
  await ext.connect();
  await ext.query('CREATE EXTENSION IF NOT EXISTS vector');
  const pool = new pg.Pool({ connectionString: databaseUrl, max: 2 });
  // An idle connection ended by the server (the database dropped WITH (FORCE) at the end) is no failure.
  pool.on('error', () => {});
  await ext.end();

  const redisPort = opts.basePort + 379;
  const redis = await startRedis(redisPort);
  const env: Record<string, string> = {
    DATABASE_URL: databaseUrl,
    MASTER_KEY: randomBytes(32).toString('base64'),
    BLOB_STORE: 'postgres',
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    // The host's network: listen on the loopback interface only.
    HOST: '127.0.0.1',
    API_BASE_URL: `http://localhost:${opts.basePort}`,
    // The test's webhook receiver is on 127.0.0.1.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // A killed worker's claim lapses after this: another takes the job over.
    CHECKS_LEASE_MS: '15000',
    RATE_LIMIT_ENABLED: 'false',
    LOG_LEVEL: 'info',
  };

  // The migrate role writes the demo client's credentials into DATA_DIR: a directory of the
  // image's user (uid 1000), mounted.
  const dataDir = mkdtempSync(join(tmpdir(), 'idv-deploy-'));
  chownSync(dataDir, 1000, 1000);
  const out = await runOnce('migrate', env, { volumes: [`${dataDir}:/data`] });
  if (!out.includes('migrations applied')) throw new Error(`migrate said:\n${out}`);
  const creds = JSON.parse(readFileSync(join(dataDir, 'bootstrap-credentials.json'), 'utf8')) as Credentials;
  rmSync(dataDir, { recursive: true, force: true });

  const containers = new Map<string, Container>();
  const apis = new Map<string, string>();
  return {
    database: opts.database,
    databaseUrl,
    apis,
    containers,
    creds,
    env,
    client: (base) => new IdvClient({ baseUrl: base, apiKey: creds.api_key.secret, signingSecret: creds.api_key.signing_secret }),
    query: async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params)).rows as T[],
    startApi: async (name, port, role = 'web') => {
      // `web`, as compose and the Helm chart run it: the API, the journey (port + 1) and the docs (port + 3).
      const ports = { PORT: String(port), JOURNEY_PORT: String(port + 1), DOCS_PORT: String(port + 3), METRICS_PORT: String(port + 384) };
      const c = await startContainer(name, role, { ...env, ...ports });
      containers.set(name, c);
      apis.set(name, `http://127.0.0.1:${port}`);
      return c;
    },
    startWorker: async (name, metricsPort, extra = {}) => {
      const c = await startContainer(name, 'worker', { ...env, METRICS_PORT: String(metricsPort), ...extra });
      containers.set(name, c);
      return c;
    },
    close: async () => {
      await Promise.all([...containers.values()].map((c) => c.remove()));
      redis.kill('SIGTERM');
      await pool.end();
      if (!process.env.DEPLOY_KEEP_DATABASE) {
        const a = new pg.Client({ connectionString: PG_ADMIN });
        await a.connect();
        await a.query(`DROP DATABASE IF EXISTS ${opts.database} WITH (FORCE)`);
        await a.end();
      }
    },
  };
}
