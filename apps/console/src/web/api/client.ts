import createClient, { type Middleware } from 'openapi-fetch';
import { ApiError, ReauthNavigation, type ErrorBody } from './errors.ts';
import type { paths } from './openapi-types.ts';
import { currentCsrfToken, currentReturnTo, leaveForSignIn } from './session.ts';

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/**
 * Every write carries the session's CSRF token and the path to come back to should the service ask
 * for a re-authentication (the console server keeps the action and replays it after the round trip).
 * A POST carries an Idempotency-Key of its own (one per call, that is one per click): the service's
 * creations require one, and a call the network retried is then done once.
 */
const consoleHeaders: Middleware = {
  onRequest({ request }) {
    if (WRITES.has(request.method)) {
      request.headers.set('X-CSRF-Token', currentCsrfToken());
      request.headers.set('X-Console-Return-To', currentReturnTo());
      if (request.method === 'POST' && !request.headers.has('Idempotency-Key')) request.headers.set('Idempotency-Key', crypto.randomUUID());
    }
    return request;
  },
  async onResponse({ response }) {
    if (response.status !== 401 && response.status !== 403) return response;
    const body = (await response
      .clone()
      .json()
      .catch(() => undefined)) as ErrorBody | undefined;
    if (response.status === 403 && body?.reauth?.url?.startsWith('/')) {
      // The whole page goes to the identity provider; the action finishes on the way back.
      location.assign(body.reauth.url);
      throw new ReauthNavigation();
    }
    if (response.status === 401 && leaveForSignIn(ApiError.from(401, body))) throw new ReauthNavigation();
    return response;
  },
};

/** Typed calls to the service through the console server's /api proxy (paths from openapi/openapi.json). */
export const api = createClient<paths>({ baseUrl: '/api', credentials: 'same-origin' });
api.use(consoleHeaders);

/** The data of a call, or its error as an ApiError. */
export async function ok<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (error !== undefined || !response.ok) throw ApiError.from(response.status, error);
  return data as T;
}

/** URL of an image of the task's case, streamed by the console server from the service. */
export const reviewPieceUrl = (taskId: string, pieceId: string) => `/api/v1/reviews/${encodeURIComponent(taskId)}/pieces/${encodeURIComponent(pieceId)}`;
export const casePieceUrl = (caseId: string, pieceId: string) => `/api/v1/cases/${encodeURIComponent(caseId)}/pieces/${encodeURIComponent(pieceId)}`;
