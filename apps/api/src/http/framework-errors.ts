import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { newId } from '@idv/domain';
import { ApiError, errorBody } from './api-error.ts';
import { toApiError } from './error-handler.ts';

/** Headers of every answer of the service (the onSend hook sets them on routed requests). */
export function setCommonHeaders(reply: FastifyReply, requestId: string): void {
  reply.header('x-request-id', requestId);
  reply.header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
}

/**
 * Fastify's `frameworkErrors`: the router's own refusals, met before any route or hook runs (a
 * path parameter that is not valid percent-encoded UTF-8, or longer than the router accepts).
 * Without it Fastify answers them with a body of its own, outside the spec's error shape.
 */
export function frameworkErrors(docsUrl: string) {
  return (err: FastifyError, req: FastifyRequest, reply: FastifyReply): void => {
    const apiError = toApiError(err);
    // No hook runs for these requests: the common headers are set here.
    setCommonHeaders(reply, req.id);
    void reply.headers(apiError.headers).code(apiError.status).send(errorBody(apiError, req.id, docsUrl));
  };
}

/** The catalogue's code for an error of Node's HTTP parser. */
function parserError(err: NodeJS.ErrnoException): ApiError {
  if (err.code === 'HPE_HEADER_OVERFLOW') return new ApiError('headers_too_large');
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return new ApiError('request_timeout');
  return new ApiError('bad_request', 'The HTTP request is malformed (request line, method, header names or values, or framing).');
}

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses (a NUL or line break in a header
 * value, an unknown method, headers over 16 KB, broken framing) never becomes a request, so it is
 * answered here, on the socket, in the spec's shape with a request id of its own.
 */
export function clientErrorHandler(docsUrl: string) {
  return function (this: { log: { debug(o: object, m: string): void } }, err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const apiError = parserError(err);
    const requestId = newId('req');
    this.log.debug({ err: { code: err.code }, requestId }, 'HTTP request refused by the parser');
    if (socket.writable) {
      const body = JSON.stringify(errorBody(apiError, requestId, docsUrl));
      const headers = {
        'content-type': 'application/json; charset=utf-8',
        'content-length': String(Buffer.byteLength(body)),
        connection: 'close',
        // As setCommonHeaders does for routed requests.
        'x-request-id': requestId,
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
      };
      const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join('');
      socket.write(`HTTP/1.1 ${apiError.status} ${STATUS_CODES[apiError.status]}\r\n${head}\r\n${body}`);
    }
    socket.destroy();
  };
}
