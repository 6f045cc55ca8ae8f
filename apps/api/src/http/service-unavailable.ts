import { isDatabaseUnavailable } from '@idv/db';
import { ApiError } from './api-error.ts';

/**
 * Seconds a client is asked to wait when the database cannot be reached: a restart of PostgreSQL
 * takes a second or two; a longer outage is answered the same way again at the retry.
 */
const DATABASE_RETRY_AFTER_S = 2;

/** 503 service_unavailable with Retry-After: the database is restarting or unreachable. */
function serviceUnavailable(): ApiError {
  return new ApiError('service_unavailable', undefined, undefined, { 'retry-after': String(DATABASE_RETRY_AFTER_S) });
}

/**
 * The 503 for an error of an unreachable database, or of a full disk under DATA_DIR (the blob
 * store writes to a temporary file then renames it, so nothing half-written is kept), else null.
 */
export function unavailableOrNull(err: unknown): ApiError | null {
  return isDatabaseUnavailable(err) || isStorageFull(err) ? serviceUnavailable() : null;
}

function isStorageFull(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
