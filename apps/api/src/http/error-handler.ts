import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError, errorBody } from './api-error.ts';
import { unavailableOrNull } from './service-unavailable.ts';

interface AjvIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

/** Dotted field name of a schema error: `/declared/birth_date` → `declared.birth_date`. */
function fieldOf(issue: AjvIssue): string | undefined {
  const parts = issue.instancePath.split('/').filter(Boolean);
  if (issue.keyword === 'required') parts.push(String(issue.params.missingProperty));
  if (issue.keyword === 'additionalProperties') parts.push(String(issue.params.additionalProperty));
  return parts.length ? parts.join('.') : undefined;
}

function fromValidation(issues: AjvIssue[], context: string | undefined): ApiError {
  const issue = issues[0];
  const field = fieldOf(issue);
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : 'field';
  switch (issue.keyword) {
    case 'required':
      return new ApiError('parameter_missing', `The ${where} ${field} is required.`, field);
    case 'additionalProperties':
      return new ApiError('parameter_unknown', `The ${where} ${field} is not accepted by this route.`, field);
    default:
      return new ApiError(
        'parameter_invalid',
        field ? `The ${where} ${field} ${issue.message ?? 'is invalid'}.` : `The request ${issue.message ?? 'is invalid'}.`,
        field,
      );
  }
}

/** The router refuses longer path parameters (no identifier of the service comes near it). */
export const MAX_PATH_PARAM_LENGTH = 100;

/**
 * Maps anything thrown while handling a request to an ApiError; a database that cannot be reached
 * (whatever route, hook or service ran into it) becomes 503 service_unavailable with Retry-After;
 * other unknown errors become internal_error.
 */
export function toApiError(err: FastifyError | ApiError | Error): ApiError {
  if (err instanceof ApiError) return err;
  const unavailable = unavailableOrNull(err);
  if (unavailable) return unavailable;
  const fe = err as FastifyError;
  if (fe.validation) return fromValidation(fe.validation as AjvIssue[], fe.validationContext);
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError('payload_too_large', fe.message);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError('unsupported_media_type', 'Send the body as application/json.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError('invalid_json', 'The body is empty but the content type says JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError('bad_request', 'Content-Length does not match the body.');
    // The router's own refusals (see framework-errors.ts): a malformed path parameter, like any other.
    case 'FST_ERR_BAD_URL':
      return new ApiError('parameter_invalid', 'A path parameter is not valid percent-encoded UTF-8.');
    case 'FST_ERR_MAX_PARAM_LENGTH':
      return new ApiError('parameter_invalid', `A path parameter is longer than ${MAX_PATH_PARAM_LENGTH} characters.`);
  }
  if (fe.statusCode === 413) return new ApiError('payload_too_large', fe.message);
  if (fe.statusCode === 415) return new ApiError('unsupported_media_type', fe.message);
  if (fe.statusCode && fe.statusCode >= 400 && fe.statusCode < 500) return new ApiError('bad_request', fe.message);
  return new ApiError('internal_error');
}

export function installErrorHandling(app: FastifyInstance, docsUrl: string): void {
  app.setErrorHandler(async (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => {
    const apiError = toApiError(err);
    // An outage is one cause for many requests: a warning with the driver's code, not a stack each.
    if (apiError.code === 'service_unavailable') req.log.warn({ err: { code: (err as { code?: string }).code ?? (err.cause as { code?: string } | undefined)?.code } }, 'database or storage unavailable');
    else if (apiError.status >= 500) req.log.error({ err }, 'request failed');
    return reply.headers(apiError.headers).code(apiError.status).send(errorBody(apiError, req.id, docsUrl));
  });
}
