/**
 * Whether an error means the database cannot be reached right now (restarting, stopped, the
 * network between us down), as opposed to a fault of the query or of the service. Such a request
 * may succeed if simply retried a little later, so the API answers it 503 service_unavailable with
 * Retry-After rather than 500, and the background loops wait and retry without counting it
 * against the job. Pure: it only reads the error's shape (node's socket errors, pg's messages,
 * PostgreSQL's SQLSTATE), following `cause` (drizzle wraps the driver's error) and the errors of
 * an AggregateError (a connection tried on several addresses).
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  const seen = new Set<unknown>();
  const visit = (e: unknown): boolean => {
    if (!e || typeof e !== 'object' || seen.has(e)) return false;
    seen.add(e);
    const { code, syscall, message, cause, errors } = e as { code?: unknown; syscall?: unknown; message?: unknown; cause?: unknown; errors?: unknown };
    if (typeof code === 'string' && (NETWORK_CODES.has(code) || SQLSTATES.has(code) || /^08[0-9A-Z]{3}$/.test(code))) return true;
    // A unix socket that is not there (the server stopped), not any missing file.
    if (code === 'ENOENT' && syscall === 'connect') return true;
    if (typeof message === 'string' && PG_MESSAGES.some((m) => message.startsWith(m))) return true;
    if (Array.isArray(errors) && errors.some(visit)) return true;
    return visit(cause);
  };
  return visit(err);
}

/** Node's errors of a socket that cannot connect or lost its peer. */
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * SQLSTATEs of a server going away or not taking connections (class 08, connection exception, is
 * matched by its prefix): admin_shutdown, crash_shutdown, cannot_connect_now, too_many_connections.
 */
const SQLSTATES = new Set(['57P01', '57P02', '57P03', '53300']);

/** node-postgres's own errors for a connection that ended, timed out or cannot be used. */
const PG_MESSAGES = [
  'Connection terminated',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error and is not queryable',
  'Client was closed and is not queryable',
];
