import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { quotaBlocks, quotaEventsReached, quotaExcess, subscriptionOfMonth, subscriptionState } from '@idv/domain';

const d = (iso: string) => new Date(iso);

describe('subscription state at an instant', () => {
  const sub = { startsAt: d('2026-03-01T00:00:00Z'), endsAt: d('2026-04-01T00:00:00Z') };
  test('upcoming before its start, in force from its start (inclusive) to its end (exclusive), then ended', () => {
    assert.equal(subscriptionState(sub, d('2026-02-28T23:59:59.999Z')), 'upcoming');
    assert.equal(subscriptionState(sub, d('2026-03-01T00:00:00Z')), 'in_force');
    assert.equal(subscriptionState(sub, d('2026-03-31T23:59:59.999Z')), 'in_force');
    assert.equal(subscriptionState(sub, d('2026-04-01T00:00:00Z')), 'ended');
    assert.equal(subscriptionState({ ...sub, endsAt: null }, d('2099-01-01T00:00:00Z')), 'in_force', 'open-ended');
  });
  test('one ended at or before its start (an upcoming one cancelled) is ended, never upcoming', () => {
    const cancelled = { startsAt: sub.startsAt, endsAt: sub.startsAt };
    assert.equal(subscriptionState(cancelled, d('2026-01-01T00:00:00Z')), 'ended');
    assert.equal(subscriptionState(cancelled, d('2026-03-15T00:00:00Z')), 'ended');
  });
});

describe('quota lines', () => {
  test('80 % then 100 %, under block and notify only; never for unlimited', () => {
    const notify = { quota: 10, overQuota: 'notify' as const };
    assert.deepEqual(quotaEventsReached(notify, 7), []);
    assert.deepEqual(quotaEventsReached(notify, 8), ['threshold']);
    assert.deepEqual(quotaEventsReached(notify, 10), ['threshold', 'reached']);
    assert.deepEqual(quotaEventsReached({ quota: 3, overQuota: 'block' }, 2), [], '2 of 3 is 66 %');
    assert.deepEqual(quotaEventsReached({ quota: 3, overQuota: 'block' }, 3), ['threshold', 'reached']);
    assert.deepEqual(quotaEventsReached({ quota: 5, overQuota: 'block' }, 4), ['threshold'], 'exactly 80 %');
    assert.deepEqual(quotaEventsReached({ quota: 10, overQuota: 'allow' }, 50), []);
    assert.deepEqual(quotaEventsReached({ quota: null, overQuota: 'notify' }, 1e9), []);
  });
  test('block refuses at the quota; the excess is what lies beyond it', () => {
    assert.equal(quotaBlocks({ quota: 2, overQuota: 'block' }, 1), false);
    assert.equal(quotaBlocks({ quota: 2, overQuota: 'block' }, 2), true);
    assert.equal(quotaBlocks({ quota: 2, overQuota: 'notify' }, 9), false);
    assert.equal(quotaBlocks({ quota: null, overQuota: 'block' }, 9), false);
    assert.equal(quotaExcess({ quota: 2, overQuota: 'allow' }, 5), 3);
    assert.equal(quotaExcess({ quota: 2, overQuota: 'allow' }, 1), 0);
    assert.equal(quotaExcess({ quota: null, overQuota: 'allow' }, 5), 0);
  });
});

describe('the subscription of a month', () => {
  const march = [d('2026-03-01T00:00:00Z'), d('2026-04-01T00:00:00Z')] as const;
  const early = { id: 'early', startsAt: d('2026-01-01T00:00:00Z'), endsAt: d('2026-03-10T00:00:00Z') };
  const late = { id: 'late', startsAt: d('2026-03-10T00:00:00Z'), endsAt: null };
  test('the current month: the one in force now', () => {
    assert.equal(subscriptionOfMonth([early, late], ...march, d('2026-03-05T00:00:00Z'))?.id, 'early');
    assert.equal(subscriptionOfMonth([early, late], ...march, d('2026-03-20T00:00:00Z'))?.id, 'late');
  });
  test('a past month: the one in force at its end, else the last in force during it; a future month: at its start', () => {
    assert.equal(subscriptionOfMonth([early, late], ...march, d('2026-06-01T00:00:00Z'))?.id, 'late');
    assert.equal(subscriptionOfMonth([early], ...march, d('2026-06-01T00:00:00Z'))?.id, 'early', 'ended mid-month');
    assert.equal(subscriptionOfMonth([early, late], ...march, d('2026-01-15T00:00:00Z'))?.id, 'early');
    assert.equal(subscriptionOfMonth([early], d('2026-05-01T00:00:00Z'), d('2026-06-01T00:00:00Z'), d('2026-06-15T00:00:00Z')), null);
    const cancelled = { id: 'cancelled', startsAt: d('2026-03-15T00:00:00Z'), endsAt: d('2026-03-15T00:00:00Z') };
    assert.equal(subscriptionOfMonth([early, cancelled], ...march, d('2026-03-20T00:00:00Z'))?.id, 'early', 'never in force: ignored');
  });
});
