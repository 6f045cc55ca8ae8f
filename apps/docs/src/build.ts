import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import MiniSearch from 'minisearch';
import { loadConfigOrExit } from '@idv/config';
import { ADDRESS_VARIABLES, WRITTEN_ADDRESSES, addressEscapeFor, addressesNote, addressesOf, withAddresses, type SiteAddresses } from './addresses.ts';
import { DIST, ROOT, etagOf, type Manifest, type ManifestFile } from './dist.ts';
import { layout, type NavGroup } from './layout.ts';
import { renderMarkdown, type RenderContext } from './markdown.ts';
import { errorPages, homePage, notFoundPage, referencePage, searchPage, webhookEventsPage, type GeneratedPage } from './pages.ts';
import { extractSamples } from './samples.ts';
import { SEARCH_OPTIONS, type SearchDocument } from './search-options.ts';
import { markdownSources, markdownTitle, readSource } from './sources.ts';

const HERE = dirname(fileURLToPath(import.meta.url));

/** What the build writes: site path → bytes; hashed assets never change and are cached for good. */
export interface BuiltSite {
  /** `addresses`: the file shows the service's addresses (a page whose samples run, the OpenAPI document): the docs server rewrites it with its own. */
  files: Map<string, { body: Buffer; immutable: boolean; addresses?: boolean }>;
  /** The addresses the pages that show them were written with. */
  addresses: SiteAddresses;
  /** Site path of the API reference page and of the scripts it loads (for the benchmark). */
  reference: { page: string; scripts: string[] };
  searchIndex: string;
  /** Repository links of the guides that are not on the site (shown as text). */
  dropped: string[];
  /** Sample blocks that say neither exec nor no-exec (the CLI build fails on them; a service's start only serves the site). */
  unmarked: string[];
  ms: number;
}

const hashed = (name: string, ext: string, body: Buffer | string) => `/assets/${name}-${createHash('sha256').update(body).digest('hex').slice(0, 10)}.${ext}`;

async function bundle(entry: string, define: Record<string, string> = {}): Promise<Buffer> {
  const esbuild = await import('esbuild');
  const out = await esbuild.build({
    entryPoints: [join(HERE, 'web', entry)],
    bundle: true,
    minify: true,
    write: false,
    format: 'iife',
    target: ['es2020', 'safari15', 'chrome100'],
    legalComments: 'none',
    logLevel: 'silent',
    define,
  });
  return Buffer.from(out.outputFiles[0].contents);
}

/** The one address Redoc's bundle fetches from elsewhere: the attribution's logo, loaded from Redocly's CDN. */
const REDOC_CDN_LOGO = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';

/**
 * Redoc's standalone bundle with its attribution logo pointed at an empty `data:` address (the
 * image then fails to load and Redoc drops it): the site fetches nothing from anywhere else, and
 * its CSP would refuse the request anyway. A Redoc upgrade that moves the address fails the build
 * here rather than quietly adding a request (the browser test checks every request's origin).
 */
function localRedoc(bundle: string): string {
  if (!bundle.includes(REDOC_CDN_LOGO)) throw new Error(`redoc.standalone.js no longer holds ${REDOC_CDN_LOGO}: check what it fetches now`);
  return bundle.replaceAll(REDOC_CDN_LOGO, '"data:,"');
}

/**
 * Builds the whole site in memory from the repository: Markdown pages, generated pages, reference,
 * search index. The pages whose samples run, and the OpenAPI document, show `addresses` (a default
 * start's unless the build is given others, for publication).
 */
