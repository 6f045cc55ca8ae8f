import assert from 'node:assert/strict';
import { METHODS } from 'node:http';
import fc from 'fast-check';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import type { Db } from '@idv/db';
import { errorOf } from './app.ts';

/**
 * Arbitraries of hostile input for property-based tests (fast-check), and the checks every answer
 * to it must pass. The suites draw requests for every route of the OpenAPI document from these.
 */

/** Single characters that broke or could break something: controls, unpaired surrogates, bidi, noncharacters, separators. */
const NASTY = [
  '\u0000', '\u0001', '\u0007', '\b', '\t', '\n', '\r', '\u000b', '\u001b', '\u007f', '\u0085', '\u009f',
  '\ud800', '\udbff', '\udc00', '\udfff', '\ufeff', '\ufffd', '\ufffe', '\uffff', '\u2028', '\u202e', '\u200b',
  '%', '%00', '%zz', '..', '/', '\\', "'", '"', '`', '$', '{', '}', '<', '>', '&', '?', '#', ';', ',', '*', ' ', '😀', 'é', 'ß',
];

/** Any text a client could put in a string: a mix of nasty characters and random Unicode, sometimes over-long. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.array(fc.oneof(fc.constantFrom(...NASTY), fc.string({ maxLength: 4 }), fc.string({ unit: 'binary', maxLength: 4 })), { maxLength: 8 }).map((parts) => parts.join('')) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom(65, 101, 129, 256, 513, 2049, 20_000).chain((n) => fc.constantFrom('a', '\u0000', 'é', '😀').map((c) => c.repeat(n))) },
);

/**
 * Percent-encodes any JavaScript string the way a hostile client could send it: a lone surrogate
 * becomes the three bytes a careless UTF-8 encoder writes for it (which are not UTF-8).
 */
export function percentEncode(s: string): string {
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    if (cp >= 0xd800 && cp <= 0xdfff) {
      out += [0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f)].map((b) => `%${b.toString(16).toUpperCase()}`).join('');
    } else {
      out += encodeURIComponent(ch);
    }
  }
  return out;
}

/** Raw percent-escapes that are not UTF-8, or not escapes at all. */
export const brokenEscape = fc.constantFrom('%FF', '%C0%80', '%ED%A0%80', '%E0', '%', '%zz', '%00', '%0a', '%2F..%2F');

type Schema = Record<string, any>;

export interface BodyContext {
  resolve(schema: Schema): Schema;
  /** Known-good values by property name (ids of existing resources, names of flows…), so that requests get past the first checks. */
  good: Record<string, unknown[]>;
}

const wrongType = fc.oneof(
  fc.constant(null),
  fc.boolean(),
  fc.integer(),
  fc.double(),
  fc.constantFrom(-1, 0, 2 ** 53, -(2 ** 63), 1e308, Number.MIN_VALUE),
  fc.constant([]),
  fc.constant({}),
  fc.array(hostileString, { maxLength: 3 }),
  fc.dictionary(hostileString, hostileString, { maxKeys: 3 }),
);

/** A value for a schema: mostly right, with hostile strings, wrong types and unknown fields mixed in. */
export function valueFor(schema: Schema, ctx: BodyContext, name = '', depth = 0): fc.Arbitrary<unknown> {
  const s = ctx.resolve(schema);
  const good = ctx.good[name];
  const right = rightValueFor(s, ctx, name, depth);
  return fc.oneof(
    { weight: 6, arbitrary: good ? fc.oneof(fc.constantFrom(...good), right) : right },
    { weight: 1, arbitrary: wrongType },
    { weight: 1, arbitrary: hostileString },
  );
}

