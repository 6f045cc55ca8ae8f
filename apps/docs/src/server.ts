import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { negotiate } from '@fastify/accept-negotiator';
import { ADDRESSES_NOTE, WRITTEN_ADDRESSES, addressEscapeFor, addressesNote, withAddresses, type SiteAddresses } from './addresses.ts';
import { DIST, etagOf, isBuilt, type Manifest } from './dist.ts';
import { siteFileFor } from './site-paths.ts';

export { addressesOf, type SiteAddresses } from './addresses.ts';

interface SiteFile {
  type: string;
  body: Buffer;
  gzip: Buffer | null;
  etag: string;
  immutable: boolean;
}

/** The built site held in memory: only the files its manifest lists can ever be served. */
export interface DocsSite {
  files: Map<string, SiteFile>;
}

const TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  css: 'text/css; charset=utf-8',
  js: 'text/javascript; charset=utf-8',
  json: 'application/json; charset=utf-8',
  txt: 'text/plain; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
};

/**
 * Reads the built site from `dir` (`npm run build`, which `npm start` runs first). A development
 * checkout whose build is missing or older than its sources builds it first (about a second),
 * with the build's development dependencies. With `addresses` (the service's configuration), the
 * pages that show addresses (the quick start, the OpenAPI document) show these, with a note
 * saying so; without, those the build was given.
 */
export async function loadDocsSite(dir = DIST, addresses?: SiteAddresses): Promise<DocsSite> {
  if (dir === DIST && !isBuilt(dir)) {
    const { buildDocsSite, writeDocsSite } = await import('./build.ts');
    writeDocsSite(await buildDocsSite(), dir);
  }
  try {
    return readSite(dir, addresses);
  } catch {
    // Another process swapped a fresh build in while this one read (see writeDocsSite): read it again.
    await new Promise((r) => setTimeout(r, 200));
    return readSite(dir, addresses);
  }
}

function readSite(dir: string, addresses: SiteAddresses | undefined): DocsSite {
  const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  const files = new Map<string, SiteFile>();
  for (const f of manifest.files) {
    const ext = f.path.slice(f.path.lastIndexOf('.') + 1);
    const file: SiteFile = {
      type: TYPES[ext] ?? 'application/octet-stream',
      body: readFileSync(join(dir, f.path)),
      gzip: f.gzip ? readFileSync(join(dir, `${f.path}.gz`)) : null,
      etag: f.etag,
      immutable: f.immutable,
    };
    files.set(f.path, f.addresses && addresses ? withServiceAddresses(file, f.path, manifest.addresses ?? WRITTEN_ADDRESSES, addresses) : file);
  }
  return { files };
}

/**
 * A built file rewritten once, at start, with the addresses of the service serving it (and its
 * note saying so): compressed again and given its own ETag, so caching and gzip work as for
 * every other file. A few files (the quick start, openapi.json): milliseconds.
 */
function withServiceAddresses(file: SiteFile, path: string, built: SiteAddresses, served: SiteAddresses): SiteFile {
  let text = withAddresses(file.body.toString('utf8'), served, built, addressEscapeFor(path));
  if (path.endsWith('.html')) text = text.replace(ADDRESSES_NOTE, addressesNote(served, 'served'));
  const body = Buffer.from(text);
  return { ...file, body, gzip: file.gzip ? gzipSync(body, { level: 9 }) : null, etag: etagOf(body) };
}

/** Pages: scripts and styles of this origin only, nothing fetched elsewhere, never framed. */
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
/** The API reference: Redoc (served from here) writes its styles at run time and runs its search worker from a blob. */
const REFERENCE_CSP = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; worker-src blob:; font-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/**
 * Serves the built documentation on the port of DOCS_URL: pages by their clean address
 * (`/guides/webhooks`, `/errors/<code>`: the target of every error's doc_url), hashed assets
 * cached for good, pages revalidated by ETag, gzip when accepted.
 */
export function createDocsServer(site: DocsSite): Server {
  return createServer((req, res) => {
    const common = { 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer' };
    const fail = (status: number, text: string, extra: Record<string, string> = {}) => {
      const notFound = status === 404 ? site.files.get('/404.html') : undefined;
      res.writeHead(status, { ...common, 'content-type': notFound ? notFound.type : 'text/plain; charset=utf-8', 'content-security-policy': CSP, 'cache-control': 'no-cache', ...extra });
      res.end(req.method === 'HEAD' ? undefined : (notFound?.body ?? text));
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return fail(405, 'Method not allowed', { allow: 'GET, HEAD' });
    let path: string;
    try {
      path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    } catch {
      return fail(400, 'Bad request');
    }
    const file = siteFileFor(path, (p) => site.files.has(p));
    const f = file ? site.files.get(file) : undefined;
    if (!file || !f) return fail(404, 'Not found');
    const headers: Record<string, string> = {
      ...common,
      'content-type': f.type,
      'cache-control': f.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      etag: f.etag,
      vary: 'accept-encoding',
    };
    if (f.type.startsWith('text/html')) headers['content-security-policy'] = file === '/reference.html' ? REFERENCE_CSP : CSP;
    if (req.headers['if-none-match'] === f.etag) {
      res.writeHead(304, headers);
      return res.end();
    }
    const gzip = f.gzip && negotiate(req.headers['accept-encoding'] ?? '', ['gzip']) === 'gzip';
    if (gzip) headers['content-encoding'] = 'gzip';
    const body = gzip ? f.gzip! : f.body;
    headers['content-length'] = String(body.length);
    res.writeHead(200, headers);
    res.end(req.method === 'HEAD' ? undefined : body);
  });
}
