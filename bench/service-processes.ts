import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '../tests/helpers/processes.ts';

/**
 * The processes a benchmark starts (the real service, a baseline server), each in its own process
 * group so that a stop reaches whatever it started, and every one stopped at the end: on success,
 * on failure, on Ctrl-C, or at the latest when the benchmark's process exits. Cleanups (temporary
 * directories, databases to drop) run after the processes are stopped, last registered first.
 */
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const children = new Set<ChildProcess>();
const cleanups: (() => Promise<void> | void)[] = [];

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  try {
    process.kill(-child.pid!, signal);
  } catch {
    // already gone
  }
}

process.on('exit', () => {
  for (const child of children) killGroup(child, 'SIGKILL');
});
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping the servers`);
    void cleanUp().finally(() => process.exit(130));
  });
}

/** Runs `fn` when the benchmark cleans up, after its processes are stopped. */
export function onCleanUp(...fns: (() => Promise<void> | void)[]): void {
  cleanups.push(...fns);
}

export async function cleanUp(): Promise<void> {
  for (const child of [...children]) await stop(child);
  for (const fn of cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch((err) => console.error('cleanup:', err));
}

export interface Server {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * Starts a TypeScript entry point with node itself as the child (its pid is the server's, for
 * measures such as its memory) on a free port of 127.0.0.1, and waits for its /readyz.
 */
export async function startServer(
  name: string,
  entry: string,
  env: Record<string, string>,
  opts: { args?: string[]; nodeArgs?: string[]; readyTimeoutS?: number } = {},
): Promise<Server> {
  const port = await freePort();
  // METRICS_PORT 0 unless asked: several processes side by side would all take 9464 (the metrics are still recorded).
  const childEnv: NodeJS.ProcessEnv = { METRICS_PORT: '0', ...process.env, ...env, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, ['--import', 'tsx', ...(opts.nodeArgs ?? []), entry, ...(opts.args ?? [])], {
    cwd: ROOT,
    env: childEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  let exited = false;
  child.once('exit', () => {
    exited = true;
    children.delete(child);
  });
  const url = `http://127.0.0.1:${port}`;
  const timeoutS = opts.readyTimeoutS ?? 60;
  const deadline = Date.now() + timeoutS * 1000;
  for (;;) {
    if (exited) throw new Error(`${name} exited before it was ready:\n${out}`);
    if (Date.now() > deadline) throw new Error(`${name} not ready after ${timeoutS} s:\n${out}`);
    if (await fetch(`${url}/readyz`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, output: () => out };
}

/** SIGTERM to the process group, SIGKILL after 20 s; resolves once the process has exited. */
export async function stop(child: ChildProcess): Promise<void> {
  if (!children.has(child)) return;
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  killGroup(child, 'SIGTERM');
  const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 20_000);
  await exited;
  clearTimeout(timer);
}
