import { errorEntry, type ErrorCode } from '@idv/domain';

/** An error the API reports to the caller in the spec's shape; status and type come from the catalogue. */
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

export interface ErrorBody {
  error: { type: string; code: string; message: string; doc_url: string; request_id: string; field?: string };
}

export function errorBody(err: ApiError, requestId: string, docsUrl: string): ErrorBody {
  return {
    error: {
      type: err.type,
      code: err.code,
      message: err.message,
      doc_url: `${docsUrl}/errors/${err.code}`,
      request_id: requestId,
      ...(err.field ? { field: err.field } : {}),
    },
  };
}
