import { randomFillSync } from 'node:crypto';

/**
 * The desktop-to-phone handoff as rules (docs/journey.md#continuing-on-a-phone): the short code a
 * person types or scans, how long it and the phone's session live, how many a desktop session may
 * ask for, and where a handoff stands.
 */

/** Crockford base32: no I, L, O or U, so what is read aloud or typed is not mistaken. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
/** 10 characters of 5 bits: 50 random bits, for a code that opens once and lives ten minutes. */
export const HANDOFF_CODE_LENGTH = 10;
/** A code can be opened within ten minutes of being shown. */
export const HANDOFF_CODE_TTL_MS = 10 * 60_000;
/** The phone's session lives fifteen minutes from its opening (within the spec's hour at most). */
export const HANDOFF_SESSION_TTL_MS = 15 * 60_000;
/** Codes a desktop session may ask for over its life (a new one replaces the one on the screen). */
export const HANDOFFS_PER_SESSION = 5;
/** The short link's path on the journey origin: `/p/<code>`. */
export const HANDOFF_PATH_PREFIX = '/p/';

export type HandoffStatus = 'waiting' | 'opened' | 'expired';

/** A new short code, drawn from the system's CSPRNG (a byte's low 5 bits: each symbol equally likely). */
export function newHandoffCode(): string {
  const bytes = randomFillSync(Buffer.alloc(HANDOFF_CODE_LENGTH));
  let code = '';
  for (const b of bytes) code += ALPHABET[b & 31];
  return code;
}

/**
 * The code as typed, in its one stored form: upper case, without the separators a person may type
 * (spaces, hyphens), with the letters Crockford reads as digits (O as 0, I and L as 1). Null when it
 * cannot be a code.
 */
export function normaliseHandoffCode(typed: string): string | null {
  const code = typed
    .toUpperCase()
    .replace(/[\s-]/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
  if (code.length !== HANDOFF_CODE_LENGTH) return null;
  for (const c of code) if (!ALPHABET.includes(c)) return null;
  return code;
}

/** The code as shown and put in the short link: two groups of five, easier to read and type. */
export function formatHandoffCode(code: string): string {
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

/**
 * Where a handoff stands for the desktop: waiting for the phone to open the code, opened (the
 * phone's session is alive), or expired (the code was not opened in time or was replaced by a
 * newer one, or the phone's session ended).
 */
export function handoffStatus(
  h: { expiresAt: Date; openedAt: Date | null; supersededAt: Date | null; phoneSessionExpiresAt: Date | null },
  now: Date,
): HandoffStatus {
  if (h.openedAt) return h.phoneSessionExpiresAt && h.phoneSessionExpiresAt > now ? 'opened' : 'expired';
  return h.supersededAt || h.expiresAt <= now ? 'expired' : 'waiting';
}
