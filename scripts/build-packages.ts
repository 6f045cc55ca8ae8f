/**
 * Builds the publishable packages into packages/<name>/dist (`npm run build:packages`, `build:sdk`,
 * `build:embed`): bundled JavaScript, one type declaration file, README, LICENSE and a package.json
 * for integrators, with the sibling packages they use bundled in. A folder of its own because the
 * workspace manifests point at src for the repository's own imports (and stay private).
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions } from 'esbuild';
import { generateDtsBundle } from 'dts-bundle-generator';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');

/** How one package is built; everything else (the declarations, README, LICENSE, manifest) is common. */
interface PackageBuild {
  /** Folder under packages/. */
  dir: string;
  platform: 'node' | 'browser';
  /** esbuild targets: the oldest runtime the package promises. */
  target: string[];
  /** Also a CommonJS build (index.cjs, index.d.cts) under the `require` condition. */
  cjs: boolean;
  /** A classic script for a `<script>` tag (an IIFE setting a global), from this entry under src/. */
  script?: { entry: string; file: string };
}

const PACKAGES = {
  // Node 18: global fetch and node:crypto randomUUID, nothing newer.
  sdk: { dir: 'sdk', platform: 'node', target: ['node18'], cjs: true },
  // Browsers of the journey itself (apps/journey/src/build.ts); a browser package, so no CommonJS:
  // every bundler reads ES modules, and a page without one takes the classic script.
  embed: { dir: 'embed', platform: 'browser', target: ['es2020', 'safari15', 'chrome100'], cjs: false, script: { entry: 'browser.ts', file: 'embed.js' } },
} satisfies Record<string, PackageBuild>;
export type PackageName = keyof typeof PACKAGES;

interface WorkspaceManifest {
  name: string;
  version: string;
  description?: string;
  license?: string;
  engines?: Record<string, string>;
  keywords?: string[];
}

/** packages/<name>/dist, where the package is built. */
const distOf = (name: PackageName): string => join(ROOT, 'packages', PACKAGES[name].dir, 'dist');

/** What every build of a package shares. */
function commonOptions(spec: PackageBuild): BuildOptions {
  return {
    bundle: true,
    platform: spec.platform,
    target: spec.target,
    // Readable output: integrators step into it when debugging their integration.
    minify: false,
    legalComments: 'none',
    logLevel: 'warning',
  };
}

/**
 * The package's ES module (dist/index.js) as published, written to `outfile`: the documentation's
 * executed samples import the SDK built this way (tests/docs/reference-samples.test.ts).
 */
export function moduleBuildOptions(name: PackageName, outfile: string): BuildOptions {
  const spec: PackageBuild = PACKAGES[name];
  return { ...commonOptions(spec), entryPoints: [join(ROOT, 'packages', spec.dir, 'src', 'index.ts')], outfile, format: 'esm' };
}

