import { execFile, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './processes.ts';

/**
 * A PostgreSQL cluster of its own for the fault suite (initdb in a temporary directory, its own
 * port and socket, pg_ctl), so stopping it disturbs nothing else. As root the binaries run as the
 * `postgres` user (initdb refuses root). `destroy()` stops it and removes the directory.
 */

const run = promisify(execFile);
const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface FaultCluster {
  /** postgres://postgres@127.0.0.1:<port>/postgres */
  url: string;
  port: number;
  /** `pg_ctl stop -m fast`: connections are ended, the server is gone until start(). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** `pg_ctl restart -m fast`. */
  restart(): Promise<void>;
  /** A one-off query on a connection of its own (for the checks after a scenario). */
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  destroy(): Promise<void>;
  /** The same, synchronously: for a process that is exiting (see fault-service.ts). */
  destroySync(): void;
  log(): string;
}

const asRoot = userInfo().uid === 0;

/** Runs a PostgreSQL binary, as the `postgres` user when we are root. */
async function pgBin(name: string, args: string[]): Promise<void> {
  const bin = join(PG_BIN, name);
  const [cmd, argv] = asRoot ? ['runuser', ['-u', 'postgres', '--', bin, ...args]] : [bin, args];
  await run(cmd, argv, { timeout: 60_000 });
}

export async function startFaultCluster(): Promise<FaultCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'idv-faults-pg-'));
  const data = join(dir, 'data');
  const logFile = join(dir, 'server.log');
  if (asRoot) {
    const { uid, gid } = await postgresUser();
    chownSync(dir, uid, gid);
  }
  chmodSync(dir, 0o700);
  const port = await freePort();
  let started = false;
  const options = [
    `-p ${port}`,
    `-k ${dir}`,
    '-c listen_addresses=127.0.0.1',
    // A test server: durability across an OS crash is not what is tested (pg_ctl stops are clean).
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ');
  const start = async () => {
    await pgBin('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-w', '-t', '60', 'start']);
    started = true;
  };
  const stop = async (mode = 'fast') => {
    await pgBin('pg_ctl', ['-D', data, '-m', mode, '-w', '-t', '60', 'stop']);
    started = false;
  };
  try {
    await pgBin('initdb', ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8', '--locale=C']);
    await start();
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    stop: () => stop('fast'),
    start,
    restart: async () => {
      await pgBin('pg_ctl', ['-D', data, '-l', logFile, '-o', options, '-m', 'fast', '-w', '-t', '60', 'restart']);
      started = true;
    },
    async query<T>(text: string, values: unknown[] = []): Promise<T[]> {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        return (await client.query(text, values)).rows as T[];
      } finally {
        await client.end();
      }
    },
    destroy: async () => {
      if (started) await stop('immediate').catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
    destroySync: () => {
      if (started) {
        const bin = join(PG_BIN, 'pg_ctl');
        const args = ['-D', data, '-m', 'immediate', '-w', 'stop'];
        try {
          if (asRoot) execFileSync('runuser', ['-u', 'postgres', '--', bin, ...args], { stdio: 'ignore' });
          else execFileSync(bin, args, { stdio: 'ignore' });
        } catch {
          // already stopped
        }
        started = false;
      }
      rmSync(dir, { recursive: true, force: true });
    },
    log: () => {
      try {
        return readFileSync(logFile, 'utf8');
      } catch {
        return '';
      }
    },
  };
}

async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', 'postgres']);
  const { stdout: gid } = await run('id', ['-g', 'postgres']);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}
