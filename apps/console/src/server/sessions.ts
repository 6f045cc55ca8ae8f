import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ConsoleStateStore, newOpaqueId } from './state-store.ts';

/** What the console keeps for a signed-in operator (sealed in the database; the browser holds only the id). */
export interface SessionData {
  operatorId: string;
  subject: string;
  /** The latest ID token (the proof sent as X-Service-Reauthenticated-At while recent); never sent to the browser. */
  idToken: string;
  /** auth_time of that token, in Unix seconds (the provider's clock); null when the provider left it out (never sent then). */
  authTime: number | null;
  csrfToken: string;
  createdAt: number;
  /** Absolute end, in ms: the session cannot be extended past it. */
  absoluteExpiresAt: number;
}

export interface Session {
  id: string;
  data: SessionData;
  idleExpiresAt: Date;
}

export interface SessionSettings {
  idleMs: number;
  absoluteMs: number;
  /** Secure cookies with the __Host- prefix (https); plain names over http in development. */
  secure: boolean;
}

export const DEFAULT_IDLE_MS = 30 * 60_000;
export const DEFAULT_ABSOLUTE_MS = 12 * 3_600_000;
/** The idle end is written again only when a request moves it by more than this (at most one write a minute per session). */
const TOUCH_STEP_MS = 60_000;

/** Sessions in the shared store, and the cookie that names one. */
export class Sessions {
  readonly cookieName: string;
  readonly loginCookieName: string;
  readonly invitationCookieName: string;

  constructor(
    private readonly store: ConsoleStateStore,
    private readonly settings: SessionSettings,
  ) {
    const prefix = settings.secure ? '__Host-' : '';
    this.cookieName = `${prefix}console_session`;
    this.loginCookieName = `${prefix}console_login`;
    this.invitationCookieName = `${prefix}console_invitation`;
  }

  cookieOptions(maxAgeS?: number) {
    return { path: '/', httpOnly: true, sameSite: 'lax' as const, secure: this.settings.secure, ...(maxAgeS !== undefined ? { maxAge: maxAgeS } : {}) };
  }

  /** A new session with a new id (never one the browser brought), its cookie set. */
  async create(reply: FastifyReply, data: Omit<SessionData, 'csrfToken' | 'createdAt' | 'absoluteExpiresAt'>, now: Date): Promise<Session> {
    const id = newOpaqueId();
    const full: SessionData = { ...data, csrfToken: randomBytes(32).toString('base64url'), createdAt: now.getTime(), absoluteExpiresAt: now.getTime() + this.settings.absoluteMs };
    const idleExpiresAt = this.idleEnd(full, now);
    await this.store.put('session', id, full, now, idleExpiresAt);
    reply.setCookie(this.cookieName, id, this.cookieOptions(Math.ceil(this.settings.absoluteMs / 1000)));
    return { id, data: full, idleExpiresAt };
  }

  private idleEnd(data: SessionData, now: Date): Date {
    return new Date(Math.min(now.getTime() + this.settings.idleMs, data.absoluteExpiresAt));
  }

  /**
   * The session of the request's cookie, extended by this request; null when none or expired. The
   * row is written only when the extension moves its end by more than TOUCH_STEP_MS: a page's
   * parallel calls (session, data, images) would otherwise each write the same row.
   */
  async current(req: FastifyRequest, now: Date): Promise<Session | null> {
    const id = req.cookies[this.cookieName];
    if (!id || id.length > 100) return null;
    const found = await this.store.readWithExpiry<SessionData>('session', id, now);
    if (!found) return null;
    const data = found.value;
    if (data.absoluteExpiresAt <= now.getTime()) {
      await this.store.delete('session', id);
      return null;
    }
    const idleExpiresAt = this.idleEnd(data, now);
    if (idleExpiresAt.getTime() - found.expiresAt.getTime() < TOUCH_STEP_MS) return { id, data, idleExpiresAt: found.expiresAt };
    await this.store.touch('session', id, idleExpiresAt);
    return { id, data, idleExpiresAt };
  }

  /** Keeps a fresher ID token (after a re-authentication) in the session. */
  async update(session: Session, data: SessionData): Promise<void> {
    await this.store.reseal('session', session.id, data);
    session.data = data;
  }

  async destroy(reply: FastifyReply, session: Session | null): Promise<void> {
    if (session) await this.store.delete('session', session.id);
    reply.clearCookie(this.cookieName, this.cookieOptions());
  }

  static csrfMatches(session: Session, header: unknown): boolean {
    if (typeof header !== 'string') return false;
    const a = Buffer.from(header);
    const b = Buffer.from(session.data.csrfToken);
    return a.length === b.length && timingSafeEqual(a, b);
  }
}
