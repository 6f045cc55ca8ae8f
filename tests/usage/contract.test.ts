import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import {
  createClient,
  endSubscription,
  queryRows,
  recordUsageWithQuota,
  setSubscription,
  type Environment,
  type NewSubscription,
} from '@idv/db';
import { periodOf, usageSourceKey, type UsageService } from '@idv/domain';
import { errorOf, startTestApp, type Credentials, type TestApp } from '../helpers/app.ts';
import { TEST_DB } from '../helpers/database.ts';
import { activateStandardFlow, issueKey } from '../helpers/tenants.ts';

/** GET /v1/contract, quota enforcement on case creation, and the quota events (docs/usage.md, "Contract and quotas"). */

const DAY = 86_400_000;
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

interface Client {
  clientId: string;
  prod: Credentials;
  sandbox: Credentials;
}

/** A client with an activated `standard` flow and a key in each environment, and no subscription. */
async function newClient(name: string): Promise<Client> {
  const client = await createClient(t.database.db, name, t.clock.now());
  await activateStandardFlow(t, client.id, 'prod');
  await activateStandardFlow(t, client.id, 'sandbox');
  return {
    clientId: client.id,
    prod: await issueKey(t, { clientId: client.id, environment: 'prod' }),
    sandbox: await issueKey(t, { clientId: client.id, environment: 'sandbox' }),
  };
}

async function subscribe(clientId: string, terms: Partial<NewSubscription> & Pick<NewSubscription, 'service'>) {
  const result = await t.database.db.transaction((tx) =>
    setSubscription(
      tx,
      { clientId, offer: 'business', monthlyQuota: null, overQuota: 'allow', startsAt: new Date(t.clock.now().getTime() - DAY), endsAt: null, ...terms },
      t.clock.now(),
    ),
  );
  assert.ok(result.ok, 'no overlapping later subscription');
  return result.subscription;
}

let unitNo = 0;
/** One unit of an act, recorded as the act's own transaction records it (at the test clock's instant by default). */
function act(clientId: string, environment: Environment, service: UsageService = 'verification', at = t.clock.now()) {
  const caseId = `case_${String(++unitNo).padStart(26, '0')}`;
  return t.database.db.transaction((tx) =>
    recordUsageWithQuota(tx, { clientId, environment, service, sourceKey: usageSourceKey.verification(caseId) + `:${service}`, caseId, at }),
  );
}

async function events(clientId: string, type: string): Promise<{ body: string }[]> {
  return queryRows(t.database.db, sql`SELECT body FROM webhook_events WHERE client_id = ${clientId} AND type = ${type} ORDER BY id`);
}

const openCase = (key: Credentials, idempotencyKey = randomUUID()) =>
  t.request('POST', '/v1/cases', { key, signed: true, idempotencyKey, body: { flow_name: 'standard', country: 'FR' } });

