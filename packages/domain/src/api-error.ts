import { errorEntry, type ErrorCode } from './error-catalogue.ts';

/**
 * An error the API reports to the caller in the spec's shape; status and type come from the
 * catalogue. It lives beside the catalogue so that the packages serving the API (the sealed case
 * data, for one) can refuse with a catalogued code; apps/api turns it into a response.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly type: string;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly field?: string,
    readonly headers: Record<string, string> = {},
  ) {
    const entry = errorEntry(code);
    super(message ?? entry.title);
    this.status = entry.status;
    this.type = entry.type;
  }
}
