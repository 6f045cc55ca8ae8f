import { test } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import pg from 'pg';
import { isDatabaseUnavailable } from '@idv/db';
import { FailureStreak } from '@idv/domain';

/**
 * What counts as "the database cannot be reached" (answered 503, retried by the background loops)
 * and what does not (a fault of the query, answered 500). The errors are real ones: a connection
 * to a port nobody listens on, a server that ends the connection, and PostgreSQL's SQLSTATEs as
 * node-postgres reports them, also wrapped the way drizzle wraps a failed query.
 */

async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((r) => server.close(r));
  return port;
}

test('a refused connection, a connection ended by the server and a connect timeout are unavailability', async () => {
  const refused = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${await closedPort()}/x`, connectionTimeoutMillis: 2000 });
  const err1 = await refused.query('SELECT 1').catch((e: unknown) => e);
  await refused.end();
  assert.ok(isDatabaseUnavailable(err1), String(err1));

  // A server that accepts and hangs up at once (as PostgreSQL does when it shuts down).
  const server = net.createServer((socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const ended = new pg.Client({ connectionString: `postgres://postgres@127.0.0.1:${(server.address() as net.AddressInfo).port}/x` });
  const err2 = await ended.connect().catch((e: unknown) => e);
  assert.ok(isDatabaseUnavailable(err2), String(err2));

  // A server that accepts and never answers: the pool's connect timeout.
  const silent = net.createServer(() => {});
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  const slow = new pg.Pool({ connectionString: `postgres://postgres@127.0.0.1:${(silent.address() as net.AddressInfo).port}/x`, connectionTimeoutMillis: 200 });
  const err3 = await slow.query('SELECT 1').catch((e: unknown) => e);
  await slow.end().catch(() => {});
  assert.ok(isDatabaseUnavailable(err3), String(err3));
  silent.close();
  server.close();
});

test("PostgreSQL's shutdown and connection SQLSTATEs count, also wrapped; query faults do not", () => {
  const sqlstate = (code: string) => Object.assign(new Error('server message'), { code });
  for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '53300']) {
    assert.ok(isDatabaseUnavailable(sqlstate(code)), code);
    assert.ok(isDatabaseUnavailable(new Error('Failed query: …', { cause: sqlstate(code) })), `${code} wrapped`);
  }
  for (const code of ['23505', '42P01', '22P02', '40001', '57014']) assert.equal(isDatabaseUnavailable(sqlstate(code)), false, code);
  // A missing file is not a missing unix socket.
  assert.equal(isDatabaseUnavailable(Object.assign(new Error('no file'), { code: 'ENOENT', syscall: 'open' })), false);
  assert.ok(isDatabaseUnavailable(Object.assign(new Error('no socket'), { code: 'ENOENT', syscall: 'connect' })));
  assert.equal(isDatabaseUnavailable(new Error('boom')), false);
  assert.equal(isDatabaseUnavailable(null), false);
});

test('a failure streak warns once, backs off up to its ceiling, and says when it works again', () => {
  const lines: { level: string; obj: Record<string, unknown>; msg: string }[] = [];
  let clock = 0;
  const log = {
    warn: (obj: object, msg: string) => lines.push({ level: 'warn', obj: obj as Record<string, unknown>, msg }),
    info: (obj: object, msg: string) => lines.push({ level: 'info', obj: obj as Record<string, unknown>, msg }),
  };
  const streak = new FailureStreak('usage flush', log, 500, 4000, () => clock);
  const err = new Error('Failed query: insert … params: Grace Hopper', { cause: Object.assign(new Error('terminating connection'), { code: '57P01' }) });
  const waits = [1, 2, 3, 4, 5].map(() => streak.failed(err));
  assert.deepEqual(waits, [500, 1000, 2000, 4000, 4000]);
  assert.equal(lines.length, 1, 'one warning for the streak');
  assert.equal(lines[0].level, 'warn');
  assert.deepEqual(lines[0].obj, { err: { name: 'Error', code: '57P01' } }, 'name and code only: no query parameters');
  assert.doesNotMatch(JSON.stringify(lines), /Grace|Hopper|insert/);
  clock = 7_300;
  streak.succeeded();
  assert.deepEqual(lines[1], { level: 'info', obj: { failures: 5, seconds: 7.3 }, msg: 'usage flush works again' });
  streak.succeeded();
  assert.equal(lines.length, 2, 'nothing more while it works');
  assert.equal(streak.failed(err), 500, 'a new streak starts from the base delay');
  assert.equal(lines.length, 3);
});
