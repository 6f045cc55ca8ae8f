import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { sql } from 'drizzle-orm';
import { readApiUsage } from '@idv/db';
import { UsageRecorder } from '../../apps/api/src/http/usage-recorder.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The usage counters are flushed to the database in the background. A flush that fails (here the
 * table is really gone for a while: every statement on it fails, on PGlite as on PostgreSQL) must
 * keep its counts for the next one, and must not stop the flushes after it.
 */
let t: TestApp;
before(async () => {
  t = await startTestApp();
});
after(() => t.close());

const today = () => t.clock.now().toISOString().slice(0, 10);
const breakTable = () => t.database.db.execute(sql`ALTER TABLE api_usage_daily RENAME TO api_usage_daily_away`);
const restoreTable = () => t.database.db.execute(sql`ALTER TABLE api_usage_daily_away RENAME TO api_usage_daily`);
const notFound = () => t.request('GET', '/v1/cases/case_01m7ym09t80f4fggxqxy1yr50c');

async function stored(): Promise<Record<number, number>> {
  const rows = await readApiUsage(t.database.db, { clientId: t.demo.client_id, environment: 'sandbox' }, today());
  return Object.fromEntries(rows.map((r) => [Number(r.statusCode), Number(r.calls)]));
}

describe('usage flush after a failure', () => {
  test('a failed flush keeps its counts; later flushes write them once, and counting goes on', async () => {
    // A recorder of its own, without the app's one-second timer: that timer's flushes would race
    // with the flushes this test makes and looks at one by one.
    const recorder = new UsageRecorder(t.database.db);
    const count = (n: number) => {
      for (let i = 0; i < n; i++) recorder.record(t.demo.client_id, 'sandbox', t.clock.now(), 404);
    };
    await t.ctx.usage.flush();
    const before = await stored();
    const at = (status: number) => before[status] ?? 0;

    count(3);
    await breakTable();
    try {
      await assert.rejects(recorder.flush(), 'the flush fails while the table is gone');
      // More calls while it is broken, and a second failure: both batches are kept.
      count(2);
      await assert.rejects(recorder.flush());
    } finally {
      await restoreTable();
    }
    assert.deepEqual(await stored(), before, 'nothing was written by the failed flushes');

    // The next flush succeeds (it does not rethrow the first failure) and writes every count once.
    await recorder.flush();
    assert.deepEqual(await stored(), { ...before, 404: at(404) + 5 });
    await recorder.flush();
    assert.deepEqual(await stored(), { ...before, 404: at(404) + 5 }, 'a second flush adds nothing');

    // Counting goes on: later calls are counted, through the route that flushes before reading.
    for (let i = 0; i < 4; i++) assert.equal((await notFound()).statusCode, 404);
    const read = await t.request('GET', '/v1/api-usage?days=1');
    assert.equal(read.statusCode, 200, read.body);
    const counts = Object.fromEntries(read.json().data[0].by_status.map((s: { status: number; calls: number }) => [s.status, s.calls]));
    assert.equal(counts[404], at(404) + 9);
  });

  test('the background flush warns once per outage, keeps going, and writes the counts once the database is back', async () => {
    const lines: { level: number; msg: string; failures?: number }[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const app = Fastify({ loggerInstance: pino({ level: 'info' }, sink) }) as unknown as FastifyInstance;
    const recorder = new UsageRecorder(t.database.db);
    recorder.install(app, t.clock.now);
    await app.ready();
    const warned = () => lines.filter((l) => l.msg === 'usage flush failed; retrying until it succeeds');
    try {
      await t.ctx.usage.flush();
      const before = await stored();
      await breakTable();
      try {
        for (let i = 0; i < 7; i++) recorder.record(t.demo.client_id, 'sandbox', t.clock.now(), 409);
        // The timer flushes every second: wait (bounded) for the failure to be logged, then long
        // enough for a second try (one second later) to fail too.
        for (let i = 0; i < 100 && warned().length < 1; i++) await sleep(100);
        await sleep(2_500);
        assert.equal(warned().length, 1, 'one warning for the whole outage, not one per flush');
        assert.equal(warned()[0].level, 40, 'as a warning');
        for (let i = 0; i < 2; i++) recorder.record(t.demo.client_id, 'sandbox', t.clock.now(), 409);
      } finally {
        await restoreTable();
      }
      // Without any explicit flush, the timer writes all nine counts once the table is back.
      const want = { ...before, 409: (before[409] ?? 0) + 9 };
      for (let i = 0; i < 100 && (await stored())[409] !== want[409]; i++) await sleep(100);
      assert.deepEqual(await stored(), want);
      const back = lines.find((l) => l.msg === 'usage flush works again');
      assert.ok(back && (back.failures ?? 0) >= 2, 'the recovery is logged, with the failed tries it took');
      await app.close();
      assert.deepEqual(await stored(), want, 'the flush at shutdown adds nothing more');
    } finally {
      await app.close();
    }
  });
});
