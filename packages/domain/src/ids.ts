import { randomFillSync } from 'node:crypto';

/**
 * Prefixed, time-sortable identifiers: `<prefix>_<10 chars of milliseconds><16 random chars>`,
 * Crockford base32 in lower case. Lexical order is creation order (to the millisecond), which
 * lets an id serve as the pagination cursor.
 */
const ID_PREFIXES = [
  'cli', 'case', 'ses', 'key', 'whe', 'dlv', 'evt', 'op', 'tsk', 'grt', 'pc', 'req', 'flw', 'jrn', 'job', 'dec', 'cor', 'rev', 'sub', 'hof', 'fch', 'tan',
] as const;
export type IdPrefix = (typeof ID_PREFIXES)[number];

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

function encodeTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32] + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * Random bytes drawn from the system's CSPRNG in blocks and handed out once each, in order (as
 * node's own randomUUID does): a hot request makes several ids, and one call into the CSPRNG per
 * id cost more than the rest of the id. A byte is never handed out twice.
 */
const POOL = Buffer.alloc(4096);
let poolOffset = POOL.length;

function encodeRandom(chars: number): string {
  if (poolOffset + chars > POOL.length) {
    randomFillSync(POOL);
    poolOffset = 0;
  }
  let out = '';
  for (let i = 0; i < chars; i++) out += ALPHABET[POOL[poolOffset + i] & 31];
  poolOffset += chars;
  return out;
}

export function newId(prefix: IdPrefix, now: number = Date.now()): string {
  return `${prefix}_${encodeTime(now)}${encodeRandom(16)}`;
}

/**
 * The smallest id of that prefix made at or after `ms` (lexically below every such id): a bound
 * that lets a time window be read as a range of an index on the id.
 */
export function idFloor(prefix: IdPrefix, ms: number): string {
  return `${prefix}_${encodeTime(ms)}`;
}

const ID_BODY = /^[0-9a-hjkmnp-tv-z]{26}$/;

/** True when `value` has the shape of an id with that prefix (no database lookup). */
export function isId(prefix: IdPrefix, value: string): boolean {
  return value.startsWith(`${prefix}_`) && ID_BODY.test(value.slice(prefix.length + 1));
}
