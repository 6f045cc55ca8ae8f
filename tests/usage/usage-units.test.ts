import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { monthlyUsage, queryRows, recordUsage, usageUnitPages, type Database, type UsageUnit } from '@idv/db';
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

describe('usageUnitPages', () => {
  const bulk = { clientId: 'cli_bulk', environment: 'prod' as const };
  const N = 4_501;

  before(async () => {
    // Three units share each instant, so the order's tie-break (the source key) is crossed by pages.
    await database.db.execute(sql`
      INSERT INTO usage_units (source_key, client_id, environment, service, case_id, quantity, occurred_at)
      SELECT 'verification:case_bulk' || lpad(i::text, 6, '0'), ${bulk.clientId}, ${bulk.environment}, 'verification',
             'case_bulk' || lpad(i::text, 6, '0'), 1, timestamptz '2026-05-01T00:00:00Z' + ((i / 3) * interval '1 second')
      FROM generate_series(0, ${N - 1}) AS i`);
  });

  const range = parsePeriod('2026-05')!;

  test('every unit of the month once, in order (instant, then source key), whatever the page size', async () => {
    for (const pageSize of [2000, 1000, N]) {
      const seen: string[] = [];
      let pages = 0;
      for await (const page of usageUnitPages(database.db, bulk, range, pageSize)) {
        assert.ok(page.length <= pageSize);
        pages += 1;
        for (const u of page) seen.push(u.case_id);
      }
      assert.equal(seen.length, N, `page size ${pageSize}`);
      assert.equal(new Set(seen).size, N);
      assert.deepEqual(seen, [...seen].sort());
      assert.equal(pages, Math.ceil(N / pageSize));
    }
    const pages = usageUnitPages(database.db, bulk, range, 1);
    const [first] = (await pages.next()).value!;
    await pages.return(undefined);
    assert.deepEqual(first, { occurred_at: '2026-05-01T00:00:00.000Z', service: 'verification', quantity: 1, case_id: 'case_bulk000000' });
  });

  test('an export stopped early gives its database side back (no transaction left open)', async () => {
    for (let i = 0; i < 30; i++) {
      for await (const page of usageUnitPages(database.db, bulk, range, 10)) {
        assert.equal(page.length, 10);
        break;
      }
    }
    const [open] = await queryRows<{ n: number }>(
      database.db,
      sql`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
    );
    assert.equal(Number(open.n), 0);
    // Still usable: a full export after thirty abandoned ones (more than the pool's connections).
    let n = 0;
    for await (const page of usageUnitPages(database.db, bulk, range)) n += page.length;
    assert.equal(n, N);
  });
});
