import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import pino from 'pino';
import { isDatabaseUnavailable, openDatabase, type Database } from '@idv/db';
import { UsageRecorder } from '../../apps/api/src/http/usage-recorder.ts';
import { startFaultCluster, type FaultCluster } from '../helpers/fault-cluster.ts';

/**
 * The database layer across a real PostgreSQL restart and stop (a cluster of the test's own):
 * the pool's connections ended by the server are replaced without reopening anything, the LISTEN
 * connection comes back by itself and notifications arrive again, and the usage counts recorded
 * while the server was away are written once it is back, with one warning for the outage.
 */

let cluster: FaultCluster;
let database: Database;
before(async () => {
  cluster = await startFaultCluster();
  database = await openDatabase({ kind: 'postgres', url: cluster.url, poolSize: 4 });
});
after(async () => {
  await database?.close().catch(() => {});
  await cluster?.destroy();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
async function until(what: string, cond: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(50);
  }
}

test('after a restart the pool answers again and LISTEN is back, without reopening the database', async () => {
  let heard = 0;
  const unlisten = await database.listen('faults_test', () => heard++);
  try {
    const notify = () => cluster.query("SELECT pg_notify('faults_test', 'x')");
    const before = heard;
    await notify();
    await until('a notification before the restart', () => heard > before);

    await cluster.restart();
    // The pool's idle connections were ended by the server: the next query opens a new one.
    await until('the pool answering again', () => database.ping().then(() => true, () => false));
    // The listening connection is reopened within a second or so; notifications arrive again.
    await until('a notification after the restart', async () => {
      const seen = heard;
      await notify();
      await sleep(200);
      return heard > seen;
    });
  } finally {
    await unlisten();
  }
});

test('while the server is stopped queries fail as unavailable (not hanging); the usage counts of the outage are written once it is back', async () => {
  const lines: { level: number; msg: string }[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = Fastify({ loggerInstance: pino({ level: 'info' }, sink) }) as unknown as FastifyInstance;
  const recorder = new UsageRecorder(database.db);
  recorder.install(app, () => new Date());
  await app.ready();
  const client = 'cli_faults_reconnect';
  const stored = async () => {
    const rows = await cluster.query<{ n: string }>('SELECT coalesce(sum(calls), 0) AS n FROM api_usage_daily WHERE client_id = $1', [client]);
    return Number(rows[0].n);
  };
  try {
    await cluster.stop();
    const started = Date.now();
    const err = await database.ping().then(() => null, (e: unknown) => e);
    assert.ok(err && isDatabaseUnavailable(err), `the failure is classified as unavailability: ${String(err)}`);
    assert.ok(Date.now() - started < 6_000, 'and comes within the connect timeout');
    for (let i = 0; i < 5; i++) recorder.record(client, 'sandbox', new Date(), 201);
    await until('the failed flush warned', () => lines.some((l) => l.msg === 'usage flush failed; retrying until it succeeds'));
    for (let i = 0; i < 3; i++) recorder.record(client, 'sandbox', new Date(), 201);
    await cluster.start();
    await until('the counts of the outage written', async () => (await stored().catch(() => -1)) === 8);
    await until('the recovery logged', () => lines.some((l) => l.msg === 'usage flush works again'));
    assert.equal(lines.filter((l) => l.msg === 'usage flush failed; retrying until it succeeds').length, 1, 'one warning for the outage');
  } finally {
    await app.close();
  }
  assert.equal(await stored(), 8, 'written once');
});

test('a connection lost while a transaction holds it (between two statements) fails that transaction as unavailable, and the process lives on', async () => {
  const { sql } = await import('drizzle-orm');
  const err = await database.db
    .transaction(async (tx) => {
      await tx.execute(sql`SELECT 1`);
      // The server goes away while the client is checked out and idle (the request is, say,
      // writing an image): the driver reports the loss as an 'error' event on the client.
      await cluster.restart();
      await sleep(200);
      await tx.execute(sql`SELECT 1`);
    })
    .then(() => null, (e: unknown) => e);
  assert.ok(err && isDatabaseUnavailable(err), `the transaction fails as unavailable: ${String(err)}`);
  await until('the pool answering again', () => database.ping().then(() => true, () => false));
});
