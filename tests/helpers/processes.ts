import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/**
 * A port nobody listens on, below the kernel's ephemeral range (where outgoing connections could
 * take it first), claimed by creating a file named for it so that test files running side by side
 * never get the same one. Reserved until this process ends.
 */
export async function freePort(): Promise<number> {
  const high = ephemeralLow();
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = LOWEST_PORT + Math.floor(Math.random() * (high - LOWEST_PORT));
    if (claimPort(port) && (await canListen(port))) return port;
  }
  throw new Error(`no free port found between ${LOWEST_PORT} and ${high}`);
}

/**
 * Where the claims live: one file per port, holding the pid of the process that claimed it. In
 * the machine's temporary directory, which the test runner passes as TEST_SHARED_TMPDIR when it
 * gives its files a TMPDIR of their own: the claims must be seen by every run on the machine.
 */
const CLAIMS_DIR = join(process.env.TEST_SHARED_TMPDIR || tmpdir(), 'idv-test-port-claims');
const claimed: string[] = [];

/**
 * Claims a port for this process (true), or false when another live process (or this one) holds
 * it. A claim left by a process that has ended (killed, so its exit handler did not run) is taken
 * over: `kill(pid, 0)` says whether that process still exists.
 */
function claimPort(port: number): boolean {
  mkdirSync(CLAIMS_DIR, { recursive: true });
  const file = join(CLAIMS_DIR, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    if (holderAlive(file)) return false;
    try {
      // Replaced whole (a rename), so that a reader never sees half a pid. Two processes taking
      // over the same dead claim in the same millisecond could both believe they hold it; the
      // reading back makes that window tiny, and a dead claim needs a file killed mid-run.
      const mine = `${file}.${process.pid}`;
      writeFileSync(mine, String(process.pid));
      renameSync(mine, file);
      if (readFileSync(file, 'utf8') !== String(process.pid)) return false;
    } catch {
      return false;
    }
  }
  if (claimed.length === 0) process.once('exit', releaseClaims);
  claimed.push(file);
  return true;
}

function holderAlive(file: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(file, 'utf8'));
  } catch {
    return true; // being written or taken over right now: leave it
  }
  // Empty or partial: the claim was created an instant ago and its pid is being written; taking it
  // over would give the port to two processes. (A holder killed between the two leaves that one
  // port of twenty thousand unclaimable, which is harmless.)
  if (!Number.isInteger(pid) || pid <= 0) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function releaseClaims(): void {
  for (const file of claimed.splice(0)) {
    try {
      if (readFileSync(file, 'utf8') === String(process.pid)) unlinkSync(file);
    } catch {
      // already gone
    }
  }
}

/**
 * Below this are the well-known and commonly configured ports (databases, brokers, dev servers)
 * and the last port Chromium refuses to open pages on (10080, its "unsafe ports").
 */
const LOWEST_PORT = 11_000;

/** The first port of the kernel's ephemeral range (Linux's default where it cannot be read). */
function ephemeralLow(): number {
  try {
    const low = Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]);
    if (Number.isInteger(low) && low > LOWEST_PORT + 1000) return low;
  } catch {
    // not Linux: its default
  }
  return 32_768;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The environment of a child process: ours without the variables the service reads, plus those given. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['PORT', 'HOST', 'DATA_DIR', 'DATABASE_URL', 'MASTER_KEY', 'API_BASE_URL', 'JOURNEY_URL', 'CONSOLE_URL', 'DOCS_URL', 'IDP_URL', 'OIDC_ISSUER', 'OIDC_JWKS_URL', 'OIDC_AUDIENCE', 'CONSOLE_API_KEY', 'LOG_LEVEL', 'NODE_TEST_CONTEXT', 'REDIS_URL', 'TRUST_PROXY', 'METRICS_PORT']) {
    delete base[name];
  }
  for (const name of Object.keys(base)) if (name.startsWith('RATE_LIMIT_')) delete base[name];
  // No metrics port unless the test asks for one: processes started side by side would all take 9464.
  return { ...base, METRICS_PORT: '0', ...env };
}

export interface Proc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the exit code (or the signal name) once the process has ended and all it wrote has been read. */
  exited: Promise<number | string>;
}

/**
 * Node's arguments for what a checkout's `npm run serve` runs, without npm (whose own start a
 * benchmark would count, and which stands between a signal and the service): `tsx <file> …` as
 * `--import tsx <file> …`, `node <args>` as they are.
 */
export function serveArgs(root = ROOT): string[] {
  const command = (JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts.serve;
  const [program, ...args] = command.trim().split(/\s+/);
  if (program === 'tsx') return ['--import', 'tsx', ...args];
  if (program === 'node') return args;
  throw new Error(`npm run serve in ${root} runs ${command}: neither tsx nor node`);
}

/** Runs `node --import tsx <script> …args` from the repository root. */
export function runNode(script: string, args: string[], env: Record<string, string>): Proc {
  return runProcess(['--import', 'tsx', script, ...args], env);
}

/** Runs the service as `npm run serve` (or `npm run api` with `--api-only`) runs it, from the repository root. */
export function runServe(args: string[], env: Record<string, string>): Proc {
  return runProcess([...serveArgs(), ...args], env);
}

function runProcess(nodeArgs: string[], env: Record<string, string>): Proc {
  const child = spawn(process.execPath, nodeArgs, { cwd: ROOT, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (c) => (out += c));
  child.stderr!.on('data', (c) => (err += c));
  // 'close', not 'exit': 'exit' can come before the pipes are drained, and a test that reads what
  // a process said on its way out (a configuration error on stderr) then reads nothing.
  const exited = new Promise<number | string>((resolve) => child.on('close', (code, signal) => resolve(code ?? signal ?? -1)));
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** Polls a URL until it answers 200, or fails when the process ends first or after the deadline. */
export async function waitUntilReady(proc: Proc, url: string, deadlineMs = 90_000): Promise<void> {
  let ended: number | string | null = null;
  void proc.exited.then((code) => (ended = code));
  const until = Date.now() + deadlineMs;
  while (Date.now() < until) {
    if (ended !== null) throw new Error(`the process ended (${ended}) before ready:\n${proc.stdout()}\n${proc.stderr()}`);
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not ready after ${deadlineMs} ms:\n${proc.stdout()}\n${proc.stderr()}`);
}

/** Stops a process we started, if it still runs, and waits for its end. */
export async function stop(proc: Proc | null | undefined): Promise<void> {
  if (!proc || proc.child.exitCode !== null || proc.child.signalCode !== null) return;
  proc.child.kill('SIGTERM');
  const timer = setTimeout(() => proc.child.kill('SIGKILL'), 20_000);
  await proc.exited;
  clearTimeout(timer);
}
