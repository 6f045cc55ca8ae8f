/**
 * How an address of the site maps to a built file, written once for the server and the link
 * checker: `/` is `/index.html`, `/guides/webhooks` is `/guides/webhooks.html`, `/errors` is
 * `/errors.html`; a trailing slash is dropped. Only names made of safe characters are considered,
 * so `..`, encoded separators and control characters never reach a lookup.
 */
const SAFE_PATH = /^(\/[A-Za-z0-9_][A-Za-z0-9_.-]*)*\/?$/;

export function siteFileFor(urlPath: string, exists: (file: string) => boolean): string | null {
  if (!SAFE_PATH.test(urlPath) || urlPath.includes('..')) return null;
  const path = urlPath.replace(/\/+$/, '') || '/';
  const candidates = path === '/' ? ['/index.html'] : [path, `${path}.html`, `${path}/index.html`];
  return candidates.find((c) => /\.[a-z0-9]+$/.test(c) && exists(c)) ?? null;
}

/** The address of a built HTML file (the inverse of siteFileFor for pages). */
export function urlOfFile(file: string): string {
  if (file === '/index.html') return '/';
  return file.replace(/\/index\.html$/, '').replace(/\.html$/, '');
}