function rightValueFor(s: Schema, ctx: BodyContext, name: string, depth: number): fc.Arbitrary<unknown> {
  if (s.enum) return fc.constantFrom(...s.enum);
  if (s.anyOf) return fc.oneof(...s.anyOf.map((x: Schema) => rightValueFor(ctx.resolve(x), ctx, name, depth)));
  switch (s.type) {
    case 'string':
      return fc.oneof(fc.string({ minLength: s.minLength ?? 0, maxLength: s.maxLength ?? 20 }), hostileString);
    case 'integer':
      return fc.integer({ min: s.minimum ?? -1e6, max: s.maximum ?? 1e6 });
    case 'number':
      return fc.double();
    case 'boolean':
      return fc.boolean();
    case 'array':
      return depth > 4 ? fc.constant([]) : fc.array(valueFor(s.items ?? {}, ctx, name, depth + 1), { maxLength: Math.min(s.maxItems ?? 3, 4) + 1 });
    case 'object': {
      if (depth > 4) return fc.constant({});
      const props = Object.entries<Schema>(s.properties ?? {});
      const record = fc.record(Object.fromEntries(props.map(([k, v]) => [k, valueFor(v, ctx, k, depth + 1)])), {
        requiredKeys: s.required ?? [],
      });
      const extra = typeof s.additionalProperties === 'object' ? valueFor(s.additionalProperties, ctx, '', depth + 1) : hostileString;
      return fc.tuple(record, fc.dictionary(hostileString, extra, { maxKeys: props.length ? 1 : 4 })).map(([known, more]) => ({ ...more, ...known }));
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

/** Deep nesting, as text (JSON.stringify of such a value would itself be the risk). */
const deepText = fc.constantFrom(10, 33, 100, 5_000, 30_000).chain((n) =>
  fc.constantFrom('[', '{"a":').map((open) => open.repeat(n) + (open === '[' ? '1' + ']'.repeat(n) : '1' + '}'.repeat(n))),
);

/** Bodies that are not a JSON value of the route's schema at all: malformed, odd, deep, duplicated, huge. */
export function rawBodyFor(validBody: fc.Arbitrary<unknown>): fc.Arbitrary<string | Buffer> {
  return fc.oneof(
    fc.constantFrom('{', '{"a":1,}', '[1,2', 'nul', 'NaN', '{"a":01}', "{'a':1}", '{"a":"\\x00"}', '"\\ud800"', '{"a":"\\u0000"}', '{"__proto__":{"admin":true}}', '{"constructor":{"prototype":{"x":1}}}', '\u0000', ' ', '\ufeff{}', '{}{}', '1e99999'),
    deepText,
    // Duplicate keys: the same field twice, the second one hostile.
    fc.tuple(validBody, hostileString).map(([body, bad]) => {
      const text = JSON.stringify(body ?? {});
      if (!text.startsWith('{') || text === '{}') return text;
      const first = Object.keys(body as object)[0];
      return `${text.slice(0, -1)},${JSON.stringify(first)}:${JSON.stringify(bad)}}`;
    }),
    // Over the body limit, as a valid JSON document.
    fc.constantFrom(70_000, 1_100_000).map((n) => JSON.stringify({ name: 'x'.repeat(n) })),
    // Bytes that are not UTF-8 inside a JSON string.
    fc.constantFrom(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), Buffer.from([0xc0, 0x80])),
  );
}

export const odd: { mediaType: fc.Arbitrary<string | undefined>; method: fc.Arbitrary<string> } = {
  mediaType: fc.constantFrom(
    undefined,
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/xml',
    'application/json; charset=utf-16',
    'application/vnd.api+json',
    'image/png',
    'application/json\u0000',
    '*/*',
    '',
  ),
  // Every method Node's parser knows (light-my-request sends any of them).
  method: fc.constantFrom(...METHODS.filter((m) => m !== 'CONNECT')),
};

/** OpenID4VP's error answer (RFC 6749 §5.2), what the wallet-facing routes send a wallet. */
function isOAuthError(res: LightMyRequestResponse): boolean {
  const body = res.json() as Record<string, unknown>;
  return Object.keys(body).sort().join() === 'error,error_description' && typeof body.error === 'string' && typeof body.error_description === 'string';
}

/**
 * The checks every answer passes, whatever was sent: below 500; an error (4xx) is JSON in the
 * spec's shape with a req_ id echoed in X-Request-Id and a doc_url of its code. A route a wallet
 * calls (`oauth`) may answer OpenID4VP's own error shape instead, which is what a wallet reads.
 */
export function assertWellFormedAnswer(res: LightMyRequestResponse, method: string, label: string, errors: 'spec' | 'oauth' = 'spec'): void {
  assert.ok(res.statusCode < 500, `${label}: ${res.statusCode} ${res.body.slice(0, 300)}`);
  if (res.statusCode >= 400 && method !== 'HEAD') {
    assert.match(String(res.headers['content-type']), /^application\/json/, `${label}: ${res.statusCode} not JSON: ${res.body.slice(0, 200)}`);
    if (!(errors === 'oauth' && isOAuthError(res))) {
      try {
        errorOf(res);
      } catch (err) {
        throw new Error(`${label}: ${(err as Error).message}`);
      }
    }
  }
  assert.match(String(res.headers['x-request-id']), /^req_/, `${label}: no X-Request-Id`);
}

/** Row counts of every table of the schema but those named (which a refused request may change by design). */
export async function rowCounts(db: Db, except: string[]): Promise<Record<string, number>> {
  const tables = (await db.execute(sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE' ORDER BY 1`)) as unknown as
    | { rows: { table_name: string }[] }
    | { table_name: string }[];
  const names = (Array.isArray(tables) ? tables : tables.rows).map((r) => r.table_name).filter((n) => !except.includes(n) && !n.startsWith('__drizzle'));
  const query = names.map((n) => `SELECT '${n}' AS t, count(*)::int AS n FROM "${n}"`).join(' UNION ALL ');
  const result = (await db.execute(sql.raw(query))) as unknown as { rows: { t: string; n: number }[] } | { t: string; n: number }[];
  return Object.fromEntries((Array.isArray(result) ? result : result.rows).map((r) => [r.t, Number(r.n)]));
}
