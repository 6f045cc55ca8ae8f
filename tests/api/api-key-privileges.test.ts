import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { OperatorRow } from '@idv/db';
import { errorOf, type Credentials } from '../helpers/app.ts';
import { addOperator, startReviewApp, type ReviewTestApp } from '../helpers/operators.ts';

/**
 * A key cannot outrank itself: it revokes only keys whose permissions it holds, as it creates only
 * such keys, and never the console credential, which every operator's session rests on. Through
 * the console an administrator may revoke any integration key, still not a console credential.
 */
let t: ReviewTestApp;
let admin: OperatorRow;
before(async () => {
  t = await startReviewApp();
  admin = await addOperator(t, { role: 'administrator' });
});
after(() => t.close());

async function key(permissions: string[]): Promise<Credentials & { permissions: string[] }> {
  const res = await t.request('POST', '/v1/api-keys', { body: { name: `holds ${permissions.join('+') || 'nothing'}`, permissions } });
  assert.equal(res.statusCode, 201, res.body);
  const k = res.json();
  return { id: k.id, secret: k.secret, signingSecret: k.signing_secret, permissions };
}
const revoke = (id: string, by: Credentials) => t.request('DELETE', `/v1/api-keys/${id}`, { key: by });
const stillWorks = async (k: Credentials) => (await t.request('GET', '/v1/api-keys', { key: k })).statusCode === 200;

describe('DELETE /v1/api-keys/{key_id}: privileges', () => {
  test('a key without a permission cannot revoke a key holding it; nothing is revoked', async () => {
    const bare = await key([]);
    const strong = await key(['personal_data', 'decisions']);
    const onlyData = await key(['personal_data']);
    for (const [caller, target] of [[bare, strong], [onlyData, strong], [bare, onlyData]] as const) {
      const res = await revoke(target.id, caller);
      assert.equal(res.statusCode, 403, res.body);
      assert.deepEqual([errorOf(res).code, errorOf(res).field], ['permission_not_held', 'key_id']);
      assert.ok(await stillWorks(target), 'the stronger key still works');
    }
  });

  test('a key revokes keys whose permissions it holds, and itself', async () => {
    const strong = await key(['personal_data', 'decisions']);
    const onlyData = await key(['personal_data']);
    const bare = await key([]);
    assert.equal((await revoke(onlyData.id, strong)).statusCode, 204);
    assert.equal((await revoke(bare.id, strong)).statusCode, 204);
    assert.equal(await stillWorks(onlyData), false);
    const self = await key([]);
    assert.equal((await revoke(self.id, self)).statusCode, 204);
  });

  test('no integration key revokes the console credential, whatever it holds; operators keep their session', async () => {
    for (const caller of [await key([]), await key(['personal_data', 'decisions'])]) {
      const res = await revoke(t.consoleKey.id, caller);
      assert.equal(res.statusCode, 403, res.body);
      assert.deepEqual([errorOf(res).code, errorOf(res).field], ['console_key_protected', 'key_id']);
    }
    assert.equal((await t.asOperator(admin, 'GET', '/v1/api-keys')).statusCode, 200, 'the console credential still works');
  });

  test('through the console an administrator revokes any integration key, never the console credential', async () => {
    const strong = await key(['personal_data', 'decisions']);
    assert.equal((await t.asOperator(admin, 'DELETE', `/v1/api-keys/${strong.id}`, { reauth: true })).statusCode, 204);
    const own = await t.asOperator(admin, 'DELETE', `/v1/api-keys/${t.consoleKey.id}`, { reauth: true });
    assert.equal(errorOf(own).code, 'console_key_protected');
  });
});
