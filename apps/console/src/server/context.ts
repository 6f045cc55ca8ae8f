import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorCode } from '@idv/domain';
import { sendError } from './errors.ts';
import type { OidcClient } from './oidc.ts';
import type { ServiceClient } from './service-client.ts';
import type { Sessions } from './sessions.ts';
import type { ConsoleStateStore } from './state-store.ts';

/** What the console's routes share. */
export interface ConsoleContext {
  consoleUrl: string;
  consoleOrigin: string;
  docsUrl: string;
  now: () => Date;
  reauthMaxAgeS: number;
  store: ConsoleStateStore;
  sessions: Sessions;
  oidc: OidcClient;
  service: ServiceClient;
}

export function fail(ctx: ConsoleContext, req: FastifyRequest, reply: FastifyReply, code: ErrorCode, message?: string, field?: string): FastifyReply {
  return sendError(req, reply, ctx.docsUrl, code, message, field);
}

/** A same-origin path to return to after a redirect: starts with one `/`, else `/`. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2_000) return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]/.test(value)) return '/';
  // The path as a browser would resolve it (dot segments, backslashes): `/..//evil.com` becomes
  // `//evil.com`, which a Location header sends to another site.
  const url = new URL(value, RETURN_BASE);
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (url.origin !== RETURN_BASE || path.startsWith('//') || path.startsWith('/\\')) return '/';
  return path;
}
const RETURN_BASE = 'https://console.invalid';

/** A write from the app itself: its CSRF token and, when the browser sent one, our own Origin. */
export function sameOrigin(ctx: ConsoleContext, req: FastifyRequest): boolean {
  const origin = req.headers.origin;
  return origin === undefined || origin === ctx.consoleOrigin;
}
