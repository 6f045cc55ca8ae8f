import type { FastifyInstance } from 'fastify';
import { ApiError } from './api-error.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The body bytes exactly as received: request signatures are computed over them. */
    rawBody?: Buffer;
  }
}

/** JSON parser that keeps the raw bytes for signature checks and reports bad JSON in the spec's shape. */
export function installJsonBody(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(/^application\/(.+\+)?json$/, { parseAs: 'buffer' }, (req, body: Buffer, done) => {
    req.rawBody = body;
    if (body.length === 0) return done(null, undefined);
    try {
      done(null, JSON.parse(body.toString('utf8')));
    } catch {
      done(new ApiError('invalid_json'), undefined);
    }
  });
}
