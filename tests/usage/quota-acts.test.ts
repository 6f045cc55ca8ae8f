import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { createClient, queryRows, setSubscription, type NewSubscription } from '@idv/db';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { STANDARD_WITH_STILLS, activateFlow, newSession } from '../helpers/journey.ts';
import { PERSONS, journeyThrough, startPersonalDataApp, type PersonalDataTestApp } from '../helpers/personal-data.ts';
import { issueKey } from '../helpers/tenants.ts';

/**
 * Quotas on the real acts: a verification is counted when the person's journey reaches
 * processing (docs/usage.md), and that act sends the quota events and, under block, closes case
 * opening in production; GET /v1/usage shows the terms and the excess in `detail`.
 */

let t: PersonalDataTestApp;
let clientId: string;
let prod: Credentials;
let sandbox: Credentials;
before(async () => {
  t = await startPersonalDataApp();
  clientId = (await createClient(t.database.db, 'Quota Bank', t.clock.now())).id;
  await activateFlow(t, clientId, 'prod', 'standard', STANDARD_WITH_STILLS);
  await activateFlow(t, clientId, 'sandbox', 'standard', STANDARD_WITH_STILLS);
  prod = await issueKey(t, { clientId, environment: 'prod' });
  sandbox = await issueKey(t, { clientId, environment: 'sandbox' });
});
after(() => t.close());

const period = () => t.clock.now().toISOString().slice(0, 7);

/** New terms from now on (the clock moves a second so they start after the previous ones). */
async function subscribe(terms: Pick<NewSubscription, 'offer' | 'monthlyQuota' | 'overQuota'>) {
  t.clock.advance(1000);
  const now = t.clock.now();
  await t.database.db.transaction((tx) => setSubscription(tx, { clientId, service: 'verification', startsAt: now, endsAt: null, ...terms }, now));
}

const openCase = (key: Credentials) => t.request('POST', '/v1/cases', { key, signed: true, body: { flow_name: 'standard', country: 'FR' } });

/** Opens a case with the key and takes the person through the journey to processing. */
async function verify(key: Credentials, person = PERSONS[0]): Promise<string> {
  const created = await openCase(key);
  assert.equal(created.statusCode, 201, created.body);
  const caseId = created.json().id as string;
  await journeyThrough(t, caseId, person, undefined, await newSession(t, caseId, 'en', key));
  return caseId;
}

async function usage(key: Credentials) {
  const res = await t.request('GET', `/v1/usage?period=${period()}`, { key });
  assert.equal(res.statusCode, 200, res.body);
  return res.json();
}

const quotaEvents = async () =>
  (
    await queryRows<{ type: string; body: string }>(
      t.database.db,
      sql`SELECT type, body FROM webhook_events WHERE client_id = ${clientId} AND type LIKE 'usage.%' ORDER BY id`,
    )
  ).map((e) => ({ type: e.type, data: JSON.parse(e.body).data }));

describe('quotas on verifications reaching processing', () => {
  test('block: the verification that reaches the quota sends the events; the next case in production is refused; the sandbox goes on', async () => {
    assert.deepEqual((await usage(prod)).detail.verification, { offer: null, quota: null, over_quota: null, excess: 0 }, 'nothing subscribed yet');
    await subscribe({ offer: 'starter', monthlyQuota: 1, overQuota: 'block' });

    // Opening a case costs nothing: a second case opens before the first is verified.
    const spare = await openCase(prod);
    assert.equal(spare.statusCode, 201, spare.body);
    const caseId = await verify(prod);
    const events = await quotaEvents();
    assert.deepEqual(
      events.map((e) => e.type).sort(),
      ['usage.quota_reached', 'usage.quota_threshold_reached'],
      'the one verification reaches both lines of a quota of 1',
    );
    assert.deepEqual(events.find((e) => e.type === 'usage.quota_reached')!.data, {
      service: 'verification',
      period: period(),
      offer: 'starter',
      quota: 1,
      over_quota: 'block',
      used: 1,
    });
    assert.equal(JSON.stringify(events).includes(caseId), false, 'the events name no case');

    const refused = await openCase(prod);
    assert.equal(refused.statusCode, 403, refused.body);
    assert.equal(errorOf(refused).code, 'quota_exceeded');
    assert.deepEqual((await usage(prod)).detail.verification, { offer: 'starter', quota: 1, over_quota: 'block', excess: 0 });

    // A case opened before the quota was used up still completes its journey: that unit is excess.
    await journeyThrough(t, spare.json().id, PERSONS[1], undefined, await newSession(t, spare.json().id, 'en', prod));
    const after = await usage(prod);
    assert.equal(after.services.verification, 2);
    assert.equal(after.detail.verification.excess, 1);
    assert.equal((await quotaEvents()).length, 2, 'no second event in the month');

    // The sandbox is metered apart and never blocked.
    await verify(sandbox);
    await verify(sandbox, PERSONS[1]);
    assert.equal((await openCase(sandbox)).statusCode, 201);
    const sandboxUsage = await usage(sandbox);
    assert.equal(sandboxUsage.services.verification, 2);
    assert.deepEqual(sandboxUsage.detail.verification, { offer: 'starter', quota: 1, over_quota: 'block', excess: 0 });
  });

  test('notify and allow: cases keep opening beyond the quota and the excess is counted', async () => {
    await subscribe({ offer: 'business', monthlyQuota: 1, overQuota: 'notify' });
    await verify(prod, PERSONS[2]);
    assert.deepEqual((await usage(prod)).detail.verification, { offer: 'business', quota: 1, over_quota: 'notify', excess: 2 });
    await subscribe({ offer: 'payg', monthlyQuota: 2, overQuota: 'allow' });
    await verify(prod, PERSONS[0]);
    const u = await usage(prod);
    assert.equal(u.services.verification, 4);
    assert.deepEqual(u.detail.verification, { offer: 'payg', quota: 2, over_quota: 'allow', excess: 2 });
    assert.equal((await quotaEvents()).length, 2, 'still once per month');
    // An unlimited subscription has no over-quota behaviour and no excess.
    await subscribe({ offer: 'unlimited', monthlyQuota: null, overQuota: 'allow' });
    assert.deepEqual((await usage(prod)).detail.verification, { offer: 'unlimited', quota: null, over_quota: null, excess: 0 });
  });
});
