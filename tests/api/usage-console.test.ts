import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { USAGE_SERVICES } from '@idv/domain';
import { errorOf } from '../helpers/app.ts';
import { addOperator, caseInReview, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * The usage and contract routes through the console (ability readUsage: administrator and
 * supervisor), the per-day usage series (GET /v1/usage/daily) and the metrics' per-day series.
 * Console calls are never counted in GET /v1/api-usage.
 */
let t: ReviewTestApp;
before(async () => {
  t = await startReviewApp();
});
after(() => t.close());

const DAY = 86_400_000;
const period = () => t.clock.now().toISOString().slice(0, 7);
const ROUTES = () => [`/v1/usage?period=${period()}`, `/v1/usage/export?period=${period()}`, `/v1/usage/daily?period=${period()}`, '/v1/api-usage?days=3', '/v1/contract'];

describe('usage and contract through the console', () => {
  test('administrators and supervisors read them; reviewers and support are refused; an operator is required; an integration key still reads them', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    const supervisor = await addOperator(t, { role: 'supervisor' });
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const support = await addOperator(t, { role: 'support' });
    const revoked = await addOperator(t, { role: 'administrator', status: 'revoked' });
    for (const url of ROUTES()) {
      for (const op of [admin, supervisor]) {
        const res = await t.asOperator(op, 'GET', url);
        assert.equal(res.statusCode, 200, `${op.role} ${url}: ${res.body}`);
      }
      for (const op of [reviewer, support]) {
        const res = await t.asOperator(op, 'GET', url);
        assert.equal(res.statusCode, 403, `${op.role} ${url}`);
        assert.equal(errorOf(res).code, 'operator_role_insufficient');
      }
      assert.equal(errorOf(await t.asOperator(revoked, 'GET', url)).code, 'operator_revoked');
      const noOperator = await t.request('GET', url, { key: t.consoleKey });
      assert.equal(noOperator.statusCode, 401, url);
      assert.equal(errorOf(noOperator).code, 'operator_required');
      const integration = await t.request('GET', url);
      assert.equal(integration.statusCode, 200, `${url}: ${integration.body}`);
    }
    // The same answer whoever asks: the console reads the client's own figures.
    const byKey = (await t.request('GET', '/v1/contract')).json();
    assert.deepEqual((await t.asOperator(admin, 'GET', '/v1/contract')).json(), byKey);
  });

  test('console calls are not counted in GET /v1/api-usage; integration calls are', async () => {
    const admin = await addOperator(t, { role: 'administrator' });
    const total = async () => {
      const res = await t.asOperator(admin, 'GET', '/v1/api-usage?days=1');
      assert.equal(res.statusCode, 200, res.body);
      return res.json().data.at(-1).total as number;
    };
    const before = await total();
    for (const url of ROUTES()) await t.asOperator(admin, 'GET', url);
    assert.equal(await total(), before, 'console calls (and the reads of the count itself) add nothing');
    await t.request('GET', '/v1/contract');
    await t.request('GET', `/v1/usage?period=${period()}`);
    assert.equal(await total(), before + 2, 'two integration calls');
  });
});

