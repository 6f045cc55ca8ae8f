import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { insertActiveOperator } from '@idv/db';
import { newId } from '@idv/domain';
import { errorOf, startTestApp, type ConsoleCredentials, type Credentials, type TestApp } from '../helpers/app.ts';
import { activateStandardFlow, issueKey, otherClient } from '../helpers/tenants.ts';

const DAY = 86_400_000;

let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Day {
  date: string;
  total: number;
  by_status: { status: number; calls: number }[];
}

const today = () => t.clock.now().toISOString().slice(0, 10);
const dayOffset = (n: number) => new Date(Date.parse(today()) + n * DAY).toISOString().slice(0, 10);

async function usage(key?: Credentials | ConsoleCredentials, query = '', headers?: Record<string, string>): Promise<{ object: string; days: number; data: Day[] }> {
  const res = await t.request('GET', `/v1/api-usage${query}`, { key, headers });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}
async function countsOn(date: string, key?: Credentials | ConsoleCredentials, headers?: Record<string, string>): Promise<Record<number, number>> {
  const entry = (await usage(key, '', headers)).data.find((d) => d.date === date);
  assert.ok(entry, `an entry for ${date}`);
  assert.equal(entry.total, entry.by_status.reduce((s, x) => s + x.calls, 0), 'total is the sum of the codes');
  return Object.fromEntries(entry.by_status.map((s) => [s.status, s.calls]));
}

const newCase = (key?: Credentials) => t.request('POST', '/v1/cases', { key, signed: true, body: { flow_name: 'standard', country: 'FR' } });
const notFound = (key?: Credentials) => t.request('GET', '/v1/cases/case_01m7ym09t80f4fggxqxy1yr50c', { key });
const invalid = (key?: Credentials) => t.request('GET', '/v1/cases?limit=0', { key });