/** Builds one package into its dist folder and returns that folder. */
export async function buildPackage(name: PackageName): Promise<string> {
  const spec: PackageBuild = PACKAGES[name];
  const pkg = join(ROOT, 'packages', spec.dir);
  const dist = distOf(name);
  const entry = join(pkg, 'src', 'index.ts');
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });

  const common = commonOptions(spec);
  const files = ['index.js', 'index.d.ts'];
  await build(moduleBuildOptions(name, join(dist, 'index.js')));
  if (spec.cjs) {
    await build({ ...common, entryPoints: [entry], outfile: join(dist, 'index.cjs'), format: 'cjs' });
    files.push('index.cjs', 'index.d.cts');
  }
  if (spec.script) {
    // Minified: it is what a page downloads, as the journey serves it at /embed.js.
    await build({ ...common, entryPoints: [join(pkg, 'src', spec.script.entry)], outfile: join(dist, spec.script.file), format: 'iife', minify: true });
    files.push(spec.script.file);
  }

  // The package's tsconfig.build.json takes its sources only (the repository's whole program
  // would take seconds more), and maps the sibling packages it uses to their sources: the
  // generator then treats them as the package's own files and inlines the declarations it uses
  // instead of importing packages an integrator does not have.
  const [declarations] = generateDtsBundle([{ filePath: entry, output: { noBanner: true, exportReferencedTypes: false } }], {
    preferredConfigPath: join(pkg, 'tsconfig.build.json'),
  });
  if (/from\s+['"]@idv\//.test(declarations!)) throw new Error(`the bundled declarations of ${name} still import an @idv/* package`);
  writeFileSync(join(dist, 'index.d.ts'), declarations!);
  // The same declarations, read as CommonJS ones by TypeScript for a `require` (a .d.ts in a
  // "type": "module" package would be taken for an ES module's, which CommonJS cannot require).
  if (spec.cjs) writeFileSync(join(dist, 'index.d.cts'), declarations!);

  const source = JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')) as WorkspaceManifest;
  const dot = spec.cjs
    ? { import: { types: './index.d.ts', default: './index.js' }, require: { types: './index.d.cts', default: './index.cjs' } }
    : { types: './index.d.ts', import: './index.js' };
  const manifest = {
    name: source.name,
    version: source.version,
    description: source.description,
    keywords: source.keywords,
    license: source.license,
    type: 'module',
    engines: source.engines,
    exports: { '.': dot, ...(spec.script ? { [`./${spec.script.file}`]: `./${spec.script.file}` } : {}), './package.json': './package.json' },
    ...(spec.cjs ? { main: './index.cjs' } : {}),
    types: './index.d.ts',
    // CDNs (unpkg, jsDelivr) serve these files at the package's bare address: the classic script.
    ...(spec.script ? { unpkg: `./${spec.script.file}`, jsdelivr: `./${spec.script.file}` } : {}),
    files: [...files, 'README.md', 'LICENSE'],
    sideEffects: spec.script ? [`./${spec.script.file}`] : false,
  };
  writeFileSync(join(dist, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
  copyFileSync(join(pkg, 'README.md'), join(dist, 'README.md'));
  copyFileSync(join(ROOT, 'LICENSE'), join(dist, 'LICENSE'));
  return dist;
}

/**
 * `npm pack -w packages/<name>` and `npm publish -w packages/<name>` pack the workspace folder
 * itself, whose manifest points at the TypeScript sources the repository imports. Its prepack
 * (`--prepack`) builds the package and puts the published manifest in place for the pack, the
 * exports pointing into dist/; its postpack (`--postpack`) puts the workspace manifest back, except
 * under `npm publish`, which reads the manifest again after packing and sends it to the registry:
 * there the published manifest's postpublish (`--postpublish`) puts it back. The workspace manifest
 * is kept beside the build meanwhile, so a pack or publish that failed half-way is undone by the
 * next prepack.
 */
const WORKSPACE_MANIFEST_KEPT = 'workspace-package.json';

function restoreWorkspaceManifest(name: PackageName): void {
  const kept = join(distOf(name), WORKSPACE_MANIFEST_KEPT);
  if (!existsSync(kept)) return;
  copyFileSync(kept, join(ROOT, 'packages', PACKAGES[name].dir, 'package.json'));
  rmSync(kept);
}

async function prepack(name: PackageName): Promise<void> {
  restoreWorkspaceManifest(name);
  const dist = await buildPackage(name);
  const manifestPath = join(ROOT, 'packages', PACKAGES[name].dir, 'package.json');
  const built = JSON.parse(readFileSync(join(dist, 'package.json'), 'utf8')) as Record<string, unknown>;
  // The built manifest's paths are relative to dist/; the workspace folder holds dist/ and README.md.
  const intoDist = (value: unknown): unknown =>
    typeof value === 'string' ? (value.startsWith('./') && value !== './package.json' ? `./dist/${value.slice(2)}` : value)
    : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, intoDist(v)])) : value;
  const published = {
    ...built,
    exports: intoDist(built.exports),
    ...(built.main ? { main: intoDist(built.main) } : {}),
    types: intoDist(built.types),
    files: (built.files as string[]).filter((f) => f !== 'README.md').map((f) => `dist/${f}`),
    // Run by npm publish in this folder only; an install of the package runs nothing.
    scripts: { postpublish: `tsx ../../scripts/build-packages.ts --postpublish ${name}` },
  };
  copyFileSync(manifestPath, join(dist, WORKSPACE_MANIFEST_KEPT));
  writeFileSync(manifestPath, JSON.stringify(published, null, 2) + '\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pack = process.argv.find((a) => a === '--prepack' || a === '--postpack' || a === '--postpublish');
  const asked = process.argv.slice(2).filter((a) => a !== pack);
  if (pack) {
    if (asked.length !== 1 || !(asked[0]! in PACKAGES)) throw new Error(`${pack} takes one package: one of ${Object.keys(PACKAGES).join(', ')}`);
    if (pack === '--prepack') await prepack(asked[0] as PackageName);
    // npm publish sends the manifest it reads after packing: the workspace one is put back after it.
    else if (pack === '--postpublish' || process.env.npm_command !== 'publish') restoreWorkspaceManifest(asked[0] as PackageName);
    process.exit(0);
  }
  const unknown = asked.filter((n) => !(n in PACKAGES));
  if (unknown.length > 0) throw new Error(`unknown package ${unknown.join(', ')}: one of ${Object.keys(PACKAGES).join(', ')}`);
  for (const name of (asked.length ? asked : Object.keys(PACKAGES)) as PackageName[]) {
    const started = Date.now();
    const dist = await buildPackage(name);
    console.log(`${name} built into ${dist} in ${Date.now() - started} ms`);
  }
}