describe('GET /v1/contract', () => {
  test('who the client is and every subscription with its state on the service clock; ended ones stay listed', async () => {
    const c = await newClient('Contract Bank');
    const now = t.clock.now().getTime();
    const running = await subscribe(c.clientId, { service: 'verification', offer: 'business', monthlyQuota: 1000, overQuota: 'block' });
    const later = await subscribe(c.clientId, {
      service: 'review',
      offer: 'review-plus',
      monthlyQuota: null,
      startsAt: new Date(now + 2 * DAY),
      endsAt: new Date(now + 5 * DAY),
    });

    const read = async (key: Credentials) => {
      const res = await t.request('GET', '/v1/contract', { key });
      assert.equal(res.statusCode, 200, res.body);
      return res.json();
    };
    const first = await read(c.prod);
    assert.equal(first.object, 'contract');
    assert.deepEqual(first.client, { id: c.clientId, name: 'Contract Bank' });
    assert.equal(first.environment, 'prod');
    assert.deepEqual(first.subscriptions, [
      {
        id: later.id,
        service: 'review',
        offer: 'review-plus',
        quota: null,
        over_quota: null,
        starts_at: new Date(now + 2 * DAY).toISOString(),
        ends_at: new Date(now + 5 * DAY).toISOString(),
        state: 'upcoming',
      },
      {
        id: running.id,
        service: 'verification',
        offer: 'business',
        quota: 1000,
        over_quota: 'block',
        starts_at: new Date(now - DAY).toISOString(),
        ends_at: null,
        state: 'in_force',
      },
    ]);
    // The sandbox key reads the same contract; only the environment differs.
    const fromSandbox = await read(c.sandbox);
    assert.equal(fromSandbox.environment, 'sandbox');
    assert.deepEqual(fromSandbox.subscriptions, first.subscriptions);

    const stateOf = async (id: string) => (await read(c.prod)).subscriptions.find((s: { id: string }) => s.id === id)?.state;
    t.clock.advance(2 * DAY);
    assert.equal(await stateOf(later.id), 'in_force', 'from its start, inclusive');
    t.clock.advance(3 * DAY - 1);
    assert.equal(await stateOf(later.id), 'in_force');
    t.clock.advance(1);
    assert.equal(await stateOf(later.id), 'ended', 'at its end, exclusive');

    // New terms replace the running subscription: it ends where they start, and stays listed.
    const raised = await subscribe(c.clientId, { service: 'verification', offer: 'enterprise', monthlyQuota: 5000, overQuota: 'notify', startsAt: t.clock.now() });
    const after = await read(c.prod);
    const verification = after.subscriptions.filter((s: { service: string }) => s.service === 'verification');
    assert.deepEqual(
      verification.map((s: { id: string; state: string; ends_at: string | null }) => [s.id, s.state, s.ends_at]),
      [
        [running.id, 'ended', t.clock.now().toISOString()],
        [raised.id, 'in_force', null],
      ],
    );
    assert.equal(after.subscriptions.length, 3);
  });

  test('an upcoming subscription ended before its start never comes into force', async () => {
    const c = await newClient('Cancelled Bank');
    const sub = await subscribe(c.clientId, { service: 'erasure', startsAt: new Date(t.clock.now().getTime() + DAY) });
    await t.database.db.transaction((tx) => endSubscription(tx, c.clientId, sub.id, t.clock.now()));
    t.clock.advance(2 * DAY);
    const [listed] = (await t.request('GET', '/v1/contract', { key: c.prod })).json().subscriptions;
    assert.equal(listed.id, sub.id);
    assert.equal(listed.state, 'ended');
  });

  test('needs a valid key, shows only the client of the key, and is read-only', async () => {
    const a = await newClient('Bank A');
    const b = await newClient('Bank B');
    const subA = await subscribe(a.clientId, { service: 'verification', monthlyQuota: 10, overQuota: 'notify' });
    assert.equal(errorOf(await t.request('GET', '/v1/contract', { key: null })).code, 'api_key_missing');
    assert.equal(
      errorOf(await t.request('GET', '/v1/contract', { key: null, headers: { authorization: `Bearer sk_live_${'x'.repeat(43)}` } })).code,
      'api_key_invalid',
    );
    const revoked = await issueKey(t, { clientId: a.clientId, environment: 'prod' });
    assert.equal((await t.request('DELETE', `/v1/api-keys/${revoked.id}`, { key: a.prod })).statusCode, 204);
    assert.equal(errorOf(await t.request('GET', '/v1/contract', { key: revoked })).code, 'api_key_revoked');

    const seenByB = (await t.request('GET', '/v1/contract', { key: b.prod })).json();
    assert.deepEqual(seenByB.client, { id: b.clientId, name: 'Bank B' });
    assert.deepEqual(seenByB.subscriptions, [], 'nothing of client A');
    assert.equal(JSON.stringify(seenByB).includes(subA.id), false);

    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE']) {
      const res = await t.request(method, '/v1/contract', { key: a.prod, body: { subscriptions: [] } });
      assert.equal(res.statusCode, 405, `${method}: ${res.body}`);
      assert.equal(errorOf(res).code, 'method_not_allowed');
    }
  });

  test('the demo client starts with a generous subscription to every service that never blocks', async () => {
    const res = await t.request('GET', '/v1/contract');
    assert.equal(res.statusCode, 200, res.body);
    const subs = res.json().subscriptions as { service: string; quota: number; over_quota: string; state: string }[];
    assert.deepEqual(subs.map((s) => s.service).sort(), ['erasure', 'resubmission', 'review', 'verification']);
    for (const s of subs) {
      assert.equal(s.state, 'in_force');
      assert.ok(s.quota >= 10_000, 'generous');
      assert.notEqual(s.over_quota, 'block');
    }
  });
});

