import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateMasterKey } from '@idv/vault';
import { startFaultCluster, type FaultCluster } from './fault-cluster.ts';
import { freePort, runNode, runServe, waitUntilReady, type Proc } from './processes.ts';
import { allowStillsOver } from './journey.ts';
import { startReceiver, type Receiver } from './receiver.ts';

/**
 * The service as several machines run it, on the fault suite's own PostgreSQL cluster: two API
 * processes (`apps/server/src/main.ts --api-only`) and two workers (`apps/worker/src/main.ts`)
 * sharing one DATA_DIR (the blob store) and one MASTER_KEY, rate limits off, and a real webhook
 * receiver. Any process can be SIGKILLed and started again; `close()` stops everything and
 * removes the cluster and the directory, whatever happened.
 */

export interface Node {
  name: string;
  proc: Proc;
  /** Set while we kill it on purpose: any other end is a crash. */
  killing?: boolean;
  /** The API's base URL (APIs only). */
  url?: string;
}

export interface FaultService {
  cluster: FaultCluster;
  dataDir: string;
  apis: Node[];
  workers: Node[];
  receiver: Receiver;
  creds: { client_id: string; api_key: { id: string; secret: string; signing_secret: string } };
  /** The base URLs of the APIs running now (what a load balancer would spread requests over). */
  liveApis(): string[];
  kill(node: Node): Promise<void>;
  /** Starts a killed node again, on the same port for an API; resolves once it is ready. */
  revive(node: Node): Promise<void>;
  /** Processes that ended without being killed on purpose (a crash is a finding), with their output. */
  crashed(): string[];
  /** The last lines of every process's output, for a failure message. */
  output(): string;
  close(): Promise<void>;
}

export interface FaultServiceOptions {
  /** DATA_DIR to use (for example a small tmpfs); by default a temporary directory. */
  dataDir?: string;
  /** Extra environment of every process. */
  env?: Record<string, string>;
}

const WORKER = 'apps/worker/src/main.ts';

export async function startFaultService(opts: FaultServiceOptions = {}): Promise<FaultService> {
  const cluster = await startFaultCluster();
  const ownDir = !opts.dataDir;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'idv-faults-data-'));
  const receiver = await startReceiver();
  const masterKey = generateMasterKey();
  const ports = await Promise.all([freePort(), freePort()]);
  const common: Record<string, string> = {
    DATABASE_URL: cluster.url,
    MASTER_KEY: masterKey,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_ENABLED: 'false',
    // The receiver listens on the loopback.
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    // Short leases and timeouts so that the work of a killed process is taken over within seconds.
    WEBHOOK_TIMEOUT_MS: '2000',
    WEBHOOK_LEASE_MS: '5000',
    WEBHOOK_POLL_MS: '200',
    WEBHOOK_RETRY_DELAYS_MS: '500,1000,2000,3000,3000,3000,3000',
    CHECKS_LEASE_MS: '6000',
    IDEMPOTENCY_LOCK_MS: '5000',
    ...opts.env,
  };
  const apiEnv = (port: number): Record<string, string> => ({
    ...common,
    PORT: String(port),
    HOST: '127.0.0.1',
    API_BASE_URL: `http://127.0.0.1:${port}`,
    JOURNEY_URL: 'http://journey.test',
    DOCS_URL: 'http://docs.test',
  });
  const apis: Node[] = ports.map((port, i) => ({ name: `api${i + 1}`, proc: null as unknown as Proc, url: `http://127.0.0.1:${port}` }));
  const workers: Node[] = [1, 2].map((i) => ({ name: `worker${i}`, proc: null as unknown as Proc }));
  const launch = async (node: Node): Promise<void> => {
    if (node.url) {
      node.proc = runServe(['--api-only'], apiEnv(Number(new URL(node.url).port)));
      await waitUntilReady(node.proc, `${node.url}/readyz`, 120_000);
    } else {
      // At info: its start line is what tells it is up.
      node.proc = runNode(WORKER, [], { ...common, LOG_LEVEL: 'info' });
      await waitForLine(node.proc, 'webhook worker started', 120_000);
    }
  };
  const all = () => [...apis, ...workers];
  const stopAll = async () => {
    for (const node of all()) {
      if (node.proc && node.proc.child.exitCode === null && node.proc.child.signalCode === null) {
        node.proc.child.kill('SIGKILL');
        await node.proc.exited;
      }
    }
  };
  // Whatever ends this process (a failure, Ctrl-C), nothing it started outlives it.
  const onExit = () => {
    for (const node of all()) if (node.proc && node.proc.child.exitCode === null) node.proc.child.kill('SIGKILL');
    cluster.destroySync();
    if (ownDir) rmSync(dataDir, { recursive: true, force: true });
  };
  process.on('exit', onExit);
  const service: FaultService = {
    cluster,
    dataDir,
    apis,
    workers,
    receiver,
    creds: null as unknown as FaultService['creds'],
    liveApis: () => apis.filter((a) => a.proc && a.proc.child.exitCode === null && a.proc.child.signalCode === null).map((a) => a.url!),
    kill: async (node) => {
      node.killing = true;
      node.proc.child.kill('SIGKILL');
      await node.proc.exited;
    },
    revive: async (node) => {
      await launch(node);
      node.killing = false;
    },
    crashed: () =>
      all()
        .filter((n) => !n.killing && n.proc && (n.proc.child.exitCode !== null || n.proc.child.signalCode !== null))
        .map((n) => `${n.name} ended (${n.proc.child.exitCode ?? n.proc.child.signalCode}):\n${tail(n.proc.stdout())}\n${tail(n.proc.stderr())}`),
    output: () => all().map((n) => `--- ${n.name}\n${tail(n.proc?.stdout() ?? '')}\n${tail(n.proc?.stderr() ?? '')}`).join('\n'),
    close: async () => {
      process.off('exit', onExit);
      await stopAll();
      await receiver.close();
      await cluster.destroy();
      if (ownDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  try {
    // The first API migrates the database and creates the demo client (its credentials in DATA_DIR).
    await launch(apis[0]);
    service.creds = JSON.parse(readFileSync(join(dataDir, 'bootstrap-credentials.json'), 'utf8'));
    // The load's journeys send stills (fault-load.ts): the sandbox `standard` flow accepts them.
    await allowStillsOver(apis[0].url!, service.creds.api_key);
    await Promise.all([launch(apis[1]), ...workers.map(launch)]);
  } catch (err) {
    const out = service.output();
    await service.close();
    throw new Error(`${(err as Error).message}\n${out}`);
  }
  return service;
}

const tail = (s: string) => s.split('\n').slice(-15).join('\n');

async function waitForLine(proc: Proc, text: string, deadlineMs: number): Promise<void> {
  const until = Date.now() + deadlineMs;
  while (!proc.stdout().includes(text) && !proc.stderr().includes(text)) {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) throw new Error(`the process ended before "${text}":\n${proc.stdout()}\n${proc.stderr()}`);
    if (Date.now() > until) throw new Error(`no "${text}" after ${deadlineMs} ms:\n${proc.stdout()}\n${proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
