import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eq, sql } from 'drizzle-orm';
import { queryRows, schema } from '@idv/db';
import { JOURNEY_URL, errorOf, startTestApp, type Credentials, type TestApp } from '../helpers/app.ts';
import { otherClient } from '../helpers/tenants.ts';

const HOUR = 3_600_000;
const SESSION_FIELDS = ['case_id', 'created_at', 'expires_at', 'id', 'locale', 'object'];

let t: TestApp;
let other: { clientId: string; key: Credentials };
before(async () => {
  t = await startTestApp();
  other = await otherClient(t);
});
after(() => t.close());

async function openCase(key?: Credentials): Promise<{ id: string; expires_at: string }> {
  const res = await t.request('POST', '/v1/cases', { key, signed: true, body: { flow_name: 'standard', country: 'FR' } });
  assert.equal(res.statusCode, 201, res.body);
  return res.json();
}
const createSession = (body: Record<string, unknown>, key?: Credentials) => t.request('POST', '/v1/sessions', { key, signed: true, body });
const tokenOf = (url: string) => {
  const m = /^http:\/\/journey\.test\/#([A-Za-z0-9_-]+)$/.exec(url);
  assert.ok(m, `url ${url} is JOURNEY_URL/#<token>`);
  return m[1];
};

async function wholeDatabaseText(): Promise<string> {
  const tables = await queryRows<{ table_name: string }>(
    t.database.db,
    sql`SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
  );
  const parts: string[] = [];
  for (const { table_name } of tables) {
    const rows = await queryRows<{ r: string }>(t.database.db, sql`SELECT row_to_json(x)::text AS r FROM ${sql.identifier(table_name)} x`);
    parts.push(...rows.map((row) => row.r));
  }
  return parts.join('\n');
}

describe('POST /v1/sessions', () => {
  test('issues a journey link JOURNEY_URL/#<token> with at least 128 random bits, valid one hour', async () => {
    const c = await openCase();
    const res = await createSession({ case_id: c.id });
    assert.equal(res.statusCode, 201, res.body);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [...SESSION_FIELDS, 'url'].sort());
    assert.match(body.id, /^ses_[0-9a-z]{26}$/);
    assert.equal(body.object, 'session');
    assert.equal(body.case_id, c.id);
    assert.equal(body.locale, 'en', 'default locale');
    assert.ok(body.url.startsWith(`${JOURNEY_URL}/#`));
    const token = tokenOf(body.url);
    assert.ok(token.length >= 43, '32 random bytes in base64url (>= 128 bits)');
    assert.ok(Buffer.from(token, 'base64url').length >= 16);
    assert.equal(body.created_at, t.clock.now().toISOString());
    assert.equal(Date.parse(body.expires_at) - t.clock.now().getTime(), HOUR);

    // Another session for the same case: a different link.
    const second = await createSession({ case_id: c.id, locale: 'fr' });
    assert.equal(second.statusCode, 201);
    assert.notEqual(tokenOf(second.json().url), token);
    assert.notEqual(second.json().id, body.id);
    const journal = await t.database.db.select().from(schema.caseJournal).where(eq(schema.caseJournal.caseId, c.id));
    assert.deepEqual(journal.map((j) => j.action).sort(), ['case.created', 'session.created', 'session.created']);
  });

  test('the token is stored hashed: it appears in clear in no column of any table', async () => {
    const c = await openCase();
    const res = await createSession({ case_id: c.id });
    const token = tokenOf(res.json().url);
    const [row] = await t.database.db.select().from(schema.sessions).where(eq(schema.sessions.id, res.json().id));
    assert.ok(row);
    assert.notEqual(row.tokenHash, token);
    const all = await wholeDatabaseText();
    assert.ok(all.includes(res.json().id), 'the search covers the sessions table');
    assert.equal(all.includes(token), false, 'the journey token is stored in clear');
    assert.equal(all.includes(token.slice(0, 32)), false, 'part of the journey token is stored in clear');
  });

  test('never valid beyond the case: near its expiry the link ends with the case', async () => {
    const start = t.clock.now();
    const c = await openCase();
    const caseExpiry = Date.parse(c.expires_at);
    t.clock.set(new Date(caseExpiry - 10 * 60_000));
    const res = await createSession({ case_id: c.id });
    assert.equal(res.statusCode, 201, res.body);
    assert.equal(res.json().expires_at, c.expires_at, 'expires with the case, 10 minutes from now');
    assert.ok(Date.parse(res.json().expires_at) - t.clock.now().getTime() <= HOUR);

    // Once the case has expired, no link.
    t.clock.set(new Date(caseExpiry + 1000));
    const late = await createSession({ case_id: c.id });
    assert.equal(late.statusCode, 409);
    const err = errorOf(late);
    assert.equal(err.code, 'case_not_awaiting_applicant');
    assert.match(err.message, /expired/);
    t.clock.set(start);
  });

  test('409 case_not_awaiting_applicant whose message says where the case stands', async () => {
    const states: [string, string][] = [
      ['processing', 'processing'],
      ['in_review', 'review'],
      ['approved', 'decided'],
    ];
    for (const [state, status] of states) {
      const c = await openCase();
      await t.database.db
        .update(schema.cases)
        .set({ state: state as 'processing', status: status as 'processing' })
        .where(eq(schema.cases.id, c.id));
      const before = (await t.database.db.select().from(schema.sessions).where(eq(schema.sessions.caseId, c.id))).length;
      const res = await createSession({ case_id: c.id });
      assert.equal(res.statusCode, 409, res.body);
      const err = errorOf(res);
      assert.equal(err.code, 'case_not_awaiting_applicant');
      assert.equal(err.type, 'conflict_error');
      assert.equal(err.field, 'case_id');
      assert.ok(err.message.includes(state), `the message names the state ${state}: ${err.message}`);
      assert.equal((await t.database.db.select().from(schema.sessions).where(eq(schema.sessions.caseId, c.id))).length, before);
    }
    // A case waiting for a resubmission awaits the person again (status collecting).
    const c = await openCase();
    await t.database.db.update(schema.cases).set({ state: 'resubmission_requested', status: 'collecting' }).where(eq(schema.cases.id, c.id));
    assert.equal((await createSession({ case_id: c.id })).statusCode, 201);
  });

  test('404 resource_not_found for an unknown case and for another client\'s case', async () => {
    const foreign = await openCase(other.key);
    for (const caseId of ['case_01m7ym09t80f4fggxqxy1yr50c', 'nonsense', foreign.id]) {
      const res = await createSession({ case_id: caseId });
      assert.equal(res.statusCode, 404, res.body);
      const err = errorOf(res);
      assert.equal(err.code, 'resource_not_found');
      assert.equal(err.field, 'case_id');
    }
    assert.equal((await t.database.db.select().from(schema.sessions).where(eq(schema.sessions.caseId, foreign.id))).length, 0);
  });

  test('locale: two lower-case letters with an optional region, default en', async () => {
    const c = await openCase();
    for (const locale of ['fr', 'de-CH', 'es']) {
      const res = await createSession({ case_id: c.id, locale });
      assert.equal(res.statusCode, 201, `${locale}: ${res.body}`);
      assert.equal(res.json().locale, locale);
    }
    for (const locale of ['FR', 'french', 'fr_FR', 'fr-fr', 'f', '', 'fr-FRA']) {
      const res = await createSession({ case_id: c.id, locale });
      assert.equal(res.statusCode, 422, `${locale}: ${res.body}`);
      const err = errorOf(res);
      assert.equal(err.code, 'parameter_invalid');
      assert.equal(err.field, 'locale');
    }
    const notString = await createSession({ case_id: c.id, locale: 12 });
    assert.equal(errorOf(notString).field, 'locale');
  });

  const invalid: [string, Record<string, unknown>, string, string][] = [
    ['missing case_id', { locale: 'en' }, 'parameter_missing', 'case_id'],
    ['empty case_id', { case_id: '' }, 'parameter_invalid', 'case_id'],
    ['case_id over 64', { case_id: 'c'.repeat(65) }, 'parameter_invalid', 'case_id'],
    ['case_id not a string', { case_id: 7 }, 'parameter_invalid', 'case_id'],
    ['unknown field', { case_id: 'case_x', url: 'http://evil.test' }, 'parameter_unknown', 'url'],
  ];
  for (const [label, body, code, field] of invalid) {
    test(`422 ${code} on ${label}`, async () => {
      const res = await createSession(body);
      assert.equal(res.statusCode, 422, res.body);
      const err = errorOf(res);
      assert.equal(err.code, code);
      assert.equal(err.field, field);
    });
  }
});

