import { createHash } from 'node:crypto';
import { signedHeaders } from './sign-request.ts';

/** What a signature covers besides its timestamp: the same key means the same signature in the same second. */
const contentKey = (method: string, target: string, body: string) =>
  createHash('sha256').update(`${method.toUpperCase()} ${target}\n${body}`).digest('base64url');

/** A timestamp is accepted up to 300 s ahead of the service clock: stay well inside it. */
const MAX_AHEAD_S = 240;

/**
 * Signing times for one client. The service accepts a signature once (`signature_replayed`), and
 * the same content signed in the same second gives the same signature: content signed again takes
 * the next free second (a little ahead of the clock, which the service tolerates), so a burst of
 * identical creations from one client never collides with itself.
 */
export class SigningClock {
  private readonly last = new Map<string, number>();

  /** The timestamp to sign `method target body` with, at `nowS`. */
  next(method: string, target: string, body: string, nowS: number): number {
    const content = contentKey(method, target, body);
    const last = this.last.get(content);
    const ts = last !== undefined && last >= nowS && last + 1 - nowS <= MAX_AHEAD_S ? last + 1 : nowS;
    if (this.last.size >= 10_000) this.forgetBefore(nowS);
    this.last.set(content, ts);
    return ts;
  }

  /** signedHeaders at the next free second for this content (`nowS`, the clock, by default). */
  headers(signingSecret: string, method: string, target: string, body: string, idempotencyKey: string, nowS = Math.floor(Date.now() / 1000)) {
    return signedHeaders(signingSecret, method, target, body, idempotencyKey, this.next(method, target, body, nowS));
  }

  /**
   * The service refused a signature of this content as already used (by another client with the
   * same secret, signing the same content in the same second): the next one skips a random few
   * seconds ahead, where two such clients are unlikely to meet again.
   */
  collided(method: string, target: string, body: string, nowS: number): void {
    const content = contentKey(method, target, body);
    const from = Math.max(this.last.get(content) ?? nowS, nowS);
    this.last.set(content, Math.min(from + 1 + Math.floor(Math.random() * 30), nowS + MAX_AHEAD_S - 1));
  }

  private forgetBefore(nowS: number): void {
    for (const [content, ts] of this.last) if (ts < nowS) this.last.delete(content);
  }
}
