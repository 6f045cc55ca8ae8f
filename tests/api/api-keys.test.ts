import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows, schema } from '@idv/db';
import { errorOf, startTestApp, type Credentials, type TestApp } from '../helpers/app.ts';

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const LISTED_FIELDS = ['created_at', 'environment', 'id', 'kind', 'name', 'object', 'permissions', 'revoked_at', 'secret_prefix'];

async function createKey(body: Record<string, unknown>, key?: Credentials) {
  const res = await t.request('POST', '/v1/api-keys', { body, key });
  assert.equal(res.statusCode, 201, res.body);
  const k = res.json();
  return { body: k, creds: { id: k.id, secret: k.secret, signingSecret: k.signing_secret } as Credentials };
}

async function listAll(key?: Credentials): Promise<{ id: string }[]> {
  const res = await t.request('GET', '/v1/api-keys?limit=100', { key });
  assert.equal(res.statusCode, 200);
  return res.json().data;
}

/** Every text of every row of every table of the database, to look for a secret in clear. */
async function wholeDatabaseText(): Promise<string> {
  const tables = await queryRows<{ table_name: string }>(
    t.database.db,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  assert.ok(tables.length >= 5, 'the tables are found');
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await queryRows<{ r: string }>(t.database.db, sql`SELECT row_to_json(x)::text AS r FROM ${sql.identifier(table_name)} x`);
    parts.push(...rows.map((row) => row.r));
  }
  return parts.join('\n');
}

