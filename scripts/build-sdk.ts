/**
 * Builds the publishable SDK into packages/sdk/dist (`npm run build:sdk`): one ES module bundled
 * with esbuild, one bundled type declaration file, the README and a package.json written for
 * integrators. `npm pack packages/sdk/dist` (or `npm publish packages/sdk/dist`) ships that folder.
 *
 * Why a folder of its own rather than `files` in packages/sdk: inside the repository the service,
 * the tests and the benches import `@idv/sdk` from its TypeScript source through the workspace
 * link, and neither tsx nor Node pick an export condition the repository could set for itself
 * without every process passing `--conditions`. So the workspace manifest keeps pointing at src
 * (and stays private, so it can never be published by mistake), and the published manifest,
 * pointing at the built files, is derived from it here.
 *
 * What the SDK uses of @idv/webhooks (verification, the header names) and of @idv/domain (the
 * event types) is bundled into the output: the installed package has no dependency at all.
 */
import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { generateDtsBundle } from 'dts-bundle-generator';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const SDK = join(ROOT, 'packages', 'sdk');
export const SDK_DIST = join(SDK, 'dist');
const ENTRY = join(SDK, 'src', 'index.ts');
/** The oldest Node the package promises to run on: global fetch, node:crypto randomUUID. */
const NODE_TARGET = 'node18';

interface WorkspaceManifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  engines?: Record<string, string>;
  keywords?: string[];
}

export async function buildSdk(): Promise<void> {
  rmSync(SDK_DIST, { recursive: true, force: true });
  mkdirSync(SDK_DIST, { recursive: true });

  await build({
    entryPoints: [ENTRY],
    outfile: join(SDK_DIST, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: NODE_TARGET,
    // Readable output: integrators step into it when debugging their integration.
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
  });

  // tsconfig.build.json maps @idv/webhooks and @idv/domain to their sources, so the generator
  // treats them as the SDK's own files and inlines the declarations it uses instead of importing
  // packages an integrator does not have.
  const [declarations] = generateDtsBundle([{ filePath: ENTRY, output: { noBanner: true, exportReferencedTypes: false } }], {
    preferredConfigPath: join(SDK, 'tsconfig.build.json'),
  });
  if (/from\s+['"]@idv\//.test(declarations!)) throw new Error('the bundled declarations still import an @idv/* package');
  writeFileSync(join(SDK_DIST, 'index.d.ts'), declarations!);

  const source = JSON.parse(readFileSync(join(SDK, 'package.json'), 'utf8')) as WorkspaceManifest;
  const manifest = {
    name: source.name,
    version: source.version,
    description: source.description,
    keywords: source.keywords,
    license: source.license,
    type: 'module',
    engines: source.engines,
    exports: { '.': { types: './index.d.ts', import: './index.js' }, './package.json': './package.json' },
    types: './index.d.ts',
    files: ['index.js', 'index.d.ts', 'README.md'],
    sideEffects: false,
  };
  writeFileSync(join(SDK_DIST, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  copyFileSync(join(SDK, 'README.md'), join(SDK_DIST, 'README.md'));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  await buildSdk();
  console.log(`SDK built into ${SDK_DIST} in ${Date.now() - started} ms`);
}