describe('GET /v1/usage/daily', () => {
  test('one entry per UTC day of the month, units summed per day and service, zeros elsewhere, other months and tenants apart', async () => {
    const insert = (key: string, service: string, quantity: number, at: string, environment = 'sandbox', client = t.tenant.clientId) =>
      t.database.db.execute(sql`INSERT INTO usage_units (source_key, client_id, environment, service, case_id, quantity, occurred_at)
                                VALUES (${key}, ${client}, ${environment}, ${service}, 'case_x', ${quantity}, ${at}::timestamptz)`);
    await insert('d1', 'verification', 1, '2024-02-01T00:00:00Z');
    await insert('d2', 'verification', 1, '2024-02-01T23:59:59.999Z');
    await insert('d3', 'review', 2, '2024-02-01T12:00:00Z');
    await insert('d4', 'erasure', 1, '2024-02-29T23:59:59Z');
    await insert('d5', 'verification', 1, '2024-03-01T00:00:00Z');
    await insert('d6', 'verification', 1, '2024-01-31T23:59:59Z');
    await insert('d7', 'verification', 5, '2024-02-10T10:00:00Z', 'prod');
    await insert('d8', 'verification', 7, '2024-02-10T10:00:00Z', 'sandbox', 'cli_other');
    const res = await t.request('GET', '/v1/usage/daily?period=2024-02');
    assert.equal(res.statusCode, 200, res.body);
    const body = res.json();
    assert.equal(body.object, 'usage_daily');
    assert.equal(body.environment, 'sandbox');
    assert.equal(body.data.length, 29, 'February of a leap year');
    assert.equal(body.data[0].date, '2024-02-01');
    assert.equal(body.data[28].date, '2024-02-29');
    const zero = Object.fromEntries(USAGE_SERVICES.map((s) => [s, 0]));
    assert.deepEqual(body.data[0], { date: '2024-02-01', ...zero, verification: 2, review: 2 });
    assert.deepEqual(body.data[28], { date: '2024-02-29', ...zero, erasure: 1 });
    assert.deepEqual(body.data[9], { date: '2024-02-10', ...zero }, 'production and another client are apart');
    // The days add up to the month's units as the export lists them.
    const exported = (await t.request('GET', '/v1/usage/export?period=2024-02')).body.trim().split('\r\n').length - 1;
    assert.equal(exported, 4);
    assert.equal(errorOf(await t.request('GET', '/v1/usage/daily?period=2024-13')).code, 'parameter_invalid');
  });
});

describe('GET /v1/reviews/metrics: the per-day series', () => {
  test('every UTC day of the window, tasks opened and closed per day with outcomes and median decision time; outside the clearance nothing', async () => {
    const sup = await addOperator(t, { role: 'supervisor', countries: ['FR'] });
    const reviewer = await addOperator(t, { role: 'reviewer' });
    const since = t.clock.now();
    const day = (offset: number) => new Date(since.getTime() + offset * DAY).toISOString().slice(0, 10);
    const decide = async (taskId: string, body: Record<string, unknown>) => {
      assert.equal((await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/claim`)).statusCode, 200);
      const res = await t.asOperator(reviewer, 'POST', `/v1/reviews/${taskId}/decision`, { body });
      assert.equal(res.statusCode, 201, res.body);
    };
    const a = await caseInReview(t, { country: 'FR' });
    const b = await caseInReview(t, { country: 'FR' });
    const de = await caseInReview(t, { country: 'DE' });
    t.clock.advance(2 * DAY);
    await decide(a.taskId, { outcome: 'approve' });
    await decide(b.taskId, { outcome: 'reject', reason_code: 'document_expired' });
    await decide(de.taskId, { outcome: 'approve' });
    t.clock.advance(DAY);
    const res = await t.asOperator(sup, 'GET', `/v1/reviews/metrics?since=${encodeURIComponent(since.toISOString())}`);
    assert.equal(res.statusCode, 200, res.body);
    const { daily, volumes, outcomes } = res.json();
    assert.deepEqual(daily.map((d: { date: string }) => d.date), [day(0), day(1), day(2), day(3)]);
    assert.equal(daily[0].opened, 2, 'the German task is outside the clearance');
    assert.equal(daily[0].closed, 0);
    assert.deepEqual({ ...daily[1], date: undefined }, { date: undefined, opened: 0, closed: 0, approved: 0, rejected: 0, resubmission_requested: 0, closed_after_due_date: 0, decision_seconds_p50: null });
    assert.equal(daily[2].closed, 2);
    assert.equal(daily[2].approved, 1);
    assert.equal(daily[2].rejected, 1);
    assert.ok(daily[2].decision_seconds_p50 > 2 * 86_400 && daily[2].decision_seconds_p50 < 2 * 86_400 + 60, String(daily[2].decision_seconds_p50));
    assert.equal(daily[2].closed_after_due_date, 2, 'decided after the default due date');
    // The days add up to the window's figures.
    const sum = (k: string) => daily.reduce((n: number, d: Record<string, number>) => n + d[k], 0);
    assert.equal(sum('opened'), volumes.opened);
    assert.equal(sum('closed'), volumes.closed);
    assert.equal(sum('approved'), outcomes.approved);
    assert.equal(sum('rejected'), outcomes.rejected);
    // The default window is thirty days ago to now: 31 UTC days.
    assert.equal((await t.asOperator(sup, 'GET', '/v1/reviews/metrics')).json().daily.length, 31);
  });
});
