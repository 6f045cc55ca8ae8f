import type { ConsoleContext } from './context.ts';
import { ConsoleStateStore, newOpaqueId } from './state-store.ts';
import type { ForwardRequest, ServiceAnswer } from './service-client.ts';
import type { Session } from './sessions.ts';

/**
 * A write the service refused with reauth_required, kept until the operator comes back from the
 * provider (15 minutes), then replayed once with the fresh ID token; its result is kept for one
 * read at /auth/actions/<id> (10 minutes). Both are bound to the session that asked.
 */
export interface PendingAction {
  sessionKey: string;
  method: string;
  /** Below the service's base URL, /v1/… with the query. */
  path: string;
  /** base64 */
  body: string | null;
  contentType: string | null;
  returnTo: string;
}

export interface ActionResult {
  sessionKey: string;
  status: number;
  body: unknown;
}

const ACTION_TTL_MS = 15 * 60_000;
const RESULT_TTL_MS = 10 * 60_000;

const sessionKey = (session: Session) => ConsoleStateStore.keyOf('session', session.id);

export async function keepPendingAction(ctx: ConsoleContext, session: Session, action: Omit<PendingAction, 'sessionKey'>): Promise<string> {
  const id = newOpaqueId();
  const now = ctx.now();
  await ctx.store.put<PendingAction>('action', id, { ...action, sessionKey: sessionKey(session) }, now, new Date(now.getTime() + ACTION_TTL_MS));
  return id;
}

/** The pending action of this session, left in place (the re-authentication has not happened yet). */
export async function peekPendingAction(ctx: ConsoleContext, session: Session, id: string): Promise<PendingAction | null> {
  const action = await ctx.store.read<PendingAction>('action', id, ctx.now());
  return action && action.sessionKey === sessionKey(session) ? action : null;
}

export async function takePendingAction(ctx: ConsoleContext, session: Session, id: string): Promise<PendingAction | null> {
  const action = await peekPendingAction(ctx, session, id);
  if (!action) return null;
  // Taken (deleted) before the replay: of two callbacks racing, one replays.
  return ctx.store.take<PendingAction>('action', id, ctx.now());
}

export function replayRequest(action: PendingAction): Omit<ForwardRequest, 'operatorId' | 'reauthToken'> {
  return { method: action.method, path: action.path, body: action.body ? Buffer.from(action.body, 'base64') : undefined, contentType: action.contentType ?? undefined };
}

export async function keepResult(ctx: ConsoleContext, session: Session, id: string, answer: ServiceAnswer): Promise<void> {
  const now = ctx.now();
  await ctx.store.put<ActionResult>('result', id, { sessionKey: sessionKey(session), status: answer.status, body: answer.json }, now, new Date(now.getTime() + RESULT_TTL_MS));
}

/** The result, once: read, checked against the session, then deleted. */
export async function takeResult(ctx: ConsoleContext, session: Session, id: string): Promise<ActionResult | null> {
  const now = ctx.now();
  const result = await ctx.store.read<ActionResult>('result', id, now);
  if (!result || result.sessionKey !== sessionKey(session)) return null;
  return ctx.store.take<ActionResult>('result', id, now);
}

/** The id of a pending action or result from a URL: an opaque id, nothing else. */
export function actionIdOf(value: unknown): string | null {
  return typeof value === 'string' && /^[A-Za-z0-9_-]{43}$/.test(value) ? value : null;
}