describe('GET /v1/sessions/{id}', () => {
  test('reads the session without its url; status active, then expired with the clock', async () => {
    const start = t.clock.now();
    const c = await openCase();
    const created = (await createSession({ case_id: c.id, locale: 'de' })).json();
    const token = tokenOf(created.url);
    const res = await t.request('GET', `/v1/sessions/${created.id}`);
    assert.equal(res.statusCode, 200);
    const body = res.json();
    assert.deepEqual(Object.keys(body).sort(), [...SESSION_FIELDS, 'status'].sort());
    assert.equal(body.status, 'active');
    assert.equal(body.locale, 'de');
    assert.equal(body.case_id, c.id);
    assert.equal(body.expires_at, created.expires_at);
    assert.equal(res.body.includes(token), false);
    assert.equal(res.body.includes(JOURNEY_URL), false);
    assert.equal(res.headers['cache-control'], 'no-store');

    t.clock.advance(HOUR - 1000);
    assert.equal((await t.request('GET', `/v1/sessions/${created.id}`)).json().status, 'active');
    t.clock.advance(1000);
    assert.equal((await t.request('GET', `/v1/sessions/${created.id}`)).json().status, 'expired', 'expired at expires_at');
    t.clock.set(start);
  });

  test("404 resource_not_found for an unknown session and another client's session", async () => {
    const foreignCase = await openCase(other.key);
    const foreign = await createSession({ case_id: foreignCase.id }, other.key);
    assert.equal(foreign.statusCode, 201);
    for (const id of ['ses_01m7ym09t80f4fggxqxy1yr50c', 'nonsense', foreign.json().id]) {
      const res = await t.request('GET', `/v1/sessions/${id}`);
      assert.equal(res.statusCode, 404);
      const err = errorOf(res);
      assert.equal(err.code, 'resource_not_found');
      assert.equal(err.field, 'session_id');
    }
    assert.equal((await t.request('GET', `/v1/sessions/${foreign.json().id}`, { key: other.key })).statusCode, 200, 'its own client reads it');
  });
});
