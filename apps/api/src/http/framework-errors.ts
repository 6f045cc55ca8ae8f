import type { Socket } from 'node:net';
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { newId, parserRefusalAnswer, parserRefusalCode } from '@idv/domain';
import { errorBody } from './api-error.ts';
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

/**
 * Fastify's `clientErrorHandler`: what Node's HTTP parser refuses never becomes a request, so it
 * is answered here, on the socket, in the spec's shape with a request id of its own.
 */
export function clientErrorHandler(docsUrl: string) {
  return function (this: { log: { debug(o: object, m: string): void } }, err: NodeJS.ErrnoException, socket: Socket): void {
    if (err.code === 'ECONNRESET' || socket.destroyed) return;
    const requestId = newId('req');
    this.log.debug({ err: { code: err.code }, requestId }, 'HTTP request refused by the parser');
    if (socket.writable) socket.write(parserRefusalAnswer(parserRefusalCode(err.code), requestId, docsUrl));
    socket.destroy();
  };
}
