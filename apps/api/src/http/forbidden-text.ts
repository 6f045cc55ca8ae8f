import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from './api-error.ts';

/**
 * Text no route accepts, refused once here for every route rather than by each schema: control
 * characters, bidirectional overrides and unpaired UTF-16 surrogates. PostgreSQL refuses a NUL byte in text (a 500 if it
 * got that far) and stores a lone surrogate as U+FFFD (silently changing what was sent); the
 * other controls have no business in an identifier, a filter or a name, and make logs and
 * exports lie. Bodies keep tab, line feed and carriage return (free-text comments have lines).
 */
// Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): a name holding
// one displays as another text than the one stored ("Trojan Source"). The directional marks
// (LRM, RLM, ALM) that right-to-left writing uses are kept.
const IN_LINE = /\p{Cc}|\p{Cs}|[\u202A-\u202E\u2066-\u2069]/u;
const IN_TEXT = /(?![\t\n\r])\p{Cc}|\p{Cs}|[\u202A-\u202E\u2066-\u2069]/u;
/**
 * Header values are Latin-1 as Node decodes them, so bytes 0x80–0x9F (parts of UTF-8 sequences)
 * are not controls there; tab is allowed between words (RFC 9110). Over real HTTP Node's parser
 * refuses most of these before the app sees them; this also covers any other way in.
 */
const IN_HEADER = /[\0-\x08\x0a-\x1f\x7f]|\p{Cs}/u;

/** JSON bodies of this API are a few levels deep; deeper ones are refused before any schema walks them. */
const MAX_JSON_DEPTH = 32;

const WHAT = 'a control character, a bidirectional override or an unpaired surrogate (only well-formed Unicode text is accepted)';

function lineRefusal(where: string, name: string, value: unknown): ApiError | null {
  // A parameter name is caller text too: it is refused without being echoed in error.field.
  if (IN_LINE.test(name)) return new ApiError('parameter_invalid', `A ${where} name contains ${WHAT}.`);
  for (const v of Array.isArray(value) ? value : [value]) {
    if (typeof v === 'string' && IN_LINE.test(v)) return new ApiError('parameter_invalid', `The ${where} ${name} contains ${WHAT}.`, name);
  }
  return null;
}

/** The refusal of a request's path parameters, query values or header values, or null. */
function requestTextRefusal(req: FastifyRequest): ApiError | null {
  for (const [name, value] of Object.entries((req.params ?? {}) as Record<string, unknown>)) {
    const refusal = lineRefusal('path parameter', name, value);
    if (refusal) return refusal;
  }
  for (const [name, value] of Object.entries((req.query ?? {}) as Record<string, unknown>)) {
    const refusal = lineRefusal('query parameter', name, value);
    if (refusal) return refusal;
  }
  for (const [name, value] of Object.entries(req.headers)) {
    for (const v of Array.isArray(value) ? value : [value]) {
      if (typeof v === 'string' && IN_HEADER.test(v)) return new ApiError('bad_request', `The header ${name} contains ${WHAT}.`);
    }
  }
  return null;
}

/**
 * The refusal of a parsed JSON body, or null: strings and keys with forbidden text, keys that
 * would reach an object's prototype when copied (`__proto__`, `constructor.prototype`), and
 * nesting deeper than MAX_JSON_DEPTH. Iterative, so a deeply nested body cannot exhaust the stack.
 */
export function jsonTextRefusal(body: unknown): ApiError | null {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: body, path: '', depth: 0 }];
  while (stack.length) {
    const { value, path, depth } = stack.pop()!;
    if (typeof value === 'string') {
      if (IN_TEXT.test(value)) return new ApiError('parameter_invalid', `The field ${path || '(body)'} contains ${WHAT}.`, path || undefined);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return new ApiError('parameter_invalid', `The body is nested deeper than ${MAX_JSON_DEPTH} levels.`, path || undefined);
    const isArray = Array.isArray(value);
    for (const [key, child] of Object.entries(value)) {
      if (!isArray) {
        if (IN_TEXT.test(key)) return new ApiError('parameter_invalid', `A field name${path ? ` in ${path}` : ''} contains ${WHAT}.`, path || undefined);
        if (key === '__proto__' || (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype'))) {
          return new ApiError('parameter_unknown', `The field name ${key} is not accepted.`, path ? `${path}.${key}` : key);
        }
      }
      stack.push({ value: child, path: path ? `${path}.${key}` : key, depth: depth + 1 });
    }
  }
  return null;
}

/**
 * Refuses forbidden text in path parameters, query values and headers on every route (the 404
 * and 405 answers included). Registered after the key and session checks, so that an unknown or
 * revoked key still gets its 401 first, as with any other malformed request.
 */
export function installForbiddenTextGuard(app: FastifyInstance): void {
  // Synchronous (done callback): no promise per request.
  app.addHook('onRequest', (req, _reply, done) => {
    const refusal = requestTextRefusal(req);
    done(refusal ?? undefined);
  });
}