describe('POST /v1/api-keys', () => {
  test('creates a sandbox key whose secret and signing secret are returned once', async () => {
    const { body, creds } = await createKey({ name: 'ci server' });
    assert.match(body.id, /^key_[0-9a-z]{26}$/);
    assert.equal(body.object, 'api_key');
    assert.equal(body.name, 'ci server');
    assert.equal(body.environment, 'sandbox');
    assert.equal(body.kind, 'integration');
    assert.deepEqual(body.permissions, []);
    assert.equal(body.revoked_at, null);
    assert.equal(body.created_at, t.clock.now().toISOString());
    assert.match(body.secret, /^sk_sandbox_[A-Za-z0-9_-]{43}$/, '256 random bits behind a sandbox prefix');
    assert.equal(typeof body.signing_secret, 'string');
    assert.ok(body.signing_secret.length >= 40);
    assert.notEqual(body.signing_secret, body.secret);
    assert.ok(body.secret.startsWith(body.secret_prefix));
    assert.ok(body.secret_prefix.length <= 'sk_sandbox_'.length + 4, 'the prefix reveals a few characters only');
    assert.deepEqual(Object.keys(body).sort(), [...LISTED_FIELDS, 'secret', 'signing_secret'].sort());

    // The new key works, and signs with its own signing secret.
    assert.equal((await t.request('GET', '/v1/cases', { key: creds })).statusCode, 200);
    const created = await t.request('POST', '/v1/cases', { key: creds, signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(created.statusCode, 201, created.body);
  });

  test('the listing never shows the secrets', async () => {
    const { body } = await createKey({ name: 'listed' });
    const res = await t.request('GET', '/v1/api-keys?limit=100');
    assert.equal(res.statusCode, 200);
    const listed = res.json().data.find((k: { id: string }) => k.id === body.id);
    assert.ok(listed);
    assert.deepEqual(Object.keys(listed).sort(), LISTED_FIELDS);
    assert.deepEqual(listed, Object.fromEntries(LISTED_FIELDS.map((f) => [f, body[f]])));
    assert.equal(res.body.includes(body.secret), false);
    assert.equal(res.body.includes(body.signing_secret), false);
    assert.equal(res.body.includes(t.demoKey.secret), false);
    assert.equal(res.body.includes(t.demoKey.signingSecret), false);
  });

  test('the database holds only a hash of the secret, and the signing secret sealed: neither appears in clear anywhere', async () => {
    const { body } = await createKey({ name: 'stored' });
    const [row] = await t.database.db.select().from(schema.apiKeys).where(sql`${schema.apiKeys.id} = ${body.id}`);
    assert.ok(row);
    assert.match(row.secretHash, /^[0-9a-f]{64}$/);
    assert.notEqual(row.signingSecretSealed, body.signing_secret);
    const all = await wholeDatabaseText();
    assert.ok(all.includes(body.id), 'the search covers the api_keys table');
    for (const secret of [body.secret, body.signing_secret, t.demoKey.secret, t.demoKey.signingSecret]) {
      assert.equal(all.includes(secret), false, 'a secret is stored in clear');
      // Not even the random part alone (e.g. without its prefix).
      assert.equal(all.includes(secret.slice(-43)), false, 'the random part of a secret is stored in clear');
    }
  });

  test('no permission by default; a key grants only the permissions it holds', async () => {
    assert.deepEqual((await createKey({})).body.permissions, []);
    assert.deepEqual((await createKey({ permissions: [] })).body.permissions, []);
    assert.deepEqual((await createKey({ permissions: ['decisions', 'personal_data'] })).body.permissions, ['decisions', 'personal_data']);

    const partial = (await createKey({ name: 'personal data only', permissions: ['personal_data'] })).creds;
    const before = (await listAll()).length;
    const refused = await t.request('POST', '/v1/api-keys', { key: partial, body: { permissions: ['decisions'] } });
    assert.equal(refused.statusCode, 403);
    const err = errorOf(refused);
    assert.equal(err.code, 'permission_not_held');
    assert.equal(err.type, 'permission_error');
    assert.equal(err.field, 'permissions');
    assert.match(err.message, /decisions/);
    const both = await t.request('POST', '/v1/api-keys', { key: partial, body: { permissions: ['personal_data', 'decisions'] } });
    assert.equal(errorOf(both).code, 'permission_not_held');
    assert.equal((await listAll()).length, before, 'a refused creation creates nothing');
    const allowed = await createKey({ permissions: ['personal_data'] }, partial);
    assert.deepEqual(allowed.body.permissions, ['personal_data']);

    const bare = (await createKey({ name: 'no permission' })).creds;
    for (const permissions of [['personal_data'], ['decisions']]) {
      const res = await t.request('POST', '/v1/api-keys', { key: bare, body: { permissions } });
      assert.equal(res.statusCode, 403);
      assert.equal(errorOf(res).code, 'permission_not_held');
    }
    assert.deepEqual((await createKey({}, bare)).body.permissions, [], 'a key without permissions may create keys without permissions');
  });

  const invalid: [string, unknown, number, string, string | undefined][] = [
    ['unknown field', { name: 'x', colour: 'blue' }, 422, 'parameter_unknown', 'colour'],
    ['unknown permission', { permissions: ['admin'] }, 422, 'parameter_invalid', 'permissions.0'],
    ['duplicate permissions', { permissions: ['decisions', 'decisions'] }, 422, 'parameter_invalid', 'permissions'],
    ['permissions not a list', { permissions: 'decisions' }, 422, 'parameter_invalid', 'permissions'],
    ['name too long (101)', { name: 'n'.repeat(101) }, 422, 'parameter_invalid', 'name'],
    ['empty name', { name: '' }, 422, 'parameter_invalid', 'name'],
    ['name not a string', { name: 12 }, 422, 'parameter_invalid', 'name'],
    ['body not an object', ['decisions'], 422, 'parameter_invalid', undefined],
  ];
  for (const [label, body, status, code, field] of invalid) {
    test(`${status} ${code} on ${label}`, async () => {
      const before = (await listAll()).length;
      const res = await t.request('POST', '/v1/api-keys', { body });
      assert.equal(res.statusCode, status, res.body);
      const err = errorOf(res);
      assert.equal(err.code, code);
      assert.equal(err.field, field);
      assert.equal((await listAll()).length, before);
    });
  }

  test('a name of exactly 100 characters is accepted; malformed JSON is refused', async () => {
    assert.equal((await createKey({ name: 'n'.repeat(100) })).body.name, 'n'.repeat(100));
    const bad = await t.request('POST', '/v1/api-keys', { raw: '{"name":' });
    assert.equal(bad.statusCode, 422);
    assert.equal(errorOf(bad).code, 'invalid_json');
  });
});

describe('GET /v1/api-keys', () => {
  test('pages by cursor with limit and starting_after, newest first, every key once', async () => {
    for (let i = 0; i < 5; i++) {
      await createKey({ name: `page-${i}` });
      t.clock.advance(10);
    }
    const expected = (await listAll()).map((k) => k.id);
    assert.ok(expected.length >= 6);
    assert.deepEqual(expected, [...expected].sort().reverse(), 'newest first');

    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const url: string = `/v1/api-keys?limit=2${cursor ? `&starting_after=${cursor}` : ''}`;
      const res = await t.request('GET', url);
      assert.equal(res.statusCode, 200);
      const page = res.json();
      assert.equal(page.object, 'list');
      assert.ok(page.data.length <= 2);
      seen.push(...page.data.map((k: { id: string }) => k.id));
      assert.equal(page.has_more, seen.length < expected.length);
      cursor = page.next_cursor;
      if (page.has_more) assert.equal(cursor, page.data[page.data.length - 1].id);
      else assert.equal(cursor, null);
      pages++;
    } while (cursor);
    assert.deepEqual(seen, expected);
    assert.equal(pages, Math.ceil(expected.length / 2));

    const one = (await t.request('GET', '/v1/api-keys?limit=1')).json();
    assert.deepEqual(one.data.map((k: { id: string }) => k.id), [expected[0]]);
    const hundred = await t.request('GET', '/v1/api-keys?limit=100');
    assert.equal(hundred.statusCode, 200);
    const afterLast = (await t.request('GET', `/v1/api-keys?starting_after=${expected[expected.length - 1]}`)).json();
    assert.deepEqual(afterLast.data, []);
    assert.equal(afterLast.has_more, false);
  });

  test('default limit is 20', async () => {
    while ((await listAll()).length < 22) await createKey({ name: 'filler' });
    const res = (await t.request('GET', '/v1/api-keys')).json();
    assert.equal(res.data.length, 20);
    assert.equal(res.has_more, true);
  });

  const badQueries: [string, string, string][] = [
    ['limit=0', 'limit', 'parameter_invalid'],
    ['limit=101', 'limit', 'parameter_invalid'],
    ['limit=-1', 'limit', 'parameter_invalid'],
    ['limit=1.5', 'limit', 'parameter_invalid'],
    ['limit=ten', 'limit', 'parameter_invalid'],
    [`starting_after=${'k'.repeat(65)}`, 'starting_after', 'parameter_invalid'],
    ['cursor=key_x', 'cursor', 'parameter_unknown'],
  ];
  for (const [query, field, code] of badQueries) {
    test(`422 ${code} on ${query.slice(0, 24)}`, async () => {
      const res = await t.request('GET', `/v1/api-keys?${query}`);
      assert.equal(res.statusCode, 422, res.body);
      const err = errorOf(res);
      assert.equal(err.code, code);
      assert.equal(err.field, field);
    });
  }
});

describe('DELETE /v1/api-keys/{key_id}', () => {
  test('revokes (204); the key fails on its next request and is listed as revoked; revoking again changes nothing', async () => {
    const { creds } = await createKey({ name: 'to revoke' });
    assert.equal((await t.request('GET', '/v1/api-keys', { key: creds })).statusCode, 200);
    const res = await t.request('DELETE', `/v1/api-keys/${creds.id}`);
    assert.equal(res.statusCode, 204);
    assert.equal(res.body, '');
    const next = await t.request('GET', '/v1/api-keys', { key: creds });
    assert.equal(next.statusCode, 401);
    assert.equal(errorOf(next).code, 'api_key_revoked');
    const signed = await t.request('POST', '/v1/cases', { key: creds, signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(errorOf(signed).code, 'api_key_revoked');

    const revokedAt = (await listAll()).find((k) => k.id === creds.id) as unknown as { revoked_at: string };
    assert.equal(revokedAt.revoked_at, t.clock.now().toISOString());
    t.clock.advance(60_000);
    assert.equal((await t.request('DELETE', `/v1/api-keys/${creds.id}`)).statusCode, 204);
    const still = (await listAll()).find((k) => k.id === creds.id) as unknown as { revoked_at: string };
    assert.equal(still.revoked_at, revokedAt.revoked_at, 'the first revocation time is kept');
    // Other keys are untouched.
    assert.equal((await t.request('GET', '/v1/api-keys')).statusCode, 200);
  });

  test('404 resource_not_found for an unknown id; 422 for an over-long one', async () => {
    for (const id of ['key_01m7ym09t80f4fggxqxy1yr50c', 'nonsense']) {
      const res = await t.request('DELETE', `/v1/api-keys/${id}`);
      assert.equal(res.statusCode, 404);
      const err = errorOf(res);
      assert.equal(err.code, 'resource_not_found');
      assert.equal(err.field, 'key_id');
    }
    const long = await t.request('DELETE', `/v1/api-keys/${'k'.repeat(65)}`);
    assert.equal(long.statusCode, 422);
    assert.equal(errorOf(long).field, 'key_id');
  });
});
