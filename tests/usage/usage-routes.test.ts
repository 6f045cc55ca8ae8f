import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request } from 'node:http';
import { sql } from 'drizzle-orm';
import { USAGE_SERVICES } from '@idv/domain';
import type { LightMyRequestResponse } from 'fastify';
import { queryRows } from '@idv/db';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { TEST_DB } from '../helpers/database.ts';
import { IMAGES, STANDARD_WITH_STILLS, activateFlow, fixture, journey, newSession } from '../helpers/journey.ts';
import { addOperator } from '../helpers/operators.ts';
import { PERSONS, journeyThrough, openCaseFor, sendToReview, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';
import { issueKey, otherClient } from '../helpers/tenants.ts';

let t: PersonalDataTestApp;
let dataKey: Credentials;
let prodKey: Credentials;
before(async () => {
  t = await startPersonalDataApp();
  dataKey = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['personal_data'], name: 'dpo' });
  prodKey = await issueKey(t, { clientId: t.tenant.clientId, environment: 'prod', name: 'production' });
  await activateFlow(t, t.tenant.clientId, 'prod', 'standard', STANDARD_WITH_STILLS);
});
after(() => t.close());

const period = () => t.clock.now().toISOString().slice(0, 7);
const zeros = () => Object.fromEntries(USAGE_SERVICES.map((s) => [s, 0]));

