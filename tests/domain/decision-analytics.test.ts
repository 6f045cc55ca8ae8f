import { test } from 'node:test';
import assert from 'node:assert/strict';
import { summariseDecisions, type DecisionGroup } from '@idv/domain';

const detail = (day: string, outcome: 'approved' | 'rejected', reason_code: string | null, decided_by: DecisionGroup['decided_by'], count: number): DecisionGroup => ({
  set: 'detail',
  day,
  outcome,
  reason_code,
  decided_by,
  count,
  p50: null,
});

test('summariseDecisions: totals by decider, the rate, reasons most frequent first, every day with its figures', () => {
  const groups: DecisionGroup[] = [
    detail('2026-03-01', 'approved', null, 'automatic', 6),
    detail('2026-03-01', 'rejected', 'document_expired', 'automatic', 1),
    detail('2026-03-03', 'rejected', 'document_expired', 'operator', 2),
    detail('2026-03-03', 'approved', null, 'operator', 1),
    detail('2026-03-03', 'rejected', 'underage', 'key', 2),
    { set: 'day', day: '2026-03-01', outcome: null, reason_code: null, decided_by: null, count: 7, p50: 3600 },
    { set: 'day', day: '2026-03-03', outcome: null, reason_code: null, decided_by: null, count: 5, p50: 90_000 },
    { set: 'decider', day: null, outcome: null, reason_code: null, decided_by: 'automatic', count: 7, p50: 3600 },
    { set: 'decider', day: null, outcome: null, reason_code: null, decided_by: 'operator', count: 3, p50: 86_400 },
    { set: 'all', day: null, outcome: null, reason_code: null, decided_by: null, count: 12, p50: 4000 },
  ];
  const s = summariseDecisions(groups, ['2026-03-01', '2026-03-02', '2026-03-03']);
  assert.deepEqual(s.decided, { total: 12, approved: 7, rejected: 5, automatic: 7, by_operators: 3, by_keys: 2 });
  assert.equal(s.automation_rate, 0.583);
  assert.deepEqual(s.time_to_decision_seconds, { p50: 4000, automatic_p50: 3600, operators_p50: 86_400, keys_p50: null });
  assert.deepEqual(s.reasons, [
    { outcome: 'approved', reason_code: null, count: 7, automatic: 6 },
    { outcome: 'rejected', reason_code: 'document_expired', count: 3, automatic: 1 },
    { outcome: 'rejected', reason_code: 'underage', count: 2, automatic: 0 },
  ]);
  assert.deepEqual(s.daily, [
    { date: '2026-03-01', approved: 6, rejected: 1, automatic: 7, decision_seconds_p50: 3600 },
    { date: '2026-03-02', approved: 0, rejected: 0, automatic: 0, decision_seconds_p50: null },
    { date: '2026-03-03', approved: 1, rejected: 4, automatic: 0, decision_seconds_p50: 90_000 },
  ]);
});

test('summariseDecisions: nothing decided is no rate and no median, not zero', () => {
  const s = summariseDecisions([{ set: 'all', day: null, outcome: null, reason_code: null, decided_by: null, count: 0, p50: null }], ['2026-03-01']);
  assert.equal(s.automation_rate, null);
  assert.equal(s.time_to_decision_seconds.p50, null);
  assert.deepEqual(s.reasons, []);
  assert.deepEqual(s.daily, [{ date: '2026-03-01', approved: 0, rejected: 0, automatic: 0, decision_seconds_p50: null }]);
});
