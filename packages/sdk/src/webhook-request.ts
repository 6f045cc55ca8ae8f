import type { HeaderSource, VerifyOptions } from '@idv/webhooks';
import { verifyWebhook, type VerifiedWebhook } from './webhooks.ts';

/** A webhook request as a route receives it: Express's `req`, Fastify's `request`, or node:http's `IncomingMessage`. */
export interface WebhookRequest {
  headers: HeaderSource;
  /** The body as the framework kept it: it must be the raw bytes (Buffer) or text, not parsed JSON. */
  body?: unknown;
}

export interface VerifyRequestOptions extends VerifyOptions {
  /** Largest body read from an unread request stream (default 1 MiB); a longer one is refused. */
  maxBytes?: number;
}

const DEFAULT_MAX_BYTES = 1024 * 1024;

/**
 * Verifies a webhook request in an Express, Fastify or node:http route from its raw bytes: a Buffer
 * or string body (`express.raw({ type: 'application/json' })`, Fastify's `parseAs: 'buffer'`), or
 * an unread stream, read here up to `maxBytes`. A body already parsed into an object is refused
 * with a TypeError saying how to keep the bytes (the signature covers them, not the JSON).
 */
export async function verifyWebhookRequest(req: WebhookRequest, secret: string | readonly string[], options: VerifyRequestOptions = {}): Promise<VerifiedWebhook> {
  const raw = await rawBodyOf(req, options.maxBytes ?? DEFAULT_MAX_BYTES);
  return verifyWebhook(raw, req.headers, secret, options);
}

async function rawBodyOf(req: WebhookRequest, maxBytes: number): Promise<Buffer | string> {
  const { body } = req;
  if (typeof body === 'string' || Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  const stream = req as Partial<AsyncIterable<unknown>> & { readableEnded?: boolean };
  if (body === undefined && typeof stream[Symbol.asyncIterator] === 'function' && stream.readableEnded !== true) {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of stream as AsyncIterable<Buffer | string>) {
      const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
      size += bytes.length;
      if (size > maxBytes) throw new RangeError(`The webhook body is longer than ${maxBytes} bytes.`);
      chunks.push(bytes);
    }
    return Buffer.concat(chunks);
  }
  throw new TypeError(
    'The webhook body was parsed (or already read) before verification, but the signature covers the raw bytes: ' +
      "keep them on the webhook route (Express: express.raw({ type: 'application/json' }); Fastify: addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => done(null, body))).",
  );
}
