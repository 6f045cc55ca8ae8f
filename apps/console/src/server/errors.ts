import type { FastifyReply, FastifyRequest } from 'fastify';
import { ERROR_CATALOGUE, type ErrorCode } from '@idv/domain';

/** The service's error shape, for what the console server answers itself. */
export function errorBody(req: FastifyRequest, docsUrl: string, code: ErrorCode, message?: string, field?: string) {
  const entry = ERROR_CATALOGUE[code];
  return {
    error: {
      type: entry.type,
      code,
      message: message ?? entry.title,
      doc_url: `${docsUrl}/errors/${code}`,
      request_id: req.id,
      ...(field ? { field } : {}),
    },
  };
}

export function sendError(req: FastifyRequest, reply: FastifyReply, docsUrl: string, code: ErrorCode, message?: string, field?: string): FastifyReply {
  return reply.code(ERROR_CATALOGUE[code].status).type('application/json; charset=utf-8').send(errorBody(req, docsUrl, code, message, field));
}
