import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A random secret with a readable prefix: `<prefix><43 chars of base64url>` (256 bits). */
export function randomSecret(prefix: string): string {
  return prefix + randomBytes(32).toString('base64url');
}

/**
 * Hash of a high-entropy secret for lookup. A fast hash is right here: the secrets are 256-bit
 * random values, so there is nothing for a slow password hash to protect against.
 */
export function secretHash(secret: string): string {
  return createHash('sha256').update(secret).digest('hex');
}

/** Constant-time equality of two strings (false when lengths differ, without early exit on content). */
export function constantTimeEqual(a: string, b: string): boolean {
  const ab = Buffer.from(a);
  const bb = Buffer.from(b);
  if (ab.length !== bb.length) {
    timingSafeEqual(ab, ab);
    return false;
  }
  return timingSafeEqual(ab, bb);
}