export async function buildDocsSite(root = ROOT, addresses: SiteAddresses = WRITTEN_ADDRESSES): Promise<BuiltSite> {
  const started = performance.now();
  const files: BuiltSite['files'] = new Map();
  const put = (path: string, body: Buffer | string, immutable = false, showsAddresses = false) => files.set(path, { body: Buffer.from(body), immutable, addresses: showsAddresses });

  // Assets first: every page names them by hash.
  const css = readFileSync(join(HERE, 'web', 'site.css'));
  const cssPath = hashed('site', 'css', css);
  put(cssPath, css, true);
  // The site's icon, linked from every page's head.
  put('/favicon.svg', readFileSync(join(HERE, 'web', 'favicon.svg')));
  const require = createRequire(import.meta.url);
  const redoc = localRedoc(readFileSync(join(dirname(require.resolve('redoc/package.json')), 'bundles', 'redoc.standalone.js'), 'utf8'));
  const redocPath = hashed('redoc.standalone', 'js', redoc);
  put(redocPath, redoc, true);
  const referenceJs = await bundle('reference.ts');
  const referenceJsPath = hashed('reference', 'js', referenceJs);
  put(referenceJsPath, referenceJs, true);
  const openapiText = withAddresses(readFileSync(join(root, 'openapi', 'openapi.json'), 'utf8'), addresses, WRITTEN_ADDRESSES, addressEscapeFor('.json'));
  put('/openapi.json', openapiText, false, true);

  // Markdown pages: titles first (the navigation lists them all), then each page.
  // A page whose samples run shows the addresses they run against.
  const sources = markdownSources(root).map((s) => {
    const written = readSource(root, s);
    const showsAddresses = extractSamples(written).steps.length > 0;
    const text = showsAddresses ? withAddresses(written, addresses) : written;
    return { ...s, text, showsAddresses, title: markdownTitle(text, basename(s.repoPath, '.md')) };
  });
  const pagesByRepoPath = new Map(sources.map((s) => [s.repoPath, s.url]));
  const start = sources.filter((s) => s.group === 'start');
  const guides = sources.filter((s) => s.group === 'guides').sort((a, b) => a.title.localeCompare(b.title));
  const nav: NavGroup[] = [
    { title: 'Start', items: [{ title: 'Home', url: '/' }, ...start.map((s) => ({ title: s.title, url: s.url })), { title: 'Search', url: '/search' }] },
    { title: 'Reference', items: [{ title: 'API reference', url: '/reference' }, { title: 'Webhook events', url: '/webhooks/events' }, { title: 'Errors', url: '/errors' }] },
    { title: 'Guides', items: guides.map((s) => ({ title: s.title, url: s.url })) },
  ];

  const searchDocs: SearchDocument[] = [];
  const index = (url: string, title: string, sections: GeneratedPage['sections']) => {
    for (const s of sections) {
      const text = s.text.replace(/\s+/g, ' ').trim();
      const id = s.anchor ? `${url}#${s.anchor}` : url;
      if (searchDocs.some((d) => d.id === id)) continue;
      searchDocs.push({ id, title: s.heading && s.anchor ? `${title} › ${s.heading}` : title, text, excerpt: text.length > 180 ? `${text.slice(0, 177)}…` : text });
    }
  };

  const dropped: string[] = [];
  const unmarked: string[] = [];
  const copied = new Map<string, string>();
  const generatedScripts: string[] = [];
  const pages: (GeneratedPage & { scripts?: string[]; showsAddresses?: boolean })[] = [];
  for (const s of sources) {
    const ctx: RenderContext = { root, repoPath: s.repoPath, pages: pagesByRepoPath, copied, dropped, unmarked };
    const rendered = renderMarkdown(s.text, ctx);
    const toc =
      rendered.toc.length >= 3
        ? `<nav class="toc" aria-label="On this page"><h2>On this page</h2><ul>${rendered.toc.map((h) => `<li><a href="#${h.id}">${h.text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</a></li>`).join('')}</ul></nav>`
        : '';
    // Where the page's addresses come from, then the table of contents, right after the title.
    const html = rendered.html.replace(/(<\/h1>\n)/, `$1${s.showsAddresses ? addressesNote(addresses, 'built') : ''}${toc}`);
    pages.push({ url: s.url, title: s.title, body: `${html}<p class="source">Source: <code>${s.repoPath}</code></p>`, description: '', sections: rendered.sections, showsAddresses: s.showsAddresses });
  }
  for (const [repoPath, url] of copied) put(url, readFileSync(join(root, repoPath)));

  const openapi = JSON.parse(openapiText);
  const reference = referencePage(openapi, [redocPath, referenceJsPath]);
  pages.push(
    homePage([
      { title: 'Start', items: [{ title: 'Quick start', url: '/quickstart', description: 'From nothing to an approved sandbox case and its verified webhook, in curl and TypeScript.' }, { title: 'Changelog', url: '/changelog', description: 'What landed, milestone by milestone.' }] },
      { title: 'Reference', items: [{ title: 'API reference', url: '/reference', description: 'Every route of the OpenAPI document.' }, { title: 'Webhook events', url: '/webhooks/events', description: 'Every event, with an example delivery.' }, { title: 'Errors', url: '/errors', description: 'Every error code and what to do.' }] },
      { title: 'Guides', items: guides.map((s) => ({ title: s.title, url: s.url })) },
    ]),
    reference,
    webhookEventsPage(),
    ...errorPages(),
    searchPage(),
  );
  const notFound = notFoundPage();
  generatedScripts.push(...reference.scripts!);

  for (const p of pages) index(p.url, p.title, p.sections);
  const mini = new MiniSearch<SearchDocument>(SEARCH_OPTIONS);
  mini.addAll(searchDocs);
  const indexText = JSON.stringify(mini);
  const indexPath = hashed('search-index', 'json', indexText);
  put(indexPath, indexText, true);
  const searchJs = await bundle('search.ts', { SEARCH_INDEX_URL: JSON.stringify(indexPath) });
  const searchJsPath = hashed('search', 'js', searchJs);
  put(searchJsPath, searchJs, true);

  for (const p of pages) {
    const file = p.url === '/' ? '/index.html' : `${p.url}.html`;
    put(file, layout({ title: p.title, url: p.url, body: p.body, nav, assets: { css: cssPath, search: searchJsPath }, description: p.description || undefined, scripts: p.scripts, wide: p.wide }), false, p.showsAddresses);
  }
  put('/404.html', layout({ title: notFound.title, url: notFound.url, body: notFound.body, nav, assets: { css: cssPath, search: searchJsPath } }));
  return { files, addresses, reference: { page: '/reference.html', scripts: [searchJsPath, ...generatedScripts] }, searchIndex: indexPath, dropped, unmarked, ms: performance.now() - started };
}

const COMPRESSIBLE = /\.(html|css|js|json|txt|svg)$/;

/**
 * Writes the site into `dir`, each compressible file with its gzip beside it, and manifest.json.
 * The files go to a folder of their own first, which then takes the place of `dir` in two
 * renames: processes started together on a stale build (tests) never read a half-written site.
 */
export function writeDocsSite(site: BuiltSite, dir = DIST): void {
  const staging = `${dir}.${process.pid}-${Date.now()}`;
  const manifest: ManifestFile[] = [];
  for (const [path, f] of site.files) {
    const target = join(staging, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, f.body);
    const gzip = COMPRESSIBLE.test(path) && f.body.length > 1024;
    if (gzip) writeFileSync(`${target}.gz`, gzipSync(f.body, { level: 9 }));
    manifest.push({ path, immutable: f.immutable, etag: etagOf(f.body), gzip, ...(f.addresses ? { addresses: true } : {}) });
  }
  writeFileSync(join(staging, 'manifest.json'), JSON.stringify({ addresses: site.addresses, files: manifest } satisfies Manifest, null, 1));
  const old = `${staging}.old`;
  if (existsSync(dir)) renameSync(dir, old);
  try {
    renameSync(staging, dir);
  } catch {
    // Another process put its build (of the same sources) in place between the two renames.
    rmSync(staging, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
}

/**
 * The addresses a build for publication shows: API_BASE_URL, JOURNEY_URL, CONSOLE_URL and
 * DOCS_URL (and PORT) of the environment, read and validated by the service's own loader (and
 * only these: a build needs no database nor key); a default start's when none is set.
 */
function addressesOfEnvironment(env: NodeJS.ProcessEnv): SiteAddresses {
  return addressesOf(loadConfigOrExit(Object.fromEntries(ADDRESS_VARIABLES.flatMap((name) => (env[name] ? [[name, env[name]]] : [])))));
}

// `tsx apps/docs/src/build.ts` (npm run docs:build) writes dist/.
if (process.argv[1] && basename(process.argv[1]) === 'build.ts' && fileURLToPath(import.meta.url) === process.argv[1]) {
  const site = await buildDocsSite(ROOT, addressesOfEnvironment(process.env));
  writeDocsSite(site);
  const bytes = [...site.files.values()].reduce((n, f) => n + f.body.length, 0);
  console.log(`built ${site.files.size} files (${(bytes / 1024).toFixed(0)} KiB) into ${DIST} in ${site.ms.toFixed(0)} ms; the quick start shows the API at ${site.addresses.api}`);
  for (const d of site.dropped) console.log(`  not on the site, shown as text: ${d}`);
  for (const u of site.unmarked) console.error(`  ${u}`);
  if (site.unmarked.length) process.exitCode = 1;
}
