import { errorEntry, type ErrorCode } from './error-catalogue.ts';

/**
 * The answer to what Node's HTTP parser refuses (a control character in a header, an unknown
 * method, headers over 16 KB, broken framing): no request exists yet, so the server writes these
 * bytes on the socket itself. The service and the console server both answer so, in the spec's
 * error shape with a request id of their own.
 */
export function parserRefusalCode(parserErrorCode: string | undefined): ErrorCode {
  if (parserErrorCode === 'HPE_HEADER_OVERFLOW') return 'headers_too_large';
  if (parserErrorCode === 'ERR_HTTP_REQUEST_TIMEOUT') return 'request_timeout';
  return 'bad_request';
}

const REASONS: Record<number, string> = { 400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large' };

/** The whole HTTP/1.1 answer (closing the connection), headers as the service sets them on every answer. */
export function parserRefusalAnswer(code: ErrorCode, requestId: string, docsUrl: string): string {
  const entry = errorEntry(code);
  const message =
    code === 'bad_request' ? 'The HTTP request is malformed (request line, method, header names or values, or framing).' : entry.title;
  const body = JSON.stringify({ error: { type: entry.type, code, message, doc_url: `${docsUrl}/errors/${code}`, request_id: requestId } });
  const headers = [
    'content-type: application/json; charset=utf-8',
    `content-length: ${new TextEncoder().encode(body).length}`,
    'connection: close',
    `x-request-id: ${requestId}`,
    'x-content-type-options: nosniff',
    'cache-control: no-store',
  ];
  return `HTTP/1.1 ${entry.status} ${REASONS[entry.status] ?? 'Error'}\r\n${headers.join('\r\n')}\r\n\r\n${body}`;
}
