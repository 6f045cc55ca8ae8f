import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { monthlyUsage, recordUsage, type Database, type UsageUnit } from '@idv/db';
import { parsePeriod, periodOf, usageSourceKey } from '@idv/domain';
import { freshDatabase } from '../helpers/database.ts';

let database: Database;
let drop: () => Promise<void>;
before(async () => {
  ({ database, drop } = await freshDatabase());
});
after(() => drop());

const prod = { clientId: 'cli_units', environment: 'prod' as const };
const sandbox = { clientId: 'cli_units', environment: 'sandbox' as const };
const at = new Date('2026-03-31T23:59:59.999Z');
const unit = (caseId: string, over: Partial<UsageUnit> = {}): UsageUnit => ({
  ...prod,
  service: 'verification',
  sourceKey: usageSourceKey.verification(caseId),
  caseId,
  at,
  ...over,
});

describe('usage periods', () => {
  test('YYYY-MM with a month 01 to 12 names the UTC month; anything else is refused', () => {
    assert.deepEqual(parsePeriod('2026-02'), { period: '2026-02', start: new Date('2026-02-01T00:00:00Z'), end: new Date('2026-03-01T00:00:00Z') });
    assert.deepEqual(parsePeriod('2026-12')?.end, new Date('2027-01-01T00:00:00Z'));
    for (const bad of ['2026-13', '2026-00', '2026-1', '26-01', '2026-01-01', '2026/01', ' 2026-01', '2026-01 ', '']) assert.equal(parsePeriod(bad), null, bad);
    assert.equal(periodOf(at), '2026-03');
    assert.equal(periodOf(new Date('2026-04-01T00:00:00Z')), '2026-04');
  });
});

describe('recordUsage', () => {
  test('an act recorded again adds nothing; the monthly total counts it once', async () => {
    assert.equal(await database.db.transaction((tx) => recordUsage(tx, unit('case_a'))), true);
    assert.equal(await database.db.transaction((tx) => recordUsage(tx, unit('case_a'))), false);
    const totals = await monthlyUsage(database.db, prod, '2026-03');
    assert.deepEqual(totals, { verification: 1, review: 0, resubmission: 0, erasure: 0 });
  });

  test('a transaction that fails after recording leaves nothing; the act done again counts once', async () => {
    await assert.rejects(
      database.db.transaction(async (tx) => {
        assert.equal(await recordUsage(tx, unit('case_b')), true);
        throw new Error('crash before commit');
      }),
      /crash before commit/,
    );
    assert.equal((await monthlyUsage(database.db, prod, '2026-03')).verification, 1);
    assert.equal(await database.db.transaction((tx) => recordUsage(tx, unit('case_b'))), true);
    assert.equal((await monthlyUsage(database.db, prod, '2026-03')).verification, 2);
  });

  test('the same act recorded concurrently counts once; distinct acts each count', async () => {
    const same = await Promise.all(Array.from({ length: 8 }, () => database.db.transaction((tx) => recordUsage(tx, unit('case_c')))));
    assert.equal(same.filter(Boolean).length, 1);
    const distinct = await Promise.all(Array.from({ length: 20 }, (_, i) => database.db.transaction((tx) => recordUsage(tx, unit(`case_d${i}`)))));
    assert.ok(distinct.every(Boolean));
    assert.equal((await monthlyUsage(database.db, prod, '2026-03')).verification, 23);
  });

  test('the month is the UTC month of the instant; quantities add; sandbox is apart', async () => {
    await database.db.transaction((tx) =>
      recordUsage(tx, unit('case_e', { service: 'erasure', sourceKey: usageSourceKey.erasure('case_e'), at: new Date('2026-04-01T00:00:00Z'), quantity: 3 })),
    );
    await database.db.transaction((tx) => recordUsage(tx, unit('case_s', { ...sandbox, sourceKey: usageSourceKey.verification('case_s') })));
    assert.deepEqual(await monthlyUsage(database.db, prod, '2026-04'), { verification: 0, review: 0, resubmission: 0, erasure: 3 });
    assert.deepEqual(await monthlyUsage(database.db, sandbox, '2026-03'), { verification: 1, review: 0, resubmission: 0, erasure: 0 });
    assert.equal((await monthlyUsage(database.db, prod, '2026-03')).verification, 23);
    assert.deepEqual(await monthlyUsage(database.db, prod, '2025-01'), { verification: 0, review: 0, resubmission: 0, erasure: 0 });
  });
});
