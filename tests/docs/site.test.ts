import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { Parser } from 'htmlparser2';
import { loadConfig } from '@idv/config';
import { createDocsServer, loadDocsSite } from '@idv/docs';
import { buildDocsSite } from '@idv/docs/build';
import { ERROR_CATALOGUE, WEBHOOK_EVENT_CATALOGUE } from '@idv/domain';
import { WRITTEN_ADDRESSES, addressesOf } from '../../apps/docs/src/addresses.ts';
import { siteFileFor, urlOfFile } from '../../apps/docs/src/site-paths.ts';
import { serveBuiltDocs, type ServedDocs } from '../helpers/docs-site.ts';
import { ROOT } from '../helpers/processes.ts';

/**
 * The built site as a reader and a crawler see it: every internal link and anchor of every page
 * resolves (htmlparser2 over the built files), the search index points at real sections, and the
 * server answers as it must (types, CSP, caching, compression, refusals). Touches no database.
 */

let docs: ServedDocs;
before(async () => {
  docs = await serveBuiltDocs();
});
after(async () => {
  await docs?.close();
});

interface ParsedPage {
  ids: Set<string>;
  links: { attr: string; value: string }[];
}

function parse(html: string): ParsedPage {
  const page: ParsedPage = { ids: new Set(), links: [] };
  const parser = new Parser({
    onopentag(name, attrs) {
      if (attrs.id) page.ids.add(attrs.id);
      if (name === 'a' && attrs.name) page.ids.add(attrs.name);
      if ((name === 'a' || name === 'link') && attrs.href !== undefined) page.links.push({ attr: `<${name} href>`, value: attrs.href });
      if ((name === 'script' || name === 'img' || name === 'iframe') && attrs.src !== undefined) page.links.push({ attr: `<${name} src>`, value: attrs.src });
      if (name === 'form' && attrs.action !== undefined) page.links.push({ attr: '<form action>', value: attrs.action });
    },
  });
  parser.write(html);
  parser.end();
  return page;
}

test('every internal link and anchor of every built page resolves', () => {
  const has = (p: string) => docs.site.files.has(p);
  const pages = new Map<string, ParsedPage>();
  for (const [file, f] of docs.site.files) if (file.endsWith('.html')) pages.set(file, parse(f.body.toString('utf8')));
  assert.ok(pages.size > 100, `${pages.size} pages`);
  const broken: string[] = [];
  let checked = 0;
  for (const [file, page] of pages) {
    const base = new URL(urlOfFile(file), 'http://site.test');
    for (const { attr, value } of page.links) {
      const target = new URL(value, base);
      if (target.origin !== 'http://site.test') continue;
      checked++;
      const targetFile = siteFileFor(decodeURIComponent(target.pathname), has);
      if (!targetFile) {
        broken.push(`${file}: ${attr} ${value} (no such file)`);
        continue;
      }
      const id = decodeURIComponent(target.hash.slice(1));
      if (id && !pages.get(targetFile)?.ids.has(id)) broken.push(`${file}: ${attr} ${value} (no id "${id}" in ${targetFile})`);
    }
  }
  assert.deepEqual(broken, []);
  assert.ok(checked > 2000, `${checked} links checked`);
});

test('every entry of the search index points at a page and a heading that exist (operations at an operation of the OpenAPI document)', () => {
  const indexFile = [...docs.site.files.keys()].find((p) => /^\/assets\/search-index-[0-9a-f]+\.json$/.test(p));
  assert.ok(indexFile, 'the search index is built');
  const index = JSON.parse(docs.site.files.get(indexFile)!.body.toString('utf8')) as { documentIds: Record<string, string> };
  const ids = Object.values(index.documentIds);
  assert.ok(ids.length > 300, `${ids.length} sections indexed`);
  const openapi = JSON.parse(readFileSync(join(ROOT, 'openapi', 'openapi.json'), 'utf8')) as { paths: Record<string, Record<string, { operationId?: string }>> };
  const operations = new Set(Object.values(openapi.paths).flatMap((item) => Object.values(item).map((op) => op.operationId)));
  const bad: string[] = [];
  for (const id of ids) {
    const url = new URL(id, 'http://site.test');
    const file = siteFileFor(url.pathname, (p) => docs.site.files.has(p));
    const hash = decodeURIComponent(url.hash.slice(1));
    if (!file) bad.push(`${id}: no page`);
    else if (hash.startsWith('operation/')) {
      if (!operations.has(hash.slice('operation/'.length))) bad.push(`${id}: no such operation`);
    } else if (hash && !parse(docs.site.files.get(file)!.body.toString('utf8')).ids.has(hash)) bad.push(`${id}: no such heading`);
  }
  assert.deepEqual(bad, []);
  // Every guide, every error, every event and every operation can be found.
  assert.ok(ids.includes('/quickstart'));
  for (const code of Object.keys(ERROR_CATALOGUE)) assert.ok(ids.includes(`/errors/${code}`), code);
  for (const e of WEBHOOK_EVENT_CATALOGUE) assert.ok(ids.some((id) => id.startsWith('/webhooks/events#') && id.endsWith(e.type.replace('.', ''))), e.type);
  for (const op of operations) if (op) assert.ok(ids.some((id) => id === `/reference#operation/${op}`), op);
});

