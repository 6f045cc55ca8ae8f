import { Type, type TSchema } from '@sinclair/typebox';
import { ERROR_CATALOGUE, type ErrorCode } from '@idv/domain';

/** Shared schemas carry an $id: they become named components of the OpenAPI document. */
export const ErrorSchema = Type.Object(
  {
    error: Type.Object({
      type: Type.String({ examples: ['validation_error'] }),
      code: Type.String({ description: 'Stable; see the errors pages of the documentation', examples: ['parameter_invalid'] }),
      message: Type.String({ description: 'For people; may change' }),
      doc_url: Type.String({ format: 'uri' }),
      request_id: Type.String({ pattern: '^req_' }),
      field: Type.Optional(Type.String({ description: 'The offending field, when one is' })),
    }),
  },
  { $id: 'Error', description: 'Every error on every route has this shape' },
);

/** Error responses of a route, grouped by status, each listing the codes it may carry. */
export function errorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const all: ErrorCode[] = [...codes, 'api_key_missing', 'api_key_invalid', 'api_key_revoked', 'internal_error'];
  return publicErrorResponses(...all);
}

/**
 * Refusals any route may answer, whatever its parameters: hostile text (http/forbidden-text.ts),
 * 429 rate_limited (its Retry-After and RateLimit headers: the error's documentation page
 * and docs/rate-limits.md) and 503 service_unavailable while the database cannot be reached (with
 * Retry-After: docs/faults.md).
 */
const ANY_ROUTE: ErrorCode[] = ['parameter_invalid', 'bad_request', 'rate_limited', 'service_unavailable'];

/** As errorResponses, for routes that need no key (the journey's, limited per session). */
export function publicErrorResponses(...codes: ErrorCode[]): Record<number, TSchema> {
  const byStatus = new Map<number, string[]>();
  for (const code of new Set([...codes, ...ANY_ROUTE])) {
    const { status } = ERROR_CATALOGUE[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  return Object.fromEntries(
    [...byStatus].map(([status, list]) => [status, Type.Ref(ErrorSchema, { description: `Error codes: ${list.join(', ')}` })]),
  );
}

export const VALIDATION_ERRORS: ErrorCode[] = ['parameter_missing', 'parameter_invalid', 'parameter_unknown'];
export const BODY_ERRORS: ErrorCode[] = [...VALIDATION_ERRORS, 'invalid_json', 'payload_too_large', 'unsupported_media_type'];
export const SIGNED_ERRORS: ErrorCode[] = [
  ...BODY_ERRORS,
  'signature_missing',
  'signature_invalid',
  'signature_expired',
  'signature_replayed',
  'idempotency_key_missing',
  'idempotency_key_invalid',
  'idempotency_key_reused',
  'idempotency_request_in_progress',
];

export const Timestamp = Type.String({ format: 'date-time' });

/** Paginated envelope: the id of the last item is the cursor of the next page. */
export function ListOf<T extends TSchema>(item: T, id: string) {
  return Type.Object(
    {
      object: Type.Literal('list'),
      data: Type.Array(item),
      has_more: Type.Boolean(),
      next_cursor: Type.Union([Type.String(), Type.Null()]),
    },
    { $id: id },
  );
}

export const SignedHeaders = Type.Object({
  'idempotency-key': Type.String({ description: 'Unique per intention (UUID recommended); reuse it to retry' }),
  'x-service-timestamp': Type.String({ description: 'Unix time in seconds' }),
  'x-service-signature': Type.String({ description: 'v2=<hex HMAC-SHA256> over timestamp.METHOD.target.body' }),
});

/**
 * A signed creation also open to the console acting for an operator (docs/operators.md, "The
 * client's settings through the console"): the console sends no signature, so the signature
 * headers are optional in the schema; an integration key without them is still refused
 * (signature_missing, checked before the schema).
 */
export const SignedOrConsoleHeaders = Type.Object({
  'idempotency-key': Type.String({ description: 'Unique per intention (UUID recommended); reuse it to retry' }),
  'x-service-timestamp': Type.Optional(Type.String({ description: 'Unix time in seconds; required with an integration key' })),
  'x-service-signature': Type.Optional(Type.String({ description: 'v2=<hex HMAC-SHA256> over timestamp.METHOD.target.body; required with an integration key' })),
});

/** Splits a page fetched with limit + 1 rows into the envelope. */
export function page<Row extends { id: string }, Out>(rows: Row[], limit: number, present: (row: Row) => Out) {
  const has_more = rows.length > limit;
  const kept = rows.slice(0, limit);
  return {
    object: 'list' as const,
    data: kept.map(present),
    has_more,
    next_cursor: has_more ? kept[kept.length - 1].id : null,
  };
}
