import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { build } from '@idv/api';
import { runAdmin } from '@idv/api/admin';
import { openDatabase, type Database } from '@idv/db';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import { loadConfig, localMasterKey } from '@idv/config';
import { TEST_DB, createPostgresDatabase, seedPgliteDataDir } from '../helpers/database.ts';
import { runNode } from '../helpers/processes.ts';
import { signing } from '../helpers/signing.ts';

/**
 * `npm run admin -- …` on the database of TEST_DB, and its keys and flows used through the API.
 * The commands run in this process through runAdmin (what the command line prints and exits
 * with), each opening and closing the database as the command does; the command line itself
 * (apps/api/src/admin/cli.ts) is run as a process by the last test. A process per command cost
 * this file two minutes of CPU on PGlite.
 * On PGlite, DATA_DIR holds the migrated snapshot from the start: the commands' subject is not a
 * first start (tests/e2e/server-process.test.ts has it), which cost the first command about 8 s
 * of CPU to initialise and migrate the database.
 */

const CLI = 'apps/api/src/admin/cli.ts';
let dataDir: string;
let env: Record<string, string>;
let dropDb = async () => {};

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-admin-'));
  env = { DATA_DIR: dataDir };
  if (TEST_DB === 'postgres') {
    const created = await createPostgresDatabase();
    dropDb = created.dropDb;
    env = { ...env, DATABASE_URL: created.url, MASTER_KEY: generateMasterKey() };
  } else {
    await seedPgliteDataDir(dataDir);
  }
});
after(async () => {
  await dropDb();
  rmSync(dataDir, { recursive: true, force: true });
});

async function admin(...args: string[]): Promise<{ code: number | string; out: string; err: string }> {
  return runAdmin(args, env);
}
async function adminJson<T>(...args: string[]): Promise<T> {
  const res = await admin(...args);
  assert.equal(res.code, 0, `${args.join(' ')}: ${res.err}`);
  return JSON.parse(res.out) as T;
}

