import { execFile } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildPackage, type PackageName } from '../../scripts/build-packages.ts';
import { ROOT } from './processes.ts';

/**
 * A publishable package as an integrator gets it: built (scripts/build-packages.ts), packed with
 * npm, and installed from the tarball into an empty project in `scratch`, a directory outside
 * the repository, so nothing of the workspace can be resolved from there.
 */
export const exec = promisify(execFile);

/**
 * The environment of the npm the test runs, without what an enclosing `npm test` exports
 * (npm_config_local_prefix among them would make `npm install` install into the repository).
 */
const npmEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

export interface InstalledPackage {
  /** The integrator's project: package.json ("type": "module") and node_modules. */
  project: string;
  /** node_modules/@idv/<name> inside it. */
  installed: string;
}

/**
 * `from`: 'dist' packs the folder scripts/build-packages.ts builds; 'workspace' runs
 * `npm pack -w packages/<name>` in the repository, whose prepack builds it the same way.
 */
export async function packAndInstall(name: PackageName, scratch: string, from: 'dist' | 'workspace' = 'dist'): Promise<InstalledPackage> {
  const packed =
    from === 'workspace'
      ? await exec('npm', ['pack', '-w', `packages/${name}`, '--pack-destination', scratch, '--json'], { cwd: ROOT, env: npmEnv() })
      : await exec('npm', ['pack', await buildPackage(name), '--pack-destination', scratch, '--json'], { cwd: scratch, env: npmEnv() });
  const [{ filename }] = JSON.parse(packed.stdout) as { filename: string }[];
  const project = join(scratch, 'integrator');
  await mkdir(project);
  await writeFile(join(project, 'package.json'), JSON.stringify({ name: 'integrator', private: true, type: 'module' }));
  // --offline: the packages have no dependency, so installing one needs nothing from a registry.
  await exec('npm', ['install', join(scratch, filename), '--offline', '--no-audit', '--no-fund'], { cwd: project, env: npmEnv() });
  return { project, installed: join(project, 'node_modules', '@idv', name) };
}

/**
 * Compiles the given files of the project with the repository's TypeScript, strict, as an ES
 * module project would, and returns "<file> <TS code>" for each error (one tsc run). `node`: with
 * Node's types (from the repository, the project has none); `dom`: the browser's instead.
 */
export async function typeErrors(project: string, files: string[], env: 'node' | 'dom'): Promise<{ errors: string[]; output: string }> {
  const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
  const flags = ['--noEmit', '--strict', '--module', 'nodenext', '--moduleResolution', 'nodenext', '--target', 'es2022'];
  if (env === 'node') flags.push('--typeRoots', join(ROOT, 'node_modules', '@types'), '--types', 'node');
  else flags.push('--lib', 'es2022,dom');
  const output = await exec(process.execPath, [tsc, ...flags, ...files], { cwd: project }).then(
    () => '',
    (err: { stdout: string }) => err.stdout,
  );
  return { errors: [...output.matchAll(/^(\S+)\(\d+,\d+\): error (TS\d+)/gm)].map(([, file, code]) => `${file} ${code}`), output };
}
