import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '@idv/db';
import { errorOf, type ConsoleCredentials, type Credentials } from '../helpers/app.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';

let t: ReviewTestApp;
before(async () => {
  t = await startReviewApp();
});
after(() => t.close());

const newOperator = { name: 'Ada Reviewer', email: 'ada@example.com', role: 'reviewer', countries: ['FR', 'DE'], sensitivity: 'standard' };

async function invite(body: Record<string, unknown> = newOperator) {
  const admin = await addOperator(t, { role: 'administrator' });
  const res = await t.asOperator(admin, 'POST', '/v1/operators', { body, reauth: true });
  assert.equal(res.statusCode, 201, res.body);
  return res.json() as { operator: { id: string }; invitation_token: string; invitation_expires_at: string };
}

const resolve = (body: Record<string, unknown>, key: Credentials | ConsoleCredentials = t.consoleKey) => t.request('POST', '/v1/operators/resolve', { key, body });

describe('invitation and resolve', () => {
  test('the invitation token is returned once, stored only as a hash, and attaches the subject at the first resolve', async () => {
    const invited = await invite();
    assert.match(invited.invitation_token, /^inv_[A-Za-z0-9_-]{43}$/);
    assert.equal(Date.parse(invited.invitation_expires_at) - t.clock.now().getTime(), 7 * 24 * 3600 * 1000);
    const stored = await queryRows<Record<string, unknown>>(t.database.db, sql`SELECT * FROM operators WHERE id = ${invited.operator.id}`);
    assert.equal(JSON.stringify(stored).includes(invited.invitation_token), false, 'the token is not stored in clear');
    assert.equal(stored[0].status, 'invited');

    // Not usable before the first resolve.
    const early = await t.request('GET', '/v1/operators/directory', { key: t.consoleKey, headers: { 'x-service-operator': invited.operator.id } });
    assert.equal(early.statusCode, 401);
    assert.equal(errorOf(early).code, 'operator_unknown');

    const first = await resolve({ subject: 'sub-ada', invitation_token: invited.invitation_token });
    assert.equal(first.statusCode, 200, first.body);
    const body = first.json();
    assert.equal(body.operator.id, invited.operator.id);
    assert.equal(body.invitation_consumed, true);
    assert.deepEqual(body.operator.countries, ['DE', 'FR']);
    assert.deepEqual(body.abilities, ['review', 'directory', 'readCase']);

    const again = await resolve({ subject: 'sub-ada' });
    assert.equal(again.statusCode, 200);
    assert.equal(again.json().invitation_consumed, false);

    const reused = await resolve({ subject: 'sub-other', invitation_token: invited.invitation_token });
    assert.equal(reused.statusCode, 404);
    assert.equal(errorOf(reused).code, 'invitation_invalid');
  });

  test('an unknown subject without invitation is 404 subject_unknown; an expired invitation is invitation_invalid', async () => {
    const unknown = await resolve({ subject: 'sub-nobody' });
    assert.equal(unknown.statusCode, 404);
    assert.equal(errorOf(unknown).code, 'subject_unknown');
    const invited = await invite();
    t.clock.advance(7 * 24 * 3600 * 1000 + 1000);
    const expired = await resolve({ subject: 'sub-late', invitation_token: invited.invitation_token });
    assert.equal(expired.statusCode, 404);
    assert.equal(errorOf(expired).code, 'invitation_invalid');
    const rows = await queryRows<{ subject: string | null }>(t.database.db, sql`SELECT subject FROM operators WHERE id = ${invited.operator.id}`);
    assert.equal(rows[0].subject, null, 'nothing was attached');
  });

  test('a subject already attached cannot consume another invitation, which stays usable', async () => {
    const a = await invite();
    assert.equal((await resolve({ subject: 'sub-twice', invitation_token: a.invitation_token })).statusCode, 200);
    const b = await invite();
    const clash = await resolve({ subject: 'sub-twice', invitation_token: b.invitation_token });
    assert.equal(clash.statusCode, 409);
    assert.equal(errorOf(clash).code, 'subject_already_attached');
    const other = await resolve({ subject: 'sub-third', invitation_token: b.invitation_token });
    assert.equal(other.statusCode, 200);
    assert.equal(other.json().operator.id, b.operator.id);
  });

  test('two subjects racing with one invitation: exactly one is attached', async () => {
    const inv = await invite();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => resolve({ subject: `sub-race-${i}`, invitation_token: inv.invitation_token })),
    );
    const won = results.filter((r) => r.statusCode === 200);
    assert.equal(won.length, 1, results.map((r) => r.statusCode).join(','));
    for (const r of results.filter((x) => x.statusCode !== 200)) assert.equal(errorOf(r).code, 'invitation_invalid');
    const rows = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM operators WHERE subject LIKE 'sub-race-%'`);
    assert.equal(Number(rows[0].n), 1);
  });

  test('resolve takes a console credential only; an integration key gets 403 console_credential_required', async () => {
    const res = await resolve({ subject: 'sub-x' }, t.demoKey);
    assert.equal(res.statusCode, 403);
    assert.equal(errorOf(res).code, 'console_credential_required');
  });

  test('a revoked operator resolves to 403 operator_revoked', async () => {
    const op = await addOperator(t, { role: 'reviewer', status: 'revoked' });
    const res = await resolve({ subject: op.subject! });
    assert.equal(res.statusCode, 403);
    assert.equal(errorOf(res).code, 'operator_revoked');
  });

  test('validation: unknown fields, bad countries, bad roles, over-long names', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    const cases: [Record<string, unknown>, number, string, string][] = [
      [{ ...newOperator, colour: 'blue' }, 422, 'parameter_unknown', 'colour'],
      [{ ...newOperator, countries: ['XX'] }, 422, 'invalid_country', 'countries'],
      [{ ...newOperator, countries: ['fr'] }, 422, 'parameter_invalid', 'countries.0'],
      [{ ...newOperator, countries: [] }, 422, 'parameter_invalid', 'countries'],
      [{ ...newOperator, role: 'owner' }, 422, 'parameter_invalid', 'role'],
      [{ ...newOperator, sensitivity: 'secret' }, 422, 'parameter_invalid', 'sensitivity'],
      [{ ...newOperator, name: 'x'.repeat(201) }, 422, 'parameter_invalid', 'name'],
      [{ ...newOperator, email: 'not-an-address' }, 422, 'parameter_invalid', 'email'],
    ];
    for (const [body, status, code, field] of cases) {
      const res = await t.asOperator(admin, 'POST', '/v1/operators', { body, reauth: true });
      assert.equal(res.statusCode, status, `${JSON.stringify(body)} → ${res.body}`);
      assert.equal(errorOf(res).code, code);
      assert.equal(errorOf(res).field, field);
    }
    const long = await resolve({ subject: 's'.repeat(256) });
    assert.equal(errorOf(long).code, 'parameter_invalid');
  });
});

describe('directory, list, clearance changes and revocation', () => {
  test('the directory gives names only; the list is for administrators', async () => {
    const reviewer = await addOperator(t, { role: 'reviewer', name: 'Zoë Directory' });
    const dir = await t.asOperator(reviewer, 'GET', '/v1/operators/directory');
    assert.equal(dir.statusCode, 200);
    const entry = dir.json().data.find((o: { id: string }) => o.id === reviewer.id);
    assert.deepEqual(Object.keys(entry).sort(), ['id', 'name']);
    const denied = await t.asOperator(reviewer, 'GET', '/v1/operators');
    assert.equal(denied.statusCode, 403);
    assert.equal(errorOf(denied).code, 'operator_role_insufficient');
    const admin = await addOperator(t, { role: 'administrator' });
    const list = await t.asOperator(admin, 'GET', '/v1/operators?limit=2');
    assert.equal(list.statusCode, 200);
    assert.equal(list.json().data.length, 2);
    assert.equal(list.json().has_more, true);
    const next = await t.asOperator(admin, 'GET', `/v1/operators?limit=100&starting_after=${list.json().next_cursor}`);
    assert.ok(next.json().data.every((o: { id: string }) => o.id > list.json().next_cursor));
    assert.ok('last_connection_at' in list.json().data[0] && 'countries' in list.json().data[0]);
  });

  test('a clearance change applies to the very next request', async () => {
    const { taskId } = await caseInReview(t, { country: 'FR' });
    const reviewer = await addOperator(t, { role: 'reviewer', countries: ['FR'], sensitivity: 'standard' });
    const admin = await addOperator(t, { role: 'administrator' });
    assert.equal((await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}`)).statusCode, 200);
    const patched = await t.asOperator(admin, 'PATCH', `/v1/operators/${reviewer.id}`, { body: { countries: ['DE'] }, reauth: true });
    assert.equal(patched.statusCode, 200, patched.body);
    assert.deepEqual(patched.json().countries, ['DE']);
    const hidden = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}`);
    assert.equal(hidden.statusCode, 404);
    const role = await t.asOperator(admin, 'PATCH', `/v1/operators/${reviewer.id}`, { body: { role: 'support', countries: ['FR'] }, reauth: true });
    assert.equal(role.statusCode, 200);
    const support = await t.asOperator(reviewer, 'GET', `/v1/reviews/${taskId}`);
    assert.equal(support.statusCode, 403);
    assert.equal(errorOf(support).code, 'operator_role_insufficient');
    const empty = await t.asOperator(admin, 'PATCH', `/v1/operators/${reviewer.id}`, { body: {}, reauth: true });
    assert.equal(empty.statusCode, 422);
    const self = await t.asOperator(admin, 'PATCH', `/v1/operators/${admin.id}`, { body: { role: 'reviewer' }, reauth: true });
    assert.equal(self.statusCode, 409);
    assert.equal(errorOf(self).code, 'operator_self_change');
  });

  test('revocation applies to the next request, releases locks, and a second one says already revoked', async () => {
    const { taskId } = await caseInReview(t);
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const admin = await addOperator(t, { role: 'administrator' });
    assert.equal((await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200);
    const revoked = await t.asOperator(admin, 'POST', `/v1/operators/${reviewer.id}/revoke`, { reauth: true });
    assert.equal(revoked.statusCode, 204, revoked.body);
    const next = await t.asOperator(reviewer, 'GET', '/v1/operators/directory');
    assert.equal(next.statusCode, 403);
    assert.equal(errorOf(next).code, 'operator_revoked');
    const task = await t.asOperator(admin, 'GET', `/v1/reviews/${taskId}`);
    assert.equal(task.json().lock, null, 'the revoked operator’s lock is released');
    const twice = await t.asOperator(admin, 'POST', `/v1/operators/${reviewer.id}/revoke`, { reauth: true });
    assert.equal(twice.statusCode, 409);
    assert.equal(errorOf(twice).code, 'operator_already_revoked');
    const missing = await t.asOperator(admin, 'POST', '/v1/operators/op_01m7ym09t80f4fggxqxy1yr50c/revoke', { reauth: true });
    assert.equal(missing.statusCode, 404);
    const self = await t.asOperator(admin, 'POST', `/v1/operators/${admin.id}/revoke`, { reauth: true });
    assert.equal(errorOf(self).code, 'operator_self_change');
  });

  test('operators of another client are invisible', async () => {
    const other = await otherClient(t);
    const foreign = await addOperator(t, { role: 'administrator', tenant: { clientId: other.clientId, environment: 'sandbox' } });
    const admin = await addOperator(t, { role: 'administrator' });
    const res = await t.asOperator(admin, 'POST', `/v1/operators/${foreign.id}/revoke`, { reauth: true });
    assert.equal(res.statusCode, 404);
    // A console key of this client cannot act as the other client's operator.
    const asForeign = await t.asOperator(foreign, 'GET', '/v1/operators/directory');
    assert.equal(asForeign.statusCode, 401);
    assert.equal(errorOf(asForeign).code, 'operator_unknown');
    const otherConsole = await issueKey(t, { clientId: other.clientId, kind: 'console' });
    const list = await t.request('GET', '/v1/operators?limit=100', { key: otherConsole, headers: { 'x-service-operator': foreign.id } });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(list.json().data.map((o: { id: string }) => o.id), [foreign.id]);
  });
});

describe('re-authentication proof (X-Service-Reauthenticated-At)', () => {
  const body = { name: 'Re Auth', role: 'reviewer', countries: ['FR'], sensitivity: 'standard' };
  const attempt = async (proof: (sub: string) => Promise<string | undefined>) => {
    const admin = await addOperator(t, { role: 'administrator' });
    const token = await proof(admin.subject!);
    return t.asOperator(admin, 'POST', '/v1/operators', { body, headers: token ? { 'x-service-reauthenticated-at': token } : {} });
  };

  test('accepted up to five minutes after auth_time, refused after', async () => {
    const fresh = await attempt((sub) => t.idp.idToken(sub, t.nowS() - 299));
    assert.equal(fresh.statusCode, 201, fresh.body);
    const stale = await attempt((sub) => t.idp.idToken(sub, t.nowS() - 301));
    assert.equal(stale.statusCode, 403);
    assert.equal(errorOf(stale).code, 'reauth_required');
  });

  const refusals: [string, (sub: string) => Promise<string | undefined>, string][] = [
    ['missing', async () => undefined, 'reauth_required'],
    ['a bare timestamp', async () => String(Math.floor(Date.now() / 1000)), 'reauth_invalid'],
    ['another subject', async () => t.idp.idToken('someone-else', t.nowS()), 'reauth_invalid'],
    ['a key the provider never published', async (sub) => t.idp.forgedToken(sub, t.nowS()), 'reauth_invalid'],
    ['another audience', async (sub) => t.idp.idToken(sub, t.nowS(), { audience: 'other-app' }), 'reauth_invalid'],
    ['another issuer', async (sub) => t.idp.idToken(sub, t.nowS(), { issuer: 'https://evil.example' }), 'reauth_invalid'],
    ['an expired token', async (sub) => t.idp.idToken(sub, t.nowS() - 120, { expiresIn: 60 }), 'reauth_required'],
    ['a tampered payload', async (sub) => {
      const [h, , s] = (await t.idp.idToken('someone-else', t.nowS())).split('.');
      const payload = Buffer.from(JSON.stringify({ sub, auth_time: t.nowS(), iss: t.idp.issuer, aud: t.idp.audience, iat: t.nowS(), exp: t.nowS() + 60 })).toString('base64url');
      return `${h}.${payload}.${s}`;
    }, 'reauth_invalid'],
  ];
  for (const [name, proof, code] of refusals) {
    test(`refused: ${name} → 403 ${code}`, async () => {
      const res = await attempt(proof);
      assert.equal(res.statusCode, 403, res.body);
      assert.equal(errorOf(res).code, code);
    });
  }

  test('the service clock decides freshness: the same token goes stale when the clock moves', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    const token = await t.idp.idToken(admin.subject!, t.nowS());
    const headers = { 'x-service-reauthenticated-at': token };
    assert.equal((await t.asOperator(admin, 'POST', '/v1/operators', { body, headers })).statusCode, 201);
    t.clock.advance(301_000);
    const later = await t.asOperator(admin, 'POST', '/v1/operators', { body, headers });
    assert.equal(later.statusCode, 403);
    assert.equal(errorOf(later).code, 'reauth_required');
  });
});
