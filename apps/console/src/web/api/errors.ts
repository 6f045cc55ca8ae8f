/** The service's (and the console server's) error shape, as the app handles it. */
export interface ErrorBody {
  error: { type: string; code: string; message: string; doc_url?: string; request_id?: string; field?: string };
  /** Added by the console server when the action waits for a re-authentication. */
  reauth?: { url: string };
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly requestId?: string,
    /** The offending field, when the service names one (a form shows the message beside it). */
    readonly field?: string,
  ) {
    super(message);
  }

  static from(status: number, body: unknown): ApiError {
    const e = (body as ErrorBody | undefined)?.error;
    if (e && typeof e.code === 'string') return new ApiError(status, e.code, e.message, e.request_id, e.field);
    return new ApiError(status, 'unexpected_response', `Unexpected answer (HTTP ${status}).`);
  }
}

/** Thrown while the page is on its way to the identity provider: nothing to show but that. */
export class ReauthNavigation extends Error {
  constructor() {
    super('reauth');
  }
}

export function isCode(error: unknown, ...codes: string[]): boolean {
  return error instanceof ApiError && codes.includes(error.code);
}
