import { ApiError } from './errors.ts';
import type { OperatorRole } from '../domain.ts';

/** GET /auth/session of the console server (not a service route: typed here, from the console contract). */
export interface ConsoleSession {
  operator: { id: string; name: string; role: OperatorRole; countries: string[]; sensitivity: string };
  environment: 'sandbox' | 'prod';
  csrf_token: string;
  idle_expires_at: string;
  expires_at: string;
}

/**
 * The CSRF token of the current session, held in memory only and sent by every write. Set when
 * the session is read; a new page load reads it again.
 */
let csrfToken = '';
export const currentCsrfToken = () => csrfToken;

/** The path the console server sends the browser back to after a re-authentication. */
export function currentReturnTo(): string {
  const url = new URL(location.href);
  url.searchParams.delete('action');
  return url.pathname + url.search;
}

async function json(res: Response): Promise<unknown> {
  try {
    return await res.json();
  } catch {
    return undefined;
  }
}

export async function fetchSession(): Promise<ConsoleSession> {
  const res = await fetch('/auth/session', { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  const body = await json(res);
  if (!res.ok) throw ApiError.from(res.status, body);
  const session = body as ConsoleSession;
  csrfToken = session.csrf_token;
  return session;
}

/** Where to go when there is no session: sign in, then come back here. */
function signInUrl(returnTo = currentReturnTo()): string {
  return `/auth/login?return_to=${encodeURIComponent(returnTo)}`;
}

export function leaveForSignIn(error: unknown): boolean {
  if (!(error instanceof ApiError) || error.status !== 401) return false;
  if (error.code === 'session_ended') location.assign('/signed-out?reason=session_ended');
  else location.assign(signInUrl());
  return true;
}

async function post(path: string, body: unknown, csrf: boolean): Promise<unknown> {
  const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
  if (csrf) headers['x-csrf-token'] = csrfToken;
  const res = await fetch(path, { method: 'POST', headers, body: JSON.stringify(body), credentials: 'same-origin' });
  const answer = await json(res);
  if (!res.ok) throw ApiError.from(res.status, answer);
  return answer;
}

export async function logout(): Promise<string> {
  const answer = (await post('/auth/logout', {}, true)) as { redirect?: string };
  return answer.redirect ?? '/signed-out?reason=signed_out';
}

/** Hands the invitation token to the console server (kept there, never in a URL) and gets the sign-in address. */
export async function acceptInvitation(token: string): Promise<string> {
  const answer = (await post('/auth/invitation', { token }, false)) as { redirect: string };
  return answer.redirect;
}

/** The outcome of an action replayed after a re-authentication: once, then gone (404). */
export async function fetchActionOutcome(id: string): Promise<{ status: number; body: unknown } | null> {
  const res = await fetch(`/auth/actions/${encodeURIComponent(id)}`, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  const body = await json(res);
  if (res.status === 404) return null;
  if (!res.ok) throw ApiError.from(res.status, body);
  return body as { status: number; body: unknown };
}