test('every error code has its page at the path of its doc_url, with its status and remedy', async () => {
  for (const [code, entry] of Object.entries(ERROR_CATALOGUE)) {
    const res = await fetch(`${docs.url}/errors/${code}`);
    assert.equal(res.status, 200, code);
    const html = await res.text();
    assert.ok(html.includes(`<code>${code}</code>`), code);
    assert.ok(html.includes(`<strong>${entry.status}</strong>`), code);
  }
  assert.equal((await fetch(`${docs.url}/errors/no_such_code`)).status, 404);
});

test('the server: content types, CSP, caching, gzip, revalidation, and only the built files', async () => {
  const home = await fetch(`${docs.url}/`);
  assert.equal(home.status, 200);
  assert.equal(home.headers.get('content-type'), 'text/html; charset=utf-8');
  assert.equal(home.headers.get('cache-control'), 'no-cache');
  assert.equal(home.headers.get('x-content-type-options'), 'nosniff');
  const csp = home.headers.get('content-security-policy') ?? '';
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.doesNotMatch(csp, /unsafe/);
  const html = await home.text();
  assert.ok(!/<script>|<script [^>]*>[^<]/.test(html) && !/ on[a-z]+="/.test(html), 'no inline script or handler');

  const reference = await fetch(`${docs.url}/reference`);
  assert.equal(reference.status, 200);
  assert.match(reference.headers.get('content-security-policy') ?? '', /style-src 'self' 'unsafe-inline'; .*worker-src blob:/);
  assert.doesNotMatch(reference.headers.get('content-security-policy') ?? '', /script-src[^;]*unsafe/);

  const guide = await fetch(`${docs.url}/guides/webhooks/`);
  assert.equal(guide.status, 200, 'a trailing slash names the same page');
  const etag = guide.headers.get('etag');
  assert.ok(etag);
  assert.equal((await fetch(`${docs.url}/guides/webhooks`, { headers: { 'if-none-match': etag } })).status, 304);

  const css = [...docs.site.files.keys()].find((p) => p.endsWith('.css'))!;
  const asset = await fetch(`${docs.url}${css}`, { headers: { 'accept-encoding': 'gzip' } });
  assert.equal(asset.headers.get('content-type'), 'text/css; charset=utf-8');
  assert.equal(asset.headers.get('cache-control'), 'public, max-age=31536000, immutable');
  assert.equal(asset.headers.get('content-encoding'), 'gzip');
  assert.equal(await asset.text(), docs.site.files.get(css)!.body.toString('utf8'), 'decompressed, the same bytes');
  const plain = await fetch(`${docs.url}${css}`, { headers: { 'accept-encoding': 'identity' } });
  assert.equal(plain.headers.get('content-encoding'), null);
  const openapi = await fetch(`${docs.url}/openapi.json`);
  assert.equal(openapi.headers.get('content-type'), 'application/json; charset=utf-8');

  // Nothing outside the built files, however the path is written.
  for (const path of ['/../package.json', '/%2e%2e/package.json', '/guides/..%2f..%2fpackage.json', '/manifest.json', '/index.html.gz', '/guides/webhooks.md', '/%00', '/errors/%2fetc%2fpasswd', '//etc/passwd']) {
    const res = await fetch(`${docs.url}${path}`);
    assert.ok(res.status === 404 || res.status === 400, `${path}: ${res.status}`);
  }
  const missing = await fetch(`${docs.url}/no/such/page`);
  assert.equal(missing.status, 404);
  assert.match(await missing.text(), /Page not found/);
  const post = await fetch(`${docs.url}/`, { method: 'POST' });
  assert.equal(post.status, 405);
  assert.equal(post.headers.get('allow'), 'GET, HEAD');
});

test('the site is built well under a minute, and every guide of docs/ is on it with its headings anchored', () => {
  assert.ok(docs.buildMs < 60_000, `${docs.buildMs} ms`);
  assert.deepEqual(docs.unmarked, [], 'every shell and script block says exec or no-exec');
  const guide = docs.site.files.get('/guides/webhooks.html')!.body.toString('utf8');
  assert.match(guide, /<h2 id="the-delivery-request" tabindex="-1"><a class="header-anchor" href="#the-delivery-request">/);
  for (const name of ['authentication', 'sandbox', 'journey', 'docs-site', 'benchmarks']) assert.ok(docs.site.files.has(`/guides/${name}.html`), name);
});

test('the pages are written with the addresses of a default start (the configuration\'s defaults)', () => {
  assert.deepEqual(WRITTEN_ADDRESSES, addressesOf(loadConfig({})));
});

test('served with the addresses of a service on other ports, the quick start and openapi.json show them (ETag and gzip of the rewritten bytes); a guide stating the defaults keeps them', async () => {
  const served = { api: 'http://127.0.0.1:18180', journey: 'http://127.0.0.1:18181', console: 'http://127.0.0.1:18182', docs: 'https://docs.example.com' };
  const site = await loadDocsSite(docs.dir, served);
  const server = createDocsServer(site);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const res = await fetch(`${url}/quickstart`, { headers: { 'accept-encoding': 'gzip' } });
    const html = await res.text();
    assert.equal(res.headers.get('content-encoding'), 'gzip');
    assert.equal(html, site.files.get('/quickstart.html')!.body.toString('utf8'), 'the gzip is of the rewritten page');
    assert.equal(gunzipSync(site.files.get('/quickstart.html')!.gzip!).toString('utf8'), html);
    assert.match(html, /curl -fsS http:\/\/127\.0\.0\.1:18180\/v1\/cases/);
    assert.match(html, /baseUrl: &#39;http:\/\/127\.0\.0\.1:18180&#39;/);
    assert.match(html, /http:\/\/127\.0\.0\.1:18181\/embed\.js/);
    assert.doesNotMatch(html, /localhost:808\d/);
    assert.match(html, /<p class="addresses-note" id="addresses">The addresses on this page, the API at <code>http:\/\/127\.0\.0\.1:18180<\/code>.*are those of the service serving this page/);
    const etag = res.headers.get('etag')!;
    assert.notEqual(etag, docs.site.files.get('/quickstart.html')!.etag, 'another page, another validator');
    assert.equal((await fetch(`${url}/quickstart`, { headers: { 'if-none-match': etag } })).status, 304);
    const openapi = (await (await fetch(`${url}/openapi.json`)).json()) as { servers: { variables: { base_url: { default: string } } }[] };
    assert.equal(openapi.servers[0].variables.base_url.default, served.api);
    // The configuration guide states the defaults: they are not the service's addresses.
    const configuration = await (await fetch(`${url}/guides/configuration`)).text();
    assert.match(configuration, /http:\/\/localhost:8081/);
    assert.equal(site.files.get('/guides/configuration.html')!.etag, docs.site.files.get('/guides/configuration.html')!.etag);
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('a build for publication shows the addresses it was given and says where they come from', async () => {
  const published = { api: 'https://api.example.com', journey: 'https://verify.example.com', console: 'https://console.example.com', docs: 'https://docs.example.com' };
  const built = await buildDocsSite(ROOT, published);
  const html = built.files.get('/quickstart.html')!.body.toString('utf8');
  assert.match(html, /curl -fsS https:\/\/api\.example\.com\/v1\/cases/);
  assert.doesNotMatch(html, /localhost:808\d/);
  assert.match(html, /are those this site was built with: <code>API_BASE_URL<\/code>, <code>JOURNEY_URL<\/code> and <code>DOCS_URL<\/code> as set when <code>npm run docs:build<\/code> ran/);
  assert.deepEqual(built.addresses, published);
  assert.match(built.files.get('/openapi.json')!.body.toString('utf8'), /"default": "https:\/\/api\.example\.com"/);
});

test('the site has an icon: served from the build with its type and validator, linked from every page', async () => {
  const res = await fetch(`${docs.url}/favicon.svg`);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get('content-type'), 'image/svg+xml');
  assert.equal(res.headers.get('cache-control'), 'no-cache');
  assert.ok(res.headers.get('etag'));
  assert.match(await res.text(), /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  const pages = [...docs.site.files.entries()].filter(([file]) => file.endsWith('.html'));
  const without = pages.filter(([, f]) => !f.body.toString('utf8').includes('<link rel="icon" href="/favicon.svg" type="image/svg+xml">')).map(([file]) => file);
  assert.deepEqual(without, []);
});

test("the reference's operations have a short name and their sentence as description, under tags declared in the integrator's order", () => {
  const openapi = JSON.parse(docs.site.files.get('/openapi.json')!.body.toString('utf8')) as {
    tags: { name: string; 'x-displayName': string; description: string }[];
    paths: Record<string, Record<string, { operationId: string; summary?: string; description?: string; tags?: string[] }>>;
  };
  const declared = openapi.tags.map((t) => t.name);
  assert.deepEqual(declared.slice(0, 3), ['cases', 'sessions', 'webhooks'], 'cases, then journey links, then webhooks');
  assert.deepEqual(
    declared.slice(-5),
    ['journey', 'wallet-protocol', 'reviews', 'operators', 'support-access'],
    "the hosted journey's routes and the identity wallet's, then the console's, last",
  );
  for (const t of openapi.tags) assert.ok(t['x-displayName'] && t.description.length > 20, t.name);
  const bad: string[] = [];
  for (const item of Object.values(openapi.paths)) {
    for (const op of Object.values(item)) {
      if (!op.summary || op.summary.length > 40 || /[;:]/.test(op.summary)) bad.push(`${op.operationId}: summary "${op.summary}"`);
      if (!op.description || op.description.length <= (op.summary ?? '').length) bad.push(`${op.operationId}: no description`);
      for (const tag of op.tags ?? []) if (!declared.includes(tag)) bad.push(`${op.operationId}: tag ${tag} not declared`);
    }
  }
  assert.deepEqual(bad, []);
});
