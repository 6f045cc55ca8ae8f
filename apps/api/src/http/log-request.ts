import type { FastifyRequest } from 'fastify';

/**
 * How a request appears in the log: its method, its path and the names of its query parameters,
 * never their values (`external_ref` and `q` carry the client's customer identifiers), and the
 * peer's address.
 */
export function logRequest(req: FastifyRequest): Record<string, unknown> {
  return { method: req.method, url: redactQuery(req.url), remoteAddress: req.ip };
}

function redactQuery(url: string): string {
  const at = url.indexOf('?');
  if (at < 0) return url;
  const names = url
    .slice(at + 1)
    .split('&')
    .filter(Boolean)
    .map((pair) => `${pair.split('=')[0]}=…`);
  return `${url.slice(0, at)}?${names.join('&')}`;
}
