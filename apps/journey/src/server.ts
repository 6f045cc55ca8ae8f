import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { JourneyAssets } from './build.ts';

export { buildJourneyAssets, loadJourneyAssets, writeJourneyAssets, type JourneyAssets } from './build.ts';

export interface JourneyServerOptions {
  assets: JourneyAssets;
  /** Where the journey's calls go (API_BASE_URL). */
  apiBaseUrl: string;
  /** The origins a client allows to frame its journey, read on every frame request (empty: none). */
  embeddingOrigins(clientId: string, environment: 'sandbox' | 'prod'): Promise<string[]>;
  /** The client's current logo when `sha256` names it (an older address finds nothing). */
  logo(clientId: string, environment: 'sandbox' | 'prod', sha256: string): Promise<{ type: string; data: Buffer } | null>;
  /** Offer the pseudo-locale to links that ask for it (JOURNEY_PSEUDO_LOCALE: layout tests, never production). */
  pseudoLocale?: boolean;
}

const FRAME = /^\/embed\/(cli_[0-9a-hjkmnp-tv-z]{26})\/(sandbox|prod)$/;
/** A handoff's short link (docs/journey.md#continuing-on-a-phone): the journey page, which opens the code. */
const HANDOFF_LINK = /^\/p\/[0-9A-Za-z-]{1,32}$/;
const LOGO = /^\/brand\/(cli_[0-9a-hjkmnp-tv-z]{26})\/(sandbox|prod)\/([0-9a-f]{64})$/;
const escapeAttr = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * Serves the journey on the port of JOURNEY_URL: `/` and `/p/<code>` (the journey, a handoff's
 * short link), `/embed` and `/embed/<client>/<environment>` (the framed journey, `frame-ancestors`
 * from the client's origins), the hashed assets, `/embed.js` (the integrator script) and the
 * client's logo under `/brand/…` by its hash, from this origin so the CSP stays `img-src 'self'`.
 */
export function createJourneyServer(options: JourneyServerOptions): Server {
  const { assets, apiBaseUrl } = options;
  const apiOrigin = new URL(apiBaseUrl).origin;

  const csp = (frameAncestors: string) =>
    [
      "default-src 'none'",
      // 'wasm-unsafe-eval' lets the face step compile tfjs's WebAssembly (served from 'self');
      // it allows no eval of JavaScript.
      "script-src 'self' 'wasm-unsafe-eval'",
      "style-src 'self'",
      "img-src 'self' blob: data:",
      "media-src 'self' blob: mediastream:",
      // 'self': the face step fetches its detector's weights and tfjs's WebAssembly from the journey's own origin.
      `connect-src 'self' ${apiOrigin}`,
      "base-uri 'none'",
      "form-action 'none'",
      `frame-ancestors ${frameAncestors}`,
    ].join('; ');

  const page = (mode: 'page' | 'embed', entry: string) => {
    const preload = mode === 'page' || entry === assets.app ? assets.appImports.map((p) => `<link rel="modulepreload" href="${p}">`).join('') : '';
    return (
      `<!doctype html><html lang="en" data-mode="${mode}"${options.pseudoLocale ? ' data-pseudo-locale="on"' : ''}><head><meta charset="utf-8">` +
      '<meta name="viewport" content="width=device-width,initial-scale=1,viewport-fit=cover">' +
      `<meta name="idv-api" content="${escapeAttr(apiBaseUrl)}"><meta name="referrer" content="no-referrer"><title></title>` +
      // The connection to the API opens while the scripts download (one round trip less before the first screen).
      `<link rel="preconnect" href="${escapeAttr(apiOrigin)}" crossorigin>` +
      `<link rel="stylesheet" href="${assets.css}">${preload}<script type="module" src="${entry}"></script>` +
      '</head><body><main id="app" aria-busy="true"></main></body></html>'
    );
  };
  const journeyPage = page('page', assets.app);
  const framedPage = page('embed', assets.app);
  const loaderPage = page('embed', assets.loader);

  const securityHeaders = (res: ServerResponse, frameAncestors: string) => {
    res.setHeader('content-security-policy', csp(frameAncestors));
    res.setHeader('x-content-type-options', 'nosniff');
    res.setHeader('referrer-policy', 'no-referrer');
    res.setHeader('permissions-policy', 'camera=(self), microphone=(), geolocation=(), payment=()');
    res.setHeader('cross-origin-resource-policy', 'same-origin');
    if (frameAncestors === "'none'") res.setHeader('x-frame-options', 'DENY');
  };

  const sendHtml = (req: IncomingMessage, res: ServerResponse, html: string, frameAncestors: string) => {
    securityHeaders(res, frameAncestors);
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    res.end(req.method === 'HEAD' ? undefined : html);
  };

  const sendAsset = (req: IncomingMessage, res: ServerResponse, path: string) => {
    const a = assets.files.get(path);
    if (!a) return notFound(res);
    const accept = String(req.headers['accept-encoding'] ?? '');
    const [body, encoding] = /\bbr\b/.test(accept) ? [a.br, 'br'] : /\bgzip\b/.test(accept) ? [a.gzip, 'gzip'] : [a.body, null];
    res.writeHead(200, {
      'content-type': a.type,
      'content-length': body.length,
      'cache-control': a.immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
      vary: 'accept-encoding',
      'x-content-type-options': 'nosniff',
      // The integrator script is loaded by other origins' pages; the app's own files are not.
      'cross-origin-resource-policy': a.immutable ? 'same-origin' : 'cross-origin',
      ...(encoding ? { 'content-encoding': encoding } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : body);
  };

  const notFound = (res: ServerResponse) => {
    res.writeHead(404, { 'content-type': 'text/plain; charset=utf-8', 'x-content-type-options': 'nosniff' });
    res.end('Not found');
  };

  return createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? '/').split('?')[0];
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
        return res.end('Method not allowed');
      }
      if (path === '/' || path === '/index.html' || HANDOFF_LINK.test(path)) return sendHtml(req, res, journeyPage, "'none'");
      // The loader shows nothing but a refusal and moves on: any page may frame it.
      if (path === '/embed' || path === '/embed/') return sendHtml(req, res, loaderPage, '*');
      const frame = FRAME.exec(path);
      if (frame) {
        const origins = await options.embeddingOrigins(frame[1], frame[2] as 'sandbox' | 'prod');
        return sendHtml(req, res, framedPage, origins.length ? origins.join(' ') : "'none'");
      }
      if (path.startsWith('/assets/') || path === '/embed.js') return sendAsset(req, res, path);
      const brand = LOGO.exec(path);
      if (brand) {
        const logo = await options.logo(brand[1], brand[2] as 'sandbox' | 'prod', brand[3]);
        if (!logo) return notFound(res);
        res.writeHead(200, {
          'content-type': logo.type,
          'content-length': logo.data.length,
          'cache-control': 'public, max-age=31536000, immutable',
          'x-content-type-options': 'nosniff',
          'cross-origin-resource-policy': 'same-origin',
          // Opened on its own, the image can run nothing (its type was checked from its bytes anyway).
          'content-security-policy': "default-src 'none'; sandbox",
        });
        return res.end(req.method === 'HEAD' ? undefined : logo.data);
      }
      if (path === '/favicon.ico') {
        res.writeHead(204, { 'cache-control': 'public, max-age=86400' });
        return res.end();
      }
      return notFound(res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('Internal error');
    });
  });
}
