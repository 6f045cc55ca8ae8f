import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../helpers/processes.ts';

/**
 * The deploy test's and bench:deploy's hands on podman (rootful, this machine's only container
 * engine: it reaches no registry). Every container runs on the host's network, listening on
 * 127.0.0.1 only, with the settings of deploy/test/containers.conf (runc; no default ulimits).
 */

const run = promisify(execFile);
const CONTAINERS_CONF = join(ROOT, 'deploy/test/containers.conf');
const ENV = { ...process.env, CONTAINERS_CONF };
/** The Node base the test makes (deploy/test/make-base.sh), standing in for node:20-bookworm-slim. */
const BASE_IMAGE = 'localhost/idv-node-base:20';
/**
 * The image the test builds (the Dockerfile on that base), or the one DEPLOY_TEST_IMAGE names,
 * already built, which is then used as it is.
 */
export const TEST_IMAGE = process.env.DEPLOY_TEST_IMAGE ?? 'localhost/idv:deploy-test';

/** `podman <args>`; `env` reaches the containers through `-e NAME` (no value on the command line, where a failure would print it). */
export async function podman(args: string[], timeoutMs = 120_000, env: Record<string, string> = {}): Promise<string> {
  const { stdout } = await run('podman', args, { env: { ...ENV, ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
}

/** `podman run`'s options of every container: read-only root file system (a tmpfs on /tmp), no capability, no new privileges, the host's network, never a pull. */
function runArgs(env: Record<string, string>, volumes: string[] = []): string[] {
  const args = ['--pull', 'never', '--network', 'host', '--read-only', '--cap-drop', 'all', '--security-opt', 'no-new-privileges'];
  for (const name of Object.keys(env)) args.push('-e', name);
  for (const v of volumes) args.push('-v', v);
  return args;
}

/** Fails with what to install when a tool is missing (they come from Debian's packages). */
export async function requireTools(): Promise<void> {
  for (const tool of ['podman', 'runc', 'debootstrap']) {
    try {
      await run('sh', ['-c', `command -v ${tool}`]);
    } catch {
      throw new Error(`${tool} is missing: apt-get install -y podman buildah runc debootstrap (see docs/deployment.md#testing-the-image-here)`);
    }
  }
}

/** Runs a long command with its output passed through (the base's debootstrap, the image's build). */
function stream(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: ROOT, env: ENV, stdio: ['ignore', 'inherit', 'inherit'] });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`))));
  });
}

/**
 * The image, built from the repository's Dockerfile on the locally made base (NODE_IMAGE build
 * argument). The machine's CA bundle goes in as the build secret `ca` when npm is reached through
 * a TLS-inspecting proxy (never into a layer). Returns the build's seconds.
 */
export async function buildImage(tag = TEST_IMAGE): Promise<number> {
  await stream('bash', [join(ROOT, 'deploy/test/make-base.sh'), BASE_IMAGE]);
  const started = Date.now();
  const ca = process.env.NODE_EXTRA_CA_CERTS && existsSync(process.env.NODE_EXTRA_CA_CERTS) ? process.env.NODE_EXTRA_CA_CERTS : null;
  await stream('nice', [
    'podman',
    'build',
    // Docker's image format keeps HEALTHCHECK (the OCI format has no field for it).
    '--format',
    'docker',
    '--network',
    'host',
    '--build-arg',
    `NODE_IMAGE=${BASE_IMAGE}`,
    ...(ca ? ['--secret', `id=ca,src=${ca}`] : []),
    '-t',
    tag,
    ROOT,
  ]);
  return (Date.now() - started) / 1000;
}

/** The image's size in bytes, as podman stores it (uncompressed layers). */
export async function imageSize(tag = TEST_IMAGE): Promise<number> {
  return Number(await podman(['image', 'inspect', '--format', '{{.Size}}', tag]));
}

export interface Container {
  name: string;
  /** SIGKILL: a crash, nothing finishes. */
  kill(): Promise<void>;
  /** SIGTERM, then what the process does with it (at most `timeoutS` before podman kills it). */
  stop(timeoutS?: number): Promise<void>;
  /** Its log so far (stdout and stderr). */
  logs(): Promise<string>;
  /** The image's HEALTHCHECK, run until it passes or its start period and retries are spent: healthy, or unhealthy with why. */
  healthcheck(): Promise<string>;
  remove(): Promise<void>;
}

/**
 * Starts a container of `image` in `role`, as a deployment runs it: the root file system
 * read-only (podman's tmpfs on /tmp), every capability dropped, no new privileges, the image's
 * non-root user, the host's network (listening on 127.0.0.1 only).
 */
export async function startContainer(name: string, role: string, env: Record<string, string>, opts: { image?: string; volumes?: string[] } = {}): Promise<Container> {
  await podman(['rm', '-f', '--ignore', name]).catch(() => '');
  await podman(['run', '-d', '--name', name, ...runArgs(env, opts.volumes), opts.image ?? TEST_IMAGE, role], 120_000, env);
  return containerHandle(name);
}

function containerHandle(name: string): Container {
  return {
    name,
    kill: async () => void (await podman(['kill', '--signal', 'KILL', name])),
    stop: async (timeoutS = 20) => void (await podman(['stop', '--time', String(timeoutS), name], (timeoutS + 30) * 1000)),
    logs: async () => {
      const { stdout, stderr } = await run('podman', ['logs', name], { env: ENV, maxBuffer: 64 * 1024 * 1024 });
      return stdout + stderr;
    },
    healthcheck: async () => {
      // As the image's HEALTHCHECK counts (--start-period=60s --retries=3): failures while the
      // process starts (its checks' models loading on a busy machine) do not count; healthy once
      // a run passes within that time, else unhealthy with the last run's output.
      const deadline = Date.now() + 90_000;
      let last = '';
      while (Date.now() < deadline) {
        try {
          await podman(['healthcheck', 'run', name]);
          return 'healthy';
        } catch (err) {
          last = String((err as { stdout?: string; stderr?: string }).stderr || (err as Error).message).slice(0, 300);
          await new Promise((r) => setTimeout(r, 3_000));
        }
      }
      return `unhealthy: ${last}`;
    },
    remove: async () => void (await podman(['rm', '-f', '--ignore', name]).catch(() => '')),
  };
}

/** Runs a one-shot container (the `migrate` or `admin` role, with `args`) to its end; returns its output, fails on a non-zero exit. */
export async function runOnce(role: string, env: Record<string, string>, opts: { image?: string; volumes?: string[]; args?: string[] } = {}): Promise<string> {
  return podman(['run', '--rm', ...runArgs(env, opts.volumes), opts.image ?? TEST_IMAGE, role, ...(opts.args ?? [])], 300_000, env);
}

/** The exit status and the user of a container that ended (`podman inspect`). */
export async function inspect(name: string, format: string): Promise<string> {
  return podman(['inspect', '--format', format, name]);
}
