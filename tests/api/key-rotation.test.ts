import { afterEach, beforeEach, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { build } from '@idv/api';
import { runAdmin } from '@idv/api/admin';
import { openDatabase, queryRows, type Database } from '@idv/db';
import { LocalKeyWrapper, MasterKeyring, generateMasterKey, parseMasterKey } from '@idv/vault';
import { loadConfig } from '@idv/config';
import { bootstrapDemoClient } from '../../apps/api/src/bootstrap.ts';
import { CaseVault, FaceSearchIndex } from '@idv/case-data';
import { FACE_TEMPLATE_LENGTH, FACE_TEMPLATE_VERSION } from '@idv/engine';
import { rotateMasterKey } from '../../apps/api/src/services/key-rotation.ts';
import { DOCS_URL, JOURNEY_URL, startTestApp, type TestApp } from '../helpers/app.ts';
import { TEST_DB, createPostgresDatabase, seedPgliteDataDir } from '../helpers/database.ts';
import { signing } from '../helpers/signing.ts';

/**
 * Master key rotation without downtime: instances run with the new key and the old one as
 * previous, `keys rewrap` re-wraps every case key and re-seals every master-sealed secret while
 * they serve, and afterwards the old key can go: everything opens with the new key alone.
 */

// Each test rotates the key of its own app and database: the app it started with holds only the old key.
let t: TestApp;

const oldKey = () => t.config.masterKey!;

/** An app on the same database with another keyring (another instance after a configuration change). */
async function instance(keyring: MasterKeyring) {
  const { app } = await build({ config: t.config, db: t.database.db, keyring, now: t.clock.now, logger: false });
  const request = (method: string, url: string, body?: unknown, idempotencyKey = randomUUID()) => {
    const payload = body === undefined ? '' : JSON.stringify(body);
    const headers: Record<string, string> = { authorization: `Bearer ${t.demoKey.secret}` };
    if (payload) headers['content-type'] = 'application/json';
    if (method === 'POST') Object.assign(headers, signing.headers(t.demoKey.signingSecret, method, url, payload, idempotencyKey, Math.floor(t.clock.now().getTime() / 1000)));
    return app.inject({ method: method as 'POST', url, headers, payload: payload || undefined });
  };
  return { app, request };
}

async function declaredOf(keyring: MasterKeyring, caseId: string): Promise<unknown> {
  const [row] = await queryRows<{ declared_sealed: string }>(t.database.db, sql`SELECT declared_sealed FROM cases WHERE id = ${caseId}`);
  return new CaseVault(new LocalKeyWrapper(keyring)).openJson(t.database.db, caseId, 'data', 'declared', row.declared_sealed);
}

describe('master key rotation', () => {
  beforeEach(async () => {
    t = await startTestApp();
  });
  afterEach(() => t.close());

  test('rewrap while serving, then the old key can go', async () => {
    // Before: everything under the old key, plus one value an earlier version sealed with the master key itself.
    const idem = randomUUID();
    const created = await t.request('POST', '/v1/cases', { signed: true, idempotencyKey: idem, body: { flow_name: 'standard', country: 'FR', declared: { surname: 'Kowalczyk', given_names: 'Zofia' } } });
    assert.equal(created.statusCode, 201, created.body);
    const before = created.json().id as string;
    const hook = await t.request('POST', '/v1/webhook-endpoints', { signed: true, body: { url: 'http://localhost:3000/hooks', events: ['case.decided'] } });
    assert.equal(hook.statusCode, 201, hook.body);
    // A secret rotation in its overlap: the previous secret is re-sealed too. A deleted endpoint's
    // secrets are erased: nothing of it to re-seal.
    const rolled = await t.request('POST', `/v1/webhook-endpoints/${hook.json().id}/rotate-secret`, { signed: true, body: {} });
    assert.equal(rolled.statusCode, 200, rolled.body);
    const gone = await t.request('POST', '/v1/webhook-endpoints', { signed: true, body: { url: 'http://localhost:3000/gone', events: ['case.decided'] } });
    assert.equal((await t.request('DELETE', `/v1/webhook-endpoints/${gone.json().id}`, { signed: true })).statusCode, 200);
    const legacy = (await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR' } })).json().id as string;
    const legacySealed = t.ctx.keyring.seal(JSON.stringify({ surname: 'Legacy-Name' }), `case:${legacy}:declared`);
    await t.database.db.execute(sql`UPDATE cases SET declared_sealed = ${legacySealed} WHERE id = ${legacy}`);

    // Every instance now runs with MASTER_KEY=new, MASTER_KEYS_PREVIOUS=old: old values open, new ones go under the new key.
    const newKey = parseMasterKey(generateMasterKey());
    const during = new MasterKeyring(newKey, [oldKey()]);
    const serving = await instance(during);
    try {
      const fresh = await serving.request('POST', '/v1/cases', { flow_name: 'standard', country: 'FR', declared: { surname: 'Nowak' } });
      assert.equal(fresh.statusCode, 201, 'a key signed under the old master key still signs');
      const replay = await serving.request('POST', '/v1/cases', { flow_name: 'standard', country: 'FR', declared: { surname: 'Kowalczyk', given_names: 'Zofia' } }, idem);
      assert.equal(replay.headers['idempotent-replayed'], 'true');
      assert.equal(replay.json().id, before, 'a response stored under the old key replays');

      const wrapper = new LocalKeyWrapper(during);
      const vault = new CaseVault(wrapper);
      const status = await rotateMasterKey(t.database.db, during, wrapper, vault, { dryRun: true, batchSize: 2 });
      assert.equal(status.dry_run, true);
      assert.ok(status.case_keys.stale >= 1 && status.case_keys.rewritten === 0, JSON.stringify(status));
      assert.ok(status.api_key_signing_secrets.stale >= 1);
      assert.equal(status.webhook_secrets.stale, 2, 'the current and the previous secret of the rotated endpoint');
      assert.ok(status.idempotent_responses.stale >= 3);
      assert.equal(status.legacy_personal_data.stale, 1);

      // Small batches: the walk pages through every table.
      const report = await rotateMasterKey(t.database.db, during, wrapper, vault, { batchSize: 2, now: t.clock.now });
      for (const part of ['case_keys', 'api_key_signing_secrets', 'webhook_secrets', 'idempotent_responses', 'legacy_personal_data'] as const) {
        assert.equal(report[part].rewritten, status[part].stale, `${part}: every stale value rewritten`);
      }
      const again = await rotateMasterKey(t.database.db, during, wrapper, vault, { batchSize: 2 });
      for (const part of ['case_keys', 'api_key_signing_secrets', 'webhook_secrets', 'idempotent_responses', 'legacy_personal_data'] as const) {
        assert.deepEqual(again[part], { stale: 0, rewritten: 0 }, `${part}: nothing left`);
      }
    } finally {
      await serving.app.close();
    }

    // After: the old key is gone from the configuration; everything still opens.
    const only = new MasterKeyring(newKey);
    assert.deepEqual(await declaredOf(only, before), { surname: 'Kowalczyk', given_names: 'Zofia' });
    assert.deepEqual(await declaredOf(only, legacy), { surname: 'Legacy-Name' }, 'legacy personal data moved under the case key');
    const [legacyRow] = await queryRows<{ declared_sealed: string }>(t.database.db, sql`SELECT declared_sealed FROM cases WHERE id = ${legacy}`);
    assert.equal(legacyRow.declared_sealed.startsWith('v1.'), false);
    const [endpoint] = await queryRows<{ id: string; secret_sealed: string; previous_secret_sealed: string }>(
      t.database.db,
      sql`SELECT id, secret_sealed, previous_secret_sealed FROM webhook_endpoints WHERE id = ${hook.json().id}`,
    );
    assert.equal(only.openText(endpoint.secret_sealed, `webhook_endpoint:${endpoint.id}:secret`), rolled.json().secret);
    assert.equal(only.openText(endpoint.previous_secret_sealed, `webhook_endpoint:${endpoint.id}:previous_secret`), hook.json().secret);
    const after = await instance(only);
    try {
      const signed = await after.request('POST', '/v1/cases', { flow_name: 'standard', country: 'FR' });
      assert.equal(signed.statusCode, 201, signed.body);
      const replay = await after.request('POST', '/v1/cases', { flow_name: 'standard', country: 'FR', declared: { surname: 'Kowalczyk', given_names: 'Zofia' } }, idem);
      assert.equal(replay.json().id, before);
    } finally {
      await after.app.close();
    }
    // The data sealed under the case keys was not rewritten: only the keys that protect it.
    const old = new MasterKeyring(oldKey());
    await assert.rejects(declaredOf(old, before), 'the old master key alone no longer unwraps the case key');
  });

  test('a face index key is re-wrapped, and gives the same rotation under the new key alone', async () => {
    const tenant = { clientId: t.demo.client_id, environment: 'sandbox' as const };
    const descriptor = { version: FACE_TEMPLATE_VERSION, length: FACE_TEMPLATE_LENGTH };
    const template = Array.from({ length: FACE_TEMPLATE_LENGTH }, (_, i) => Math.sin(i) / 30);
    const before = (await new FaceSearchIndex(new LocalKeyWrapper(new MasterKeyring(oldKey())), descriptor).rotation(t.database.db, tenant, t.clock.now())).apply(template);
    const newKey = parseMasterKey(generateMasterKey());
    const during = new MasterKeyring(newKey, [oldKey()]);
    const wrapper = new LocalKeyWrapper(during);
    const report = await rotateMasterKey(t.database.db, during, wrapper, new CaseVault(wrapper));
    assert.deepEqual(report.face_index_keys, { stale: 1, rewritten: 1 });
    assert.deepEqual((await rotateMasterKey(t.database.db, during, wrapper, new CaseVault(wrapper), { dryRun: true })).face_index_keys, { stale: 0, rewritten: 0 });
    const alone = new MasterKeyring(newKey);
    const after = (await new FaceSearchIndex(new LocalKeyWrapper(alone), descriptor).rotation(t.database.db, tenant, t.clock.now())).apply(template);
    assert.deepEqual(after, before, 'the indexed vectors stay valid: the same rotation');
  });

  test('a case key destroyed meanwhile is not brought back', async () => {
    const res = await t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR', declared: { surname: 'Erased' } } });
    assert.equal(res.statusCode, 201, res.body);
    const caseId = res.json().id as string;
    const during = new MasterKeyring(parseMasterKey(generateMasterKey()), [oldKey()]);
    await t.ctx.vault.destroy(t.database.db, caseId, t.clock.now());
    const wrapper = new LocalKeyWrapper(during);
    await rotateMasterKey(t.database.db, during, wrapper, new CaseVault(wrapper));
    const rows = await queryRows<{ wrapped: string | null }>(t.database.db, sql`SELECT wrapped FROM case_keys WHERE case_id = ${caseId}`);
    assert.ok(rows.length > 0 && rows.every((r) => r.wrapped === null));
  });
});

describe(`npm run admin -- keys status | rewrap on ${TEST_DB}`, () => {
  test('the command rewraps under MASTER_KEY what was sealed under MASTER_KEYS_PREVIOUS', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'idv-rotate-'));
    let drop = async () => {};
    let target: { kind: 'postgres'; url: string } | { kind: 'pglite'; dataDir: string } = { kind: 'pglite', dataDir };
    const oldText = generateMasterKey();
    const newText = generateMasterKey();
    let env: Record<string, string> = { DATA_DIR: dataDir, LOG_LEVEL: 'silent' };
    if (TEST_DB === 'postgres') {
      const created = await createPostgresDatabase();
      drop = created.dropDb;
      target = { kind: 'postgres', url: created.url };
      env = { ...env, DATABASE_URL: created.url };
    } else {
      // The migrated snapshot as its embedded database: the subject is the rewrap, not a first start.
      await seedPgliteDataDir(dataDir);
    }
    try {
      // Seed under the old key, then close (PGlite allows one process).
      let database: Database = await openDatabase(target);
      const config = loadConfig({ DOCS_URL, JOURNEY_URL, LOG_LEVEL: 'silent', MASTER_KEY: oldText });
      const oldRing = new MasterKeyring(parseMasterKey(oldText));
      const demo = (await bootstrapDemoClient(database.db, oldRing, new Date()))!;
      const { app } = await build({ config, db: database.db, keyring: oldRing, logger: false });
      const body = JSON.stringify({ flow_name: 'standard', country: 'FR', declared: { surname: 'Szymańska' } });
      const headers = {
        authorization: `Bearer ${demo.api_key.secret}`,
        'content-type': 'application/json',
        ...signing.headers(demo.api_key.signing_secret, 'POST', '/v1/cases', body, randomUUID(), Math.floor(Date.now() / 1000)),
      };
      const caseId = (await app.inject({ method: 'POST', url: '/v1/cases', headers, payload: body })).json().id as string;
      await app.close();
      await database.close();

      const rotated = { ...env, MASTER_KEY: newText, MASTER_KEYS_PREVIOUS: oldText };
      // What `npm run admin -- …` prints and exits with, run in this process (the command line
      // around it is run as a process by tests/e2e/admin-cli.test.ts): a process each cost about
      // 2.5 s of CPU to start.
      const run = async (...args: string[]) => {
        const res = await runAdmin(args, rotated);
        assert.equal(res.code, 0, res.err);
        return JSON.parse(res.out);
      };
      const status = await run('keys', 'status');
      assert.equal(status.case_keys.stale, 1);
      assert.equal(status.api_key_signing_secrets.stale, 1);
      const done = await run('keys', 'rewrap', '--batch', '10');
      assert.deepEqual(done.case_keys, { stale: 1, rewritten: 1 });
      assert.deepEqual(done.api_key_signing_secrets, { stale: 1, rewritten: 1 });
      const left = await run('keys', 'status');
      assert.deepEqual([left.case_keys.stale, left.api_key_signing_secrets.stale, left.idempotent_responses.stale], [0, 0, 0]);

      database = await openDatabase(target);
      try {
        const newRing = new MasterKeyring(parseMasterKey(newText));
        const [row] = await queryRows<{ declared_sealed: string }>(database.db, sql`SELECT declared_sealed FROM cases WHERE id = ${caseId}`);
        const vault = new CaseVault(new LocalKeyWrapper(newRing));
        assert.deepEqual(await vault.openJson(database.db, caseId, 'data', 'declared', row.declared_sealed), { surname: 'Szymańska' });
      } finally {
        await database.close();
      }
    } finally {
      await drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