describe('quota behaviours (production only)', () => {
  test('block: once the month’s verifications reach the quota, opening a case in production is refused, naming the quota', async () => {
    const c = await newClient('Blocked Bank');
    await subscribe(c.clientId, { service: 'verification', offer: 'starter', monthlyQuota: 2, overQuota: 'block' });
    // A creation that succeeded before the quota was used up: its retry replays it afterwards.
    const earlyIdem = randomUUID();
    const early = await openCase(c.prod, earlyIdem);
    assert.equal(early.statusCode, 201, early.body);
    assert.equal(await act(c.clientId, 'prod'), true);
    assert.equal((await openCase(c.prod)).statusCode, 201, 'under the quota');
    assert.equal(await act(c.clientId, 'prod'), true);

    const idem = randomUUID();
    const refused = await openCase(c.prod, idem);
    assert.equal(refused.statusCode, 403, refused.body);
    const err = errorOf(refused);
    assert.equal(err.code, 'quota_exceeded');
    assert.equal(err.type, 'permission_error');
    assert.match(err.message, /verification quota of 2 per month \(offer starter\) is used up for \d{4}-\d\d: 2 used/);
    // Declared data takes the other path of the route: refused alike.
    const declared = await t.request('POST', '/v1/cases', {
      key: c.prod,
      signed: true,
      body: { flow_name: 'standard', country: 'FR', declared: { surname: 'Martin' } },
    });
    assert.equal(errorOf(declared).code, 'quota_exceeded');
    assert.doesNotMatch(declared.body, /Martin/);

    const replay = await openCase(c.prod, earlyIdem);
    assert.equal(replay.statusCode, 201, 'a stored creation is replayed, not refused');
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.json().id, early.json().id);

    // The sandbox never counts against a quota and is never blocked.
    for (let i = 0; i < 3; i++) assert.equal(await act(c.clientId, 'sandbox'), true);
    assert.equal((await openCase(c.sandbox)).statusCode, 201);

    // The refusal was not stored: the same intention goes through once the quota allows.
    await subscribe(c.clientId, { service: 'verification', offer: 'business', monthlyQuota: 3, overQuota: 'block', startsAt: t.clock.now() });
    const retried = await openCase(c.prod, idem);
    assert.equal(retried.statusCode, 201, retried.body);
    assert.equal(retried.headers['idempotent-replayed'], undefined);

    // A new month starts from zero.
    assert.equal(await act(c.clientId, 'prod'), true);
    assert.equal(errorOf(await openCase(c.prod)).code, 'quota_exceeded');
    const now = t.clock.now();
    t.clock.set(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)));
    assert.equal((await openCase(c.prod)).statusCode, 201, 'next month');
  });

  test('allow: the work goes on beyond the quota, the excess counts, and no event is sent', async () => {
    const c = await newClient('Allowing Bank');
    await subscribe(c.clientId, { service: 'verification', monthlyQuota: 2, overQuota: 'allow' });
    for (let i = 0; i < 4; i++) assert.equal(await act(c.clientId, 'prod'), true);
    assert.equal((await openCase(c.prod)).statusCode, 201);
    assert.deepEqual(await events(c.clientId, 'usage.quota_threshold_reached'), []);
    assert.deepEqual(await events(c.clientId, 'usage.quota_reached'), []);
  });

  test('notify: the work goes on; the 80 % and 100 % events are sent once each in the month, with no personal data', async () => {
    const c = await newClient('Notified Bank');
    const sub = await subscribe(c.clientId, { service: 'review', offer: 'review-plus', monthlyQuota: 5, overQuota: 'notify' });
    const endpoint = await t.request('POST', '/v1/webhook-endpoints', {
      key: c.prod,
      signed: true,
      body: { url: 'https://93.184.215.14/hooks', events: ['usage.quota_threshold_reached', 'usage.quota_reached'] },
    });
    assert.equal(endpoint.statusCode, 201, endpoint.body);

    for (let i = 0; i < 3; i++) await act(c.clientId, 'prod', 'review');
    assert.equal((await events(c.clientId, 'usage.quota_threshold_reached')).length, 0, '3 of 5 is under 80 %');
    await act(c.clientId, 'prod', 'review');
    const [threshold] = await events(c.clientId, 'usage.quota_threshold_reached');
    const period = periodOf(t.clock.now());
    assert.deepEqual(JSON.parse(threshold.body), {
      data: { service: 'review', period, offer: 'review-plus', quota: 5, over_quota: 'notify', used: 4, threshold_percent: 80 },
      object: { environment: 'prod', external_ref: null, flow_name: null, id: sub.id, type: 'subscription' },
      occurred_at: t.clock.now().toISOString(),
      type: 'usage.quota_threshold_reached',
    });
    for (let i = 0; i < 4; i++) await act(c.clientId, 'prod', 'review');
    assert.equal((await events(c.clientId, 'usage.quota_threshold_reached')).length, 1, 'once in the month');
    const reached = await events(c.clientId, 'usage.quota_reached');
    assert.equal(reached.length, 1, 'once in the month');
    assert.deepEqual(JSON.parse(reached[0].body).data, { service: 'review', period, offer: 'review-plus', quota: 5, over_quota: 'notify', used: 5 });
    assert.equal((await openCase(c.prod)).statusCode, 201, 'notify never blocks');

    // Through the outbox to the subscribed endpoint, one delivery per event.
    const deliveries = (await t.request('GET', '/v1/webhook-deliveries', { key: c.prod })).json().data as { event_type: string }[];
    assert.deepEqual(deliveries.map((d) => d.event_type).sort(), ['usage.quota_reached', 'usage.quota_threshold_reached']);

    // The next month starts again: once more each.
    const now = t.clock.now();
    const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 3));
    for (let i = 0; i < 5; i++) await act(c.clientId, 'prod', 'review', next);
    assert.equal((await events(c.clientId, 'usage.quota_threshold_reached')).length, 2);
    assert.equal((await events(c.clientId, 'usage.quota_reached')).length, 2);
    assert.equal(JSON.parse((await events(c.clientId, 'usage.quota_reached'))[1].body).data.period, periodOf(next));

    // Sandbox units never count and never notify.
    const s = await newClient('Sandbox Bank');
    await subscribe(s.clientId, { service: 'review', monthlyQuota: 1, overQuota: 'notify' });
    for (let i = 0; i < 3; i++) await act(s.clientId, 'sandbox', 'review');
    assert.deepEqual(await events(s.clientId, 'usage.quota_reached'), []);
    assert.deepEqual(await events(s.clientId, 'usage.quota_threshold_reached'), []);
  });

  test('the quota events are sent exactly once per month even when units arrive concurrently', async () => {
    const c = await newClient('Concurrent Bank');
    await subscribe(c.clientId, { service: 'verification', monthlyQuota: 10, overQuota: 'notify', startsAt: new Date('2020-01-01T00:00:00Z') });
    const months = Array.from({ length: 4 }, (_, i) => new Date(Date.UTC(2025, i, 15)));
    for (const at of months) {
      // 6 units, then two acts at once: the first holds its transaction open after recording its
      // unit (7 of 10, under the 80 % line) while the second records the 8th. Counted each in its
      // own snapshot, both would see 7 and the line would pass unnoticed; the second must count
      // after the first commits, and send the event.
      for (let i = 0; i < 6; i++) await act(c.clientId, 'prod', 'verification', at);
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const first = t.database.db.transaction(async (tx) => {
        const caseId = `case_held${at.getTime()}`;
        await recordUsageWithQuota(tx, { clientId: c.clientId, environment: 'prod', service: 'verification', sourceKey: `verification:${caseId}`, caseId, at });
        await held;
      });
      await new Promise((resolve) => setTimeout(resolve, 50)); // the first is now inside its transaction
      const second = act(c.clientId, 'prod', 'verification', at);
      // Give the second every chance to count before the first commits (it waits, if correct).
      await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 300))]);
      release();
      await Promise.all([first, second]);
    }
    const thresholds = (await events(c.clientId, 'usage.quota_threshold_reached')).map((e) => JSON.parse(e.body).data);
    assert.deepEqual(thresholds.map((d) => d.period).sort(), months.map(periodOf));
    assert.ok(thresholds.every((d) => d.used === 8), 'sent by the unit that crossed the line');
    assert.deepEqual(await events(c.clientId, 'usage.quota_reached'), []);

    // Many at once across the quota: exactly one reached event per month, and no second threshold.
    for (const at of months) await Promise.all(Array.from({ length: 12 }, () => act(c.clientId, 'prod', 'verification', at)));
    const reached = (await events(c.clientId, 'usage.quota_reached')).map((e) => JSON.parse(e.body).data);
    assert.deepEqual(reached.map((d) => d.period).sort(), months.map(periodOf));
    assert.ok(reached.every((d) => d.used === 10));
    assert.equal((await events(c.clientId, 'usage.quota_threshold_reached')).length, months.length);
  });

  test(`a transaction rolled back after the line leaves no notice: the act done again sends the event (${TEST_DB})`, async () => {
    const c = await newClient('Rollback Bank');
    await subscribe(c.clientId, { service: 'verification', monthlyQuota: 1, overQuota: 'block' });
    const unit = { clientId: c.clientId, environment: 'prod' as const, service: 'verification' as const, sourceKey: 'verification:case_rollback', caseId: 'case_rollback', at: t.clock.now() };
    await assert.rejects(
      t.database.db.transaction(async (tx) => {
        assert.equal(await recordUsageWithQuota(tx, unit), true);
        throw new Error('crash before commit');
      }),
      /crash before commit/,
    );
    assert.deepEqual(await events(c.clientId, 'usage.quota_reached'), []);
    assert.equal((await openCase(c.prod)).statusCode, 201, 'the unit did not count');
    assert.equal(await t.database.db.transaction((tx) => recordUsageWithQuota(tx, unit)), true);
    assert.equal(await t.database.db.transaction((tx) => recordUsageWithQuota(tx, unit)), false, 'a retried act counts once');
    assert.equal((await events(c.clientId, 'usage.quota_reached')).length, 1);
    assert.equal((await events(c.clientId, 'usage.quota_threshold_reached')).length, 1);
    assert.equal(errorOf(await openCase(c.prod)).code, 'quota_exceeded');
  });
});