describe(`admin command on ${TEST_DB}`, () => {
  test('creates a client, a production flow and a production key that work through the API', async () => {
    const client = await adminJson<{ id: string; name: string }>('client', 'create', '--name', 'Acme Bank');
    assert.match(client.id, /^cli_/);
    assert.equal(client.name, 'Acme Bank');
    const template = await admin('flow', 'template');
    assert.equal(template.code, 0);
    const named = await admin('flow', 'template', 'document_only');
    assert.equal(named.code, 0);
    assert.deepEqual(JSON.parse(named.out).steps, ['consent', 'document']);
    const unknownTemplate = await admin('flow', 'template', 'nope');
    assert.notEqual(unknownTemplate.code, 0);
    assert.match(unknownTemplate.err, /Unknown template nope: one of standard, document_and_selfie/);
    const file = join(dataDir, 'flow.json');
    writeFileSync(file, template.out);
    const flow = await adminJson<{ name: string; version: number; status: string }>(
      'flow', 'create', '--client', client.id, '--environment', 'prod', '--name', 'onboarding', '--file', file, '--activate',
    );
    assert.deepEqual({ name: flow.name, version: flow.version, status: flow.status }, { name: 'onboarding', version: 1, status: 'active' });
    const key = await adminJson<{ id: string; environment: string; permissions: string[]; secret: string; signing_secret: string }>(
      'key', 'create', '--client', client.id, '--environment', 'prod', '--permissions', 'personal_data',
    );
    assert.match(key.secret, /^sk_live_[A-Za-z0-9_-]{43}$/);
    assert.equal(key.environment, 'prod');
    assert.deepEqual(key.permissions, ['personal_data']);
    const listed = await adminJson<{ id: string }[]>('client', 'list');
    assert.deepEqual(listed.map((c) => c.id), [client.id]);
    const flows = await adminJson<{ name: string; status: string }[]>('flow', 'list', '--client', client.id, '--environment', 'prod');
    assert.deepEqual(flows.map((f) => [f.name, f.status]), [['onboarding', 'active']]);

    // The key and the flow, through the API on the same database.
    const config = loadConfig({ ...env, LOG_LEVEL: 'silent', DOCS_URL: 'http://docs.test' });
    const masterKey = config.masterKey ?? localMasterKey(dataDir).key;
    const database: Database = await openDatabase(config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl, poolSize: 2 } : { kind: 'pglite', dataDir });
    let app: Awaited<ReturnType<typeof build>>['app'] | undefined;
    try {
      app = (await build({ config, db: database.db, keyring: new MasterKeyring(masterKey), logger: false })).app;
      const body = JSON.stringify({ flow_name: 'onboarding', country: 'FR' });
      const res = await app.inject({
        method: 'POST',
        url: '/v1/cases',
        payload: body,
        headers: { authorization: `Bearer ${key.secret}`, 'content-type': 'application/json', ...signing.headers(key.signing_secret, 'POST', '/v1/cases', body, randomUUID()) },
      });
      assert.equal(res.statusCode, 201, res.body);
      assert.equal(res.json().flow_name, 'onboarding');
      const grant = await app.inject({
        method: 'POST',
        url: '/v1/api-keys',
        payload: { permissions: ['decisions'] },
        headers: { authorization: `Bearer ${key.secret}` },
      });
      assert.equal(grant.statusCode, 403, 'the key holds only personal_data');
    } finally {
      await app?.close();
      await database.close();
    }

    // A console credential is made and revoked by the command line only (the API refuses to revoke one).
    const consoleKey = await adminJson<{ id: string; kind: string; secret: string }>('key', 'create', '--client', client.id, '--environment', 'prod', '--kind', 'console');
    assert.equal(consoleKey.kind, 'console');
    assert.match(consoleKey.secret, /^sk_live_/);
    assert.equal('signing_secret' in consoleKey, false, 'a console credential signs nothing: no signing secret is printed');
    assert.deepEqual(await adminJson('key', 'revoke', '--client', client.id, '--environment', 'prod', '--key', consoleKey.id), { id: consoleKey.id, revoked: true });
    const unknown = await admin('key', 'revoke', '--client', client.id, '--environment', 'prod', '--key', 'key_nobody');
    assert.equal(unknown.code, 2);
  });

  test('refuses bad usage with exit code 2 and the usage text', async () => {
    const cases: [string[], RegExp][] = [
      [[], /npm run admin/],
      [['client', 'create'], /--name is required/],
      [['key', 'create', '--client', 'cli_nobody', '--environment', 'prod'], /no client cli_nobody/],
    ];
    // One after the other: PGlite allows one process at a time.
    for (const [args, pattern] of cases) {
      const res = await admin(...args);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.out}${res.err}`);
      assert.match(res.err, pattern);
    }
    const clients = await adminJson<unknown[]>('client', 'list');
    assert.equal(clients.length, 1, 'nothing was created by the refused commands');
  });

  test('contract set, list and end: a round trip of subscriptions and their states, refusals changing nothing', async () => {
    const client = await adminJson<{ id: string }>('client', 'create', '--name', 'Contract Bank');
    type Sub = { id: string; service: string; offer: string; quota: number | null; over_quota: string | null; starts_at: string; ends_at: string | null; state: string };
    const first = await adminJson<{ subscription: Sub; ended: Sub[] }>(
      'contract', 'set', '--client', client.id, '--service', 'verification', '--offer', 'starter', '--quota', '100', '--over-quota', 'block',
    );
    assert.match(first.subscription.id, /^sub_/);
    assert.deepEqual(
      { ...first.subscription, id: undefined, starts_at: undefined },
      { id: undefined, service: 'verification', offer: 'starter', quota: 100, over_quota: 'block', starts_at: undefined, ends_at: null, state: 'in_force' },
    );
    assert.deepEqual(first.ended, []);
    const upcoming = await adminJson<{ subscription: Sub }>(
      'contract', 'set', '--client', client.id, '--service', 'review', '--offer', 'review plus', '--quota', 'unlimited', '--starts', '2099-01-01',
    );
    assert.deepEqual(
      [upcoming.subscription.state, upcoming.subscription.starts_at, upcoming.subscription.quota, upcoming.subscription.over_quota],
      ['upcoming', '2099-01-01T00:00:00.000Z', null, null],
    );
    // New terms for verification end the running subscription where they start.
    const raised = await adminJson<{ subscription: Sub; ended: Sub[] }>(
      'contract', 'set', '--client', client.id, '--service', 'verification', '--offer', 'business', '--quota', '500', '--over-quota', 'notify',
    );
    assert.deepEqual(raised.ended.map((s) => [s.id, s.state, s.ends_at]), [[first.subscription.id, 'ended', raised.subscription.starts_at]]);
    const cancelled = await adminJson<Sub>('contract', 'end', '--client', client.id, '--subscription', upcoming.subscription.id);
    assert.deepEqual([cancelled.state, cancelled.ends_at], ['ended', '2099-01-01T00:00:00.000Z']);

    const listed = await adminJson<Sub[]>('contract', 'list', '--client', client.id);
    assert.deepEqual(
      listed.map((s) => [s.service, s.offer, s.state]),
      [
        ['review', 'review plus', 'ended'],
        ['verification', 'starter', 'ended'],
        ['verification', 'business', 'in_force'],
      ],
    );

    const refusals: [string[], RegExp][] = [
      [['--service', 'review', '--offer', 'x', '--quota', '10', '--over-quota', 'block'], /block applies to verification only/],
      [['--service', 'review', '--offer', 'x', '--quota', '10'], /--over-quota must be one of block, allow, notify/],
      [['--service', 'review', '--offer', 'x', '--quota', '1.5', '--over-quota', 'allow'], /--quota must be unlimited or an integer/],
      [['--service', 'verification', '--offer', 'x', '--quota', '10', '--over-quota', 'allow', '--starts', '2000-01-01'], /starts at .* within the new period: end it first/],
    ];
    for (const [args, pattern] of refusals) {
      const res = await admin('contract', 'set', '--client', client.id, ...args);
      assert.equal(res.code, 2, `${args.join(' ')}: ${res.out}${res.err}`);
      assert.match(res.err, pattern);
    }
    const unknown = await admin('contract', 'end', '--client', client.id, '--subscription', 'sub_01m7ym09t80f4fggxqxy1yr50c');
    assert.equal(unknown.code, 2);
    assert.match(unknown.err, /has no subscription sub_01m7ym09t80f4fggxqxy1yr50c/);
    assert.equal((await adminJson<Sub[]>('contract', 'list', '--client', client.id)).length, 3, 'nothing changed by the refused commands');
  });

  test('the command line (npm run admin): the result as JSON on stdout and exit 0; a wrong command line, the usage on stderr and exit 2', async () => {
    const listed = runNode(CLI, ['client', 'list'], env);
    assert.equal(await listed.exited, 0, listed.stderr());
    assert.deepEqual(
      (JSON.parse(listed.stdout()) as { name: string }[]).map((c) => c.name).sort(),
      ['Acme Bank', 'Contract Bank'],
    );
    const wrong = runNode(CLI, ['client', 'create'], env);
    assert.equal(await wrong.exited, 2);
    assert.equal(wrong.stdout(), '');
    assert.match(wrong.stderr(), /^error: --name is required\n\nAdministration of the service/);
    assert.match(wrong.stderr(), /npm run admin -- client create --name <name>/);
  });
});
