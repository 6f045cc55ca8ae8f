import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { build } from '@idv/api';
import { loadConfig } from '@idv/config';
import { startTestApp, type TestApp } from '../helpers/app.ts';

/**
 * The service's request log names the path and the query's parameters, never their values: a
 * search by external reference or by prefix (`external_ref`, `q`) would otherwise write the
 * client's customer identifiers into every log line of the request.
 */
let t: TestApp;
before(async () => (t = await startTestApp()));
after(() => t.close());

test('query values are redacted from the request log; the path and the parameter names stay', async () => {
  const lines: string[] = [];
  const stream = new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) });
  const config = loadConfig({ DOCS_URL: 'http://docs.test', JOURNEY_URL: 'http://journey.test', LOG_LEVEL: 'info' });
  const { app } = await build({ config, db: t.database.db, keyring: t.ctx.keyring, now: t.clock.now, logger: true, logStream: stream });
  try {
    const res = await app.inject({ method: 'GET', url: '/v1/cases?external_ref=customer-4711-ana&q=Ana%20Lima&limit=5', headers: { authorization: `Bearer ${t.demoKey.secret}` } });
    assert.equal(res.statusCode, 200, res.body);
  } finally {
    await app.close();
  }
  const log = lines.join('');
  assert.ok(log.includes('/v1/cases?external_ref=') && log.includes('&q=') && log.includes('&limit='), log);
  for (const secret of ['customer-4711-ana', 'Ana', 'Lima', 'limit=5']) assert.ok(!log.includes(secret), `${secret} reached the log`);
});