async function usage(key?: Credentials, p = period()): Promise<Record<string, number>> {
  const res = await t.request('GET', `/v1/usage?period=${p}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  const body = res.json();
  assert.equal(body.object, 'usage');
  assert.equal(body.period, p);
  return body.services;
}

/** The export's data lines, each as its four fields (the header checked). */
function lines(res: LightMyRequestResponse): { occurred_at: string; service: string; quantity: string; case_id: string }[] {
  assert.equal(res.statusCode, 200, res.body);
  assert.ok(res.body.endsWith('\r\n'), 'every record ends with CRLF');
  const [header, ...rows] = res.body.slice(0, -2).split('\r\n');
  assert.equal(header, 'occurred_at,service,quantity,case_id');
  return rows.filter((r) => r !== '').map((r) => {
    const [occurred_at, service, quantity, case_id, ...rest] = r.split(',');
    assert.deepEqual(rest, [], `four fields: ${r}`);
    return { occurred_at, service, quantity, case_id };
  });
}

const exportOf = (key?: Credentials, p = period()) => t.request('GET', `/v1/usage/export?period=${p}`, { key });

function totalsOf(rows: ReturnType<typeof lines>): Record<string, number> {
  const totals: Record<string, number> = zeros();
  for (const r of rows) totals[r.service] += Number(r.quantity);
  return totals;
}

async function decide(taskId: string, body: Record<string, unknown>) {
  const reviewer = await addOperator(t, { role: 'reviewer' });
  const claimed = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/claim`);
  assert.equal(claimed.statusCode, 200, claimed.body);
  const res = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/decision`, { body });
  assert.equal(res.statusCode, 201, res.body);
  t.clock.advance(1000);
}

/** Makes the next journal entry of `action` fail inside its transaction: the act crashes after metering, before its commit. */
async function failJournal(action: string) {
  await t.database.db.execute(
    sql.raw(`CREATE FUNCTION usage_test_crash() RETURNS trigger LANGUAGE plpgsql AS $$
             BEGIN IF NEW.action = '${action}' THEN RAISE EXCEPTION 'crash before commit'; END IF; RETURN NEW; END $$`),
  );
  await t.database.db.execute(sql.raw('CREATE TRIGGER usage_test_crash BEFORE INSERT ON case_journal FOR EACH ROW EXECUTE FUNCTION usage_test_crash()'));
}
async function repair() {
  await t.database.db.execute(sql.raw('DROP TRIGGER usage_test_crash ON case_journal'));
  await t.database.db.execute(sql.raw('DROP FUNCTION usage_test_crash()'));
}

let sandboxCase: string;

describe('metering through the acts that cause it', () => {
  test('verification, review, resubmission and erasure: each once, with the case id; a retried or crashed act never counts twice nor zero times', async () => {
    assert.deepEqual(await usage(), zeros(), 'a month with nothing: zeros');
    const person = PERSONS[0];
    sandboxCase = await openCaseFor(t, person);
    assert.deepEqual(await usage(), zeros(), 'opening a case costs nothing');

    // The journey's finish crashes after its unit was written: nothing is counted; done again, once.
    await failJournal('journey.submitted');
    const token = await newSession(t, sandboxCase);
    await assert.rejects(journeyThrough(t, sandboxCase, person, undefined, token), (err: Error) => /internal_error/.test(err.message));
    assert.deepEqual(await usage(), zeros(), 'the crashed finish left no unit');
    await repair();
    const finishes = await Promise.all(Array.from({ length: 4 }, () => journey(t, 'POST', '/finish', token)));
    assert.equal(finishes.filter((r) => r.statusCode === 200).length, 1, finishes.map((r) => r.body).join('\n'));
    assert.equal((await journey(t, 'POST', '/finish', token)).statusCode, 409, 'a finished journey cannot finish again');
    assert.deepEqual(await usage(), { ...zeros(), verification: 1 });

    // Review asks for a new selfie: one review; the second round is a resubmission, not a verification.
    await decide(await sendToReview(t, sandboxCase), { outcome: 'resubmit', steps: ['face'], reason_code: 'face_unclear' });
    for (const [kind, image] of [['selfie', IMAGES.selfie], ['liveness_turn_left', IMAGES.turnLeft], ['liveness_turn_right', IMAGES.turnRight]]) {
      const retake = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes: fixture(image) });
      assert.equal(retake.statusCode, 200, retake.body);
    }
    const second = await journey(t, 'POST', '/finish', token);
    assert.equal(second.statusCode, 200, second.body);
    await decide(await sendToReview(t, sandboxCase), { outcome: 'approve' });
    assert.deepEqual(await usage(), { ...zeros(), verification: 1, review: 2, resubmission: 1 });

    // Erasure: the request replayed (same Idempotency-Key) or sent again adds nothing.
    const idem = randomUUID();
    const erase = (idempotencyKey = randomUUID()) => t.request('POST', `/v1/cases/${sandboxCase}/erasure`, { signed: true, key: dataKey, idempotencyKey });
    for (const res of [await erase(idem), await erase(idem), await erase()]) assert.equal(res.statusCode, 200, res.body);
    const totals = await usage();
    assert.deepEqual(totals, { verification: 1, review: 2, resubmission: 1, erasure: 1 });

    const rows = lines(await exportOf());
    assert.deepEqual(totalsOf(rows), totals, 'the export adds up to the totals');
    assert.ok(rows.every((r) => r.case_id === sandboxCase && r.quantity === '1'));
    assert.deepEqual(rows.map((r) => r.service), ['verification', 'review', 'resubmission', 'review', 'erasure'], 'by instant');
    for (const r of rows) assert.match(r.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('a key’s decision is not a review; an operator’s concluded task is, once', async () => {
    const before = await usage();
    const caseId = await openCaseFor(t, PERSONS[1]);
    await journeyThrough(t, caseId, PERSONS[1]);
    await sendToReview(t, caseId);
    const deciderKey = await issueKey(t, { clientId: t.tenant.clientId, permissions: ['decisions'] });
    const res = await t.request('POST', `/v1/cases/${caseId}/decision`, { signed: true, key: deciderKey, body: { outcome: 'approve' } });
    assert.equal(res.statusCode, 201, res.body);
    assert.deepEqual(await usage(), { ...before, verification: before.verification + 1 });
  });

  test('sandbox and production are metered apart', async () => {
    const sandboxBefore = await usage();
    assert.deepEqual(await usage(prodKey), zeros());
    const created = await t.request('POST', '/v1/cases', { key: prodKey, signed: true, body: { flow_name: 'standard', country: 'FR' } });
    assert.equal(created.statusCode, 201, created.body);
    const prodCase = created.json().id as string;
    const token = await newSession(t, prodCase, 'en', prodKey);
    await journeyThrough(t, prodCase, PERSONS[2], undefined, token);
    assert.deepEqual(await usage(prodKey), { ...zeros(), verification: 1 });
    assert.deepEqual(await usage(), sandboxBefore, 'production units are not in the sandbox');
    const prodRows = lines(await exportOf(prodKey));
    assert.deepEqual(prodRows.map((r) => r.case_id), [prodCase]);
    assert.ok(!lines(await exportOf()).some((r) => r.case_id === prodCase));
    // Another client sees nothing of either.
    const other = await otherClient(t);
    assert.deepEqual(await usage(other.key), zeros());
    assert.deepEqual(lines(await exportOf(other.key)), []);
  });
});

describe('GET /v1/usage/export', () => {
  test('text/csv in UTF-8 with a file name; never a declared, entered or read name, nor a document number', async () => {
    const res = await exportOf();
    assert.equal(res.headers['content-type'], 'text/csv; charset=utf-8; header=present');
    assert.equal(res.headers['content-disposition'], `attachment; filename="usage-${period()}-sandbox.csv"`);
    assert.equal(res.headers['cache-control'], 'no-store');
    assert.ok(lines(res).length >= 6);
    const text = res.body.toLowerCase();
    for (const p of PERSONS) {
      const values = [...Object.values(p.declared), ...Object.values(p.entered), ...Object.values(p.read)]
        .filter((v) => !/^\d{4}-\d\d-\d\d$/.test(v) && v.length > 2)
        .flatMap((v) => [v, ...v.split(/[\s<-]+/)])
        .filter((v) => v.length > 2);
      for (const v of values) assert.ok(!text.includes(v.toLowerCase()), `the export holds ${v}`);
    }
  });

  test('a client that goes away mid-export ends the export: its COPY (or page reads) and connection are given back', async () => {
    const units = 100_000;
    await t.database.db.execute(sql`
      INSERT INTO usage_units (source_key, client_id, environment, service, case_id, quantity, occurred_at)
      SELECT 'verification:case_gone' || g, ${t.tenant.clientId}, ${t.tenant.environment}, 'verification', 'case_gone' || g, 1,
             timestamptz '2019-06-01T00:00:00Z' + g * interval '1 second'
      FROM generate_series(1, ${units}) AS g`);
    // Exports running on the server: their COPY and its transaction end once the service sees the connection gone.
    const openExports = async () =>
      TEST_DB === 'postgres'
        ? Number(
            (await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND query LIKE 'COPY (SELECT % FROM usage_units%' AND (state = 'active' OR state LIKE 'idle in transaction%')`))[0].n,
          )
        : 0;
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    // A plain HTTP client whose socket is destroyed after the first chunk: the client gone.
    const firstChunk = await new Promise<{ status: number; chunk: Buffer; destroy: () => void }>((resolve, reject) => {
      const req = request(`${address}/v1/usage/export?period=2019-06`, { headers: { authorization: `Bearer ${t.demoKey.secret}` } }, (res) => {
        res.once('data', (chunk: Buffer) => {
          res.pause();
          resolve({ status: res.statusCode!, chunk, destroy: () => req.destroy() });
        });
      });
      req.on('error', (err) => (err.message === 'socket hang up' ? undefined : reject(err)));
      req.end();
    });
    assert.equal(firstChunk.status, 200);
    assert.ok(firstChunk.chunk.length > 0);
    // The export is still running on the server while this client holds it back (so that the
    // check below, after it goes away, can fail).
    if (TEST_DB === 'postgres') assert.ok((await openExports()) > 0, 'the export runs while the client reads');
    firstChunk.destroy();
    for (let i = 0; i < 200 && (await openExports()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await openExports(), 0, 'no export left open');
    // The whole month is still there for the next client.
    const again = await exportOf(undefined, '2019-06');
    assert.equal(lines(again).length, units);
    // And the server holds no connection of it (nothing left for the shutdown to wait on).
    const open = () => new Promise<number>((r, j) => t.app.server.getConnections((e, n) => (e ? j(e) : r(n))));
    for (let i = 0; i < 100 && (await open()) > 0; i++) await new Promise((r) => setTimeout(r, 50));
    assert.equal(await open(), 0, 'no connection left open');
  });

  test('a month with nothing: the header alone; usage totals zeros', async () => {
    assert.deepEqual(lines(await exportOf(undefined, '2019-02')), []);
    assert.deepEqual(await usage(undefined, '2019-02'), zeros());
  });
});

describe('period and access', () => {
  for (const path of ['/v1/usage', '/v1/usage/export']) {
    test(`${path}: a period not YYYY-MM with a month 01 to 12 is 422 in the validation shape; a key is needed`, async () => {
      for (const bad of ['2026-13', '2026-00', '2026-1', '26-11', '2026-11-01', '2026/11', 'now', '']) {
        const res = await t.request('GET', `${path}?period=${encodeURIComponent(bad)}`);
        assert.equal(res.statusCode, 422, `${bad}: ${res.body}`);
        const err = errorOf(res);
        assert.equal(err.type, 'validation_error');
        assert.equal(err.code, 'parameter_invalid');
        assert.equal(err.field, 'period');
      }
      const missing = await t.request('GET', path);
      assert.equal(missing.statusCode, 422);
      assert.equal(errorOf(missing).code, 'parameter_missing');
      const unknown = await t.request('GET', `${path}?period=2026-11&service=review`);
      assert.equal(errorOf(unknown).code, 'parameter_unknown');
      const anonymous = await t.request('GET', `${path}?period=2026-11`, { key: null });
      assert.equal(anonymous.statusCode, 401);
      assert.equal(errorOf(anonymous).code, 'api_key_missing');
    });
  }
});
