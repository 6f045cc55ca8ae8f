import type { ApiError } from '@idv/domain';

/** The error class is defined beside the catalogue (packages/domain) so packages can throw it; routes import it from here. */
export { ApiError } from '@idv/domain';

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
