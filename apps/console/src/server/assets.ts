import negotiate from '@fastify/accept-negotiator';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';

type Encoding = 'br' | 'gzip';

/**
 * The web app's files, as `loadConsoleAssets()` of apps/console/src/build.ts gives them (the
 * contract's ConsoleAssets): url path → bytes, type, whether the name is content-hashed, and the
 * same bytes compressed at build (brotli, gzip) where that makes them smaller.
 */
export type ConsoleAssets = Map<string, { body: Buffer; contentType: string; immutable: boolean; encoded?: Partial<Record<Encoding, Buffer>> }>;

/** Paths the console server answers itself; everything else that is a GET is the app. */
const SERVER_PATHS = /^\/(auth|api)(\/|$)/;
/** A last segment with an extension names a file (/favicon.ico, /robots.txt), never an app route. */
const FILE_PATH = /\.[A-Za-z0-9]+$/;
/** Preferred first when the browser accepts both at the same weight. */
const ENCODINGS: Encoding[] = ['br', 'gzip'];

/**
 * Serves the app: a known asset by its path (hashed names cached for a year), and index.html for
 * every other GET that is not a file (the app's routes, `/signed-out`, `/invitation`…), no-store.
 * Each answer is sent in the best encoding the request's Accept-Encoding allows, with
 * `Vary: Accept-Encoding` so that caches keep them apart.
 */
export function installAssets(app: FastifyInstance, assets: ConsoleAssets, notFound: (req: FastifyRequest, reply: FastifyReply) => unknown): void {
  app.setNotFoundHandler((req, reply) => {
    const path = new URL(req.url, 'http://console').pathname;
    if ((req.method !== 'GET' && req.method !== 'HEAD') || SERVER_PATHS.test(path)) return notFound(req, reply);
    const asset = assets.get(path) ?? (path.startsWith('/assets/') || FILE_PATH.test(path) ? undefined : assets.get('/index.html'));
    if (!asset) return notFound(req, reply);
    reply.header('cache-control', asset.immutable ? 'public, max-age=31536000, immutable' : 'no-store');
    reply.header('vary', 'Accept-Encoding');
    const offered = ENCODINGS.filter((e) => asset.encoded?.[e]);
    const accept = req.headers['accept-encoding'];
    const encoding = offered.length && typeof accept === 'string' ? (negotiate(accept, offered) as Encoding | null) : null;
    if (encoding) reply.header('content-encoding', encoding);
    return reply
      .code(200)
      .type(asset.contentType)
      .send(encoding ? asset.encoded![encoding] : asset.body);
  });
}
