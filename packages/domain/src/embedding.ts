/**
 * Origins allowed to frame the hosted journey (spec: at most twenty, each scheme and host only,
 * no path and no parameter). An origin is compared with what the browser attests
 * (`MessageEvent.origin`, CSP `frame-ancestors`), so it is stored in the browser's own form:
 * lower case, no default port, no trailing slash.
 */
export const MAX_EMBEDDING_ORIGINS = 20;
const MAX_ORIGIN_LENGTH = 255;

export type OriginCheck = { ok: true; origin: string } | { ok: false; message: string };

export function normalizeOrigin(text: string, environment: 'sandbox' | 'prod'): OriginCheck {
  if (text.length > MAX_ORIGIN_LENGTH) return { ok: false, message: `at most ${MAX_ORIGIN_LENGTH} characters` };
  const m = /^([a-zA-Z][a-zA-Z0-9+.-]*):\/\/([^/?#]*)(.*)$/.exec(text);
  if (!m) return { ok: false, message: 'must be an origin such as https://www.example.com' };
  const [, scheme, authority, rest] = m;
  if (rest !== '') {
    return { ok: false, message: 'must be scheme and host only: no path (not even a trailing /), no query, no fragment' };
  }
  if (authority.includes('@')) return { ok: false, message: 'must not carry a user name or password' };
  if (authority.includes('*')) return { ok: false, message: 'must name one host: wildcards are not accepted' };
  const lower = scheme.toLowerCase();
  if (lower !== 'https' && lower !== 'http') return { ok: false, message: 'must use https (or http in the sandbox)' };
  if (lower === 'http' && environment === 'prod') return { ok: false, message: 'must use https in production' };
  let url: URL;
  try {
    url = new URL(`${lower}://${authority}`);
  } catch {
    return { ok: false, message: 'has a host that is not valid' };
  }
  if (!url.hostname) return { ok: false, message: 'needs a host' };
  return { ok: true, origin: url.origin };
}

/** Validates and normalises a whole list; duplicates (after normalising) are kept once, in order. */
export function normalizeOrigins(
  list: readonly string[],
  environment: 'sandbox' | 'prod',
): { ok: true; origins: string[] } | { ok: false; index: number; message: string } {
  if (list.length > MAX_EMBEDDING_ORIGINS) return { ok: false, index: MAX_EMBEDDING_ORIGINS, message: `at most ${MAX_EMBEDDING_ORIGINS} origins` };
  const out: string[] = [];
  for (const [index, text] of list.entries()) {
    const check = normalizeOrigin(text, environment);
    if (!check.ok) return { ok: false, index, message: check.message };
    if (!out.includes(check.origin)) out.push(check.origin);
  }
  return { ok: true, origins: out };
}
