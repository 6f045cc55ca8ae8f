import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_SERIES_DAYS, fillDays, utcDays } from '@idv/domain';

test('utcDays: every UTC day from the first instant’s day to the last’s, both included', () => {
  assert.deepEqual(utcDays(new Date('2026-02-27T23:30:00Z'), new Date('2026-03-02T00:10:00Z')), ['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  assert.deepEqual(utcDays(new Date('2026-03-01T05:00:00Z'), new Date('2026-03-01T06:00:00Z')), ['2026-03-01']);
  assert.deepEqual(utcDays(new Date('2026-03-02T00:00:00Z'), new Date('2026-03-01T00:00:00Z')), []);
  // A leap year's 366 days plus today.
  assert.equal(utcDays(new Date('2027-11-25T12:00:00Z'), new Date('2028-11-25T12:00:00Z')).length, 367);
  assert.throws(() => utcDays(new Date('2020-01-01T00:00:00Z'), new Date(Date.UTC(2020, 0, 1) + MAX_SERIES_DAYS * 86_400_000)), RangeError);
});

test('fillDays: zeros where no row, rows of one day merged, rows outside the days ignored', () => {
  const days = ['2026-03-01', '2026-03-02', '2026-03-03'];
  const series = fillDays(
    days,
    [
      { day: '2026-03-02', opened: 4 },
      { day: '2026-03-02', closed: 3, p50: 120 },
      { day: '2026-03-03', closed: 1 },
      { day: '2026-02-28', opened: 99 },
    ],
    { opened: 0, closed: 0, p50: null as number | null },
  );
  assert.deepEqual(series, [
    { date: '2026-03-01', opened: 0, closed: 0, p50: null },
    { date: '2026-03-02', opened: 4, closed: 3, p50: 120 },
    { date: '2026-03-03', opened: 0, closed: 1, p50: null },
  ]);
});
