import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.ts';
import { jsonTextRefusal } from './forbidden-text.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body bytes exactly as received: request signatures are computed over them. */
    rawBody?: Buffer;
  }
}

/** Bytes that are not UTF-8 are refused, not replaced by U+FFFD (which would store other text than was sent). */
const utf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * JSON parser that keeps the raw bytes for signature checks, reports bad JSON in the spec's shape,
 * and refuses text no route accepts (see forbidden-text.ts) before any route sees the body.
 */
export function installJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/(.+\+)?json$/, { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    req.rawBody = body;
    if (body.length === 0) return done(null, undefined);
    let parsed: unknown;
    try {
      parsed = JSON.parse(utf8.decode(body));
    } catch {
      return done(new ApiError('invalid_json'), undefined);
    }
    const refusal = jsonTextRefusal(parsed);
    if (refusal) return done(refusal, undefined);
    done(null, parsed);
  });
}