describe('GET /v1/api-usage', () => {
  test('counts integration calls per day and per response code', async () => {
    assert.equal((await newCase()).statusCode, 201);
    assert.equal((await newCase()).statusCode, 201);
    for (let i = 0; i < 3; i++) assert.equal((await notFound()).statusCode, 404);
    assert.equal((await invalid()).statusCode, 422);
    // Refused before a key is known: nobody to count them for.
    assert.equal((await t.request('GET', '/v1/cases', { key: null })).statusCode, 401);

    const first = await usage();
    assert.equal(first.object, 'api_usage');
    const entry = first.data.find((d) => d.date === today())!;
    assert.deepEqual(entry.by_status, [
      { status: 201, calls: 2 },
      { status: 404, calls: 3 },
      { status: 422, calls: 1 },
    ]);
    assert.equal(entry.total, 6);
    // The read itself is an integration call: it shows in the next read.
    assert.deepEqual(await countsOn(today()), { 200: 1, 201: 2, 404: 3, 422: 1 });
  });

  test('days: default 30 entries ending today, 1 to 90, else 422', async () => {
    const def = await usage();
    assert.equal(def.days, 30);
    assert.equal(def.data.length, 30);
    assert.equal(def.data[29].date, today());
    assert.equal(def.data[0].date, dayOffset(-29));
    for (let i = 1; i < 30; i++) assert.equal(Date.parse(def.data[i].date) - Date.parse(def.data[i - 1].date), DAY, 'consecutive days, oldest first');
    const one = await usage(undefined, '?days=1');
    assert.deepEqual(one.data.map((d) => d.date), [today()]);
    const ninety = await usage(undefined, '?days=90');
    assert.equal(ninety.data.length, 90);
    assert.equal(ninety.data[0].date, dayOffset(-89));
    for (const q of ['days=0', 'days=91', 'days=-1', 'days=ten', 'days=1.5']) {
      const res = await t.request('GET', `/v1/api-usage?${q}`);
      assert.equal(res.statusCode, 422, `${q}: ${res.body}`);
      const err = errorOf(res);
      assert.equal(err.code, 'parameter_invalid');
      assert.equal(err.field, 'days');
    }
    const unknown = await t.request('GET', '/v1/api-usage?period=2026-01');
    assert.equal(errorOf(unknown).code, 'parameter_unknown');
  });

  test("another client's calls are not visible, nor the production environment's; each sees its own", async () => {
    const mine = await countsOn(today());
    const other = await otherClient(t);
    for (let i = 0; i < 5; i++) assert.equal((await notFound(other.key)).statusCode, 404);
    assert.equal((await newCase(other.key)).statusCode, 201);
    await activateStandardFlow(t, t.demo.client_id, 'prod');
    const prod = await issueKey(t, { clientId: t.demo.client_id, environment: 'prod' });
    for (let i = 0; i < 4; i++) assert.equal((await notFound(prod)).statusCode, 404);

    const after = await countsOn(today());
    // Only my own reads of usage were added meanwhile (each read is a 200).
    assert.deepEqual({ ...after, 200: 0 }, { ...mine, 200: 0 });
    assert.equal(after[200], mine[200] + 1);
    assert.deepEqual(await countsOn(today(), other.key), { 201: 1, 404: 5 });
    assert.deepEqual(await countsOn(today(), prod), { 404: 4 });
  });

  test('console calls are not counted', async () => {
    const consoleKey = await issueKey(t, { clientId: t.demo.client_id, kind: 'console' });
    const now = t.clock.now();
    const tenant = { clientId: t.demo.client_id, environment: 'sandbox' as const };
    const admin = await insertActiveOperator(t.database.db, tenant, { id: newId('op', now.getTime()), name: 'Usage Admin', role: 'administrator', subject: 'sub-usage-admin', createdBy: 'test' }, now);
    // The console calls the client's settings for an operator it names.
    const headers = { 'x-service-operator': admin.id };
    const before = await countsOn(today());
    for (let i = 0; i < 3; i++) assert.equal((await t.request('GET', '/v1/api-keys', { key: consoleKey, headers })).statusCode, 200);
    // On an integration route the console credential is refused (it does operator-bound work only): not counted either.
    for (let i = 0; i < 2; i++) assert.equal((await t.request('GET', '/v1/cases/case_01m7ym09t80f4fggxqxy1yr50c', { key: consoleKey, headers })).statusCode, 403);
    assert.equal((await t.request('GET', '/v1/api-keys?limit=0', { key: consoleKey, headers })).statusCode, 422);
    assert.equal((await t.request('GET', '/v1/api-keys', { key: consoleKey })).statusCode, 401, 'no operator named: refused, and not counted either');
    // Read through the console key: its own calls (including this read) are absent.
    const seenByConsole = await countsOn(today(), consoleKey, headers);
    assert.deepEqual(seenByConsole, { ...before, 200: before[200] + 1 }, 'only the integration read before it was added');
    const after = await countsOn(today());
    assert.deepEqual(after, { ...before, 200: before[200] + 1 });
  });

  test('calls land on the day of the service clock', async () => {
    const start = t.clock.now();
    const day0 = today();
    const before0 = await countsOn(day0);
    t.clock.advance(DAY);
    const day1 = today();
    assert.notEqual(day1, day0);
    for (let i = 0; i < 2; i++) assert.equal((await notFound()).statusCode, 404);
    assert.equal((await newCase()).statusCode, 201);
    t.clock.advance(3 * DAY);
    const day4 = today();
    assert.equal((await invalid()).statusCode, 422);

    const read = await usage(undefined, '?days=5');
    assert.deepEqual(read.data.map((d) => d.date), [day0, day1, dayOffset(-2), dayOffset(-1), day4]);
    const byDate = Object.fromEntries(read.data.map((d) => [d.date, Object.fromEntries(d.by_status.map((s) => [s.status, s.calls]))]));
    assert.deepEqual(byDate[day0], { ...before0, 200: before0[200] + 1 }, 'day 0 kept its counts plus the read made on it');
    assert.deepEqual(byDate[day1], { 201: 1, 404: 2 });
    assert.deepEqual(byDate[dayOffset(-2)], {});
    assert.deepEqual(byDate[dayOffset(-1)], {});
    assert.equal(read.data[2].total, 0);
    assert.deepEqual(byDate[day4], { 422: 1 });
    // Four days later, a one-day window no longer shows day 0.
    assert.deepEqual((await usage(undefined, '?days=1')).data.map((d) => d.date), [day4]);
    t.clock.set(start);
  });
});
