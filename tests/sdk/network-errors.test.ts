import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { ApiConnectionError, IdvClient } from '@idv/sdk';

/**
 * A request that gets no answer at all: the error names the method and the URL called (not
 * `fetch failed` alone), keeps fetch's error as its cause, and carries no secret and no body.
 */

/** A port nothing listens on: bound, then closed, so connecting to it is refused. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('SDK network failures', () => {
  test('a refused connection names the method and URL, keeps the cause, and shows no secret', async () => {
    const port = await closedPort();
    const idv = new IdvClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'sk_sandbox_secretkey', signingSecret: 'signing-secret', maxAttempts: 2 });
    const err = await idv.createCase({ flow_name: 'standard', country: 'FR', external_ref: 'body-value-42' }).catch((e: unknown) => e);
    assert.ok(err instanceof ApiConnectionError, String(err));
    assert.equal(err.name, 'ApiConnectionError');
    assert.match(err.message, new RegExp(`^POST http://127\\.0\\.0\\.1:${port}/v1/cases failed after 2 attempts: fetch failed \\(ECONNREFUSED`));
    assert.equal(err.method, 'POST');
    assert.equal(err.url, `http://127.0.0.1:${port}/v1/cases`);
    assert.equal(err.attempts, 2, 'a signed creation is retried');
    assert.ok(err.cause instanceof TypeError, 'the cause is the error fetch raised');
    assert.equal(err.cause.message, 'fetch failed');
    assert.equal((err.cause.cause as { code?: string }).code, 'ECONNREFUSED');
    const shown = `${err.message} ${err.stack} ${JSON.stringify(err)}`;
    for (const secret of ['sk_sandbox_secretkey', 'signing-secret', 'body-value-42']) assert.ok(!shown.includes(secret), `${secret} is not shown`);
  });

  test('a write that may have been served is tried once, a read with its query names the whole URL', async () => {
    const port = await closedPort();
    const idv = new IdvClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k', signingSecret: 's', maxAttempts: 3 });
    const write = await idv.createApiKey({}).catch((e: unknown) => e);
    assert.ok(write instanceof ApiConnectionError);
    assert.match(write.message, new RegExp(`^POST http://127\\.0\\.0\\.1:${port}/v1/api-keys failed after 1 attempt: `));
    const read = await idv.listCases({ status: 'decided', limit: 5 }).catch((e: unknown) => e);
    assert.ok(read instanceof ApiConnectionError);
    assert.equal(read.url, `http://127.0.0.1:${port}/v1/cases?status=decided&limit=5`);
    assert.equal(read.attempts, 3);
  });

  test('a base URL carrying a user name and password does not show them', async () => {
    const err = await new IdvClient({ baseUrl: 'http://operator:base-password@127.0.0.1:9', apiKey: 'k', signingSecret: 's', maxAttempts: 1 })
      .getCase('case_1')
      .catch((e: unknown) => e);
    assert.ok(err instanceof ApiConnectionError);
    assert.equal(err.url, 'http://127.0.0.1:9/v1/cases/case_1');
    assert.match(err.message, /^GET http:\/\/127\.0\.0\.1:9\/v1\/cases\/case_1 failed after 1 attempt: /);
    assert.doesNotMatch(err.message, /base-password|operator/);
  });
});
