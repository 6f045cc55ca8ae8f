import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { openDatabase, queryRows } from '@idv/db';
import { sql } from 'drizzle-orm';
import { ApiRequestError, IdvClient } from '@idv/sdk';
import { generateMasterKey } from '@idv/vault';
import { TEST_DB, createPostgresDatabase } from '../helpers/database.ts';
import { freePort, runServe, stop, waitUntilReady, type Proc } from '../helpers/processes.ts';
import { signing } from '../helpers/signing.ts';

/**
 * The service as an operator runs it: what `npm run serve` runs (the bundle of apps/server/src,
 * made again first when a source changed: apps/server/src/bundle.ts), over real HTTP, on the
 * database of TEST_DB (PGlite in DATA_DIR, or a fresh PostgreSQL database with MASTER_KEY).
 */
// The starts after the first run no check: the warm-up (seconds of CPU on each thread) is left off.
const NO_WARM_UP = { CHECKS_WARM_UP: 'false' };

let dataDir: string;
let databaseUrl: string | null = null;
let dropDb = async () => {};
const masterKey = generateMasterKey();
const procs: Proc[] = [];

interface Instance {
  proc: Proc;
  api: string;
  /** API_BASE_URL: the address the service gives out (localhost), beside `api` (127.0.0.1) that the tests call. */
  apiBaseUrl: string;
  docsUrl: string;
  journeyUrl: string;
  consoleUrl: string;
}

async function startService(dir = dataDir, extra: Record<string, string> = {}, args: string[] = []): Promise<Instance> {
  const [port, docsPort, journeyPort, consolePort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const docsUrl = `http://localhost:${docsPort}`;
  const journeyUrl = `http://localhost:${journeyPort}`;
  const consoleUrl = `http://localhost:${consolePort}`;
  const env: Record<string, string> = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    API_BASE_URL: `http://localhost:${port}`,
    DOCS_URL: docsUrl,
    JOURNEY_URL: journeyUrl,
    CONSOLE_URL: consoleUrl,
    // The development identity provider of the console, on a port of its own.
    IDP_URL: `http://127.0.0.1:${await freePort()}`,
    LOG_LEVEL: 'warn',
    // As `npm run serve` runs it: PGlite's thread from its TypeScript entry through tsx's hook, not
    // from the test runner's bundle of it (PGLITE_THREAD_BUNDLE, packages/db/src/pglite-remote.ts),
    // so that the service's own way stays tested.
    PGLITE_THREAD_BUNDLE: '',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl, MASTER_KEY: masterKey } : {}),
    ...extra,
  };
  const proc = runServe(args, env);
  procs.push(proc);
  const api = `http://127.0.0.1:${port}`;
  // As long as every whole-service start is given (startWholeService, all-in-one): the first start
  // also initialises the database, beside three threads loading the checks' models, on two cores
  // that CI shares with two other test files (seen past 90 s there; 45 s alone).
  await waitUntilReady(proc, `${api}/readyz`, 180_000);
  return { proc, api, apiBaseUrl: `http://localhost:${port}`, docsUrl, journeyUrl, consoleUrl };
}

/** The ready banner (apps/server/src/banner.ts) once the process has printed it: its lines, up to the blank line that ends it. */
async function banner(inst: Instance, deadlineMs = 120_000): Promise<string> {
  const until = Date.now() + deadlineMs;
  for (;;) {
    const out = inst.proc.stdout();
    const at = out.search(/^idv is ready/m);
    if (at >= 0) {
      const end = out.indexOf('\n\n', at);
      if (end >= 0) return out.slice(at, end);
    }
    if (Date.now() > until) throw new Error(`no ready banner after ${deadlineMs} ms:\n${out}\n${inst.proc.stderr()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** The nice values of a process's threads (Linux: field 19 of /proc/<pid>/task/<tid>/stat). */
function threadNiceValues(pid: number): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // After the command's name in parentheses, which may hold spaces: state is field 3, nice field 19.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

interface Creds {
  client_id: string;
  flow_name: string;
  api_key: { id: string; secret: string; signing_secret: string };
  console?: { url: string; login: string; password: string };
}
const credsPath = () => join(dataDir, 'bootstrap-credentials.json');
const clientOf = (inst: Instance, creds: Creds) =>
  new IdvClient({ baseUrl: inst.api, apiKey: creds.api_key.secret, signingSecret: creds.api_key.signing_secret, maxAttempts: 1 });

/** Clients in the database, read once no service holds it (PGlite) or at any time (PostgreSQL). */
async function countClients(): Promise<number> {
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      return Number((await c.query('SELECT count(*) AS n FROM clients')).rows[0].n);
    } finally {
      await c.end();
    }
  }
  const database = await openDatabase({ kind: 'pglite', dataDir });
  try {
    const [{ n }] = await queryRows<{ n: number }>(database.db, sql`SELECT count(*)::int AS n FROM clients`);
    return Number(n);
  } finally {
    await database.close();
  }
}

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'idv-e2e-'));
  if (TEST_DB === 'postgres') {
    const created = await createPostgresDatabase();
    databaseUrl = created.url;
    dropDb = created.dropDb;
  }
});

after(async () => {
  for (const p of procs) await stop(p);
  await dropDb();
  rmSync(dataDir, { recursive: true, force: true });
});

describe(`the service process on ${TEST_DB}`, () => {
  let first: Instance;
  let creds: Creds;
  let credsText: string;
  let caseId: string;

  test('first start: ready, demo credentials printed once and written 0600 with exactly the documented keys', async () => {
    first = await startService();
    credsText = readFileSync(credsPath(), 'utf8');
    assert.equal(statSync(credsPath()).mode & 0o777, 0o600);
    creds = JSON.parse(credsText);
    // With the development identity provider (no OIDC_ISSUER), the console's demo administrator too (docs/console.md).
    assert.deepEqual(Object.keys(creds).sort(), ['api_key', 'client_id', 'console', 'flow_name']);
    assert.deepEqual(Object.keys(creds.console ?? {}).sort(), ['login', 'password', 'url']);
    assert.deepEqual(Object.keys(creds.api_key).sort(), ['id', 'secret', 'signing_secret']);
    assert.match(creds.client_id, /^cli_/);
    assert.equal(creds.flow_name, 'standard');
    assert.match(creds.api_key.id, /^key_/);
    assert.match(creds.api_key.secret, /^sk_sandbox_[A-Za-z0-9_-]{43}$/);
    assert.ok(creds.api_key.signing_secret.length >= 40);
    assert.ok(first.proc.stdout().includes(creds.api_key.secret), 'the credentials are printed at first start');
    const live = await fetch(`${first.api}/livez`);
    assert.equal(live.status, 200);
  });

  test('/readyz is 200 at once while the checks load their models in the background, then says they are warm', async () => {
    const states: string[] = [];
    const deadline = Date.now() + 90_000;
    for (;;) {
      const res = await fetch(`${first.api}/readyz`);
      assert.equal(res.status, 200, 'ready whatever the models');
      const body = (await res.json()) as { status: string; checks: string };
      assert.equal(body.status, 'ready');
      if (states.at(-1) !== body.checks) states.push(body.checks);
      if (body.checks !== 'warming' || Date.now() > deadline) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    // The loading starts first thing at start (startChecksPool), beside the database's opening and
    // the API's build, and takes seconds (tfjs, opencv and tesseract on each thread): a ready API
    // is seen warming, then warm; on a slow start the models may already be warm when it listens.
    // Never anything else (cold would mean the warm-up failed).
    assert.ok(['warming,warm', 'warm'].includes(states.join(',')), `readyz checks states: ${states.join(' → ')}`);
  });

  test('once the checks are warm, one readable banner gives every address and where the credentials are, never a secret; the checks threads ran at a lower priority', async () => {
    const text = await banner(first);
    assert.equal(first.proc.stdout().match(/^idv is ready/gm)?.length, 1, 'printed once');
    for (const line of text.split('\n')) assert.ok(!line.trimStart().startsWith('{'), `a readable line, not JSON: ${line}`);
    for (const url of [first.apiBaseUrl, first.journeyUrl, first.consoleUrl, first.docsUrl]) assert.ok(text.includes(url), `${url} in:\n${text}`);
    assert.match(text, /^ {2}credentials +\S*bootstrap-credentials\.json/m);
    assert.ok(text.includes(credsPath()), text);
    assert.match(text, /checks +models loaded/);
    for (const secret of [creds.api_key.secret, creds.api_key.signing_secret, creds.console!.password]) assert.equal(text.includes(secret), false, 'no secret in the banner');
    // The first answer came before the warm-up, which starts once the API listens.
    const [, apiS, readyS] = /the API answered after ([\d.]+) s, everything below after ([\d.]+) s/.exec(text) ?? [];
    assert.ok(Number(apiS) < Number(readyS), text);
    if (process.platform === 'linux') {
      // The checks' threads (and those they started) run at nice 10, the API's at the process's own.
      const nice = threadNiceValues(first.proc.child.pid!);
      assert.ok(nice.includes(10), `thread nice values: ${nice.join(',')}`);
      assert.ok(nice.includes(0), `thread nice values: ${nice.join(',')}`);
    }
  });

  test('the SDK creates and reads a case and a journey link over HTTP with the demo key', async () => {
    const client = clientOf(first, creds);
    const created = await client.createCase({ flow_name: 'standard', country: 'FR', external_ref: 'e2e-1' });
    assert.match(created.id, /^case_/);
    assert.equal(created.status, 'created');
    caseId = created.id;
    const read = await client.getCase(caseId);
    assert.equal(read.state, 'awaiting_applicant');
    const session = await client.createSession({ case_id: caseId });
    assert.ok(session.url.startsWith(`${first.journeyUrl}/#`), session.url);
    // The demo key holds both permissions and may grant them.
    const key = await client.request<{ permissions: string[] }>('POST', '/v1/api-keys', { permissions: ['personal_data', 'decisions'] });
    assert.deepEqual(key.permissions, ['decisions', 'personal_data']);
    // Errors point at documentation that the same process serves.
    const err = await client.getCase('case_01m7ym09t80f4fggxqxy1yr50c').catch((e) => e);
    assert.ok(err instanceof ApiRequestError);
    assert.equal(err.status, 404);
    const docUrl = (err.body.error as { doc_url: string }).doc_url;
    assert.equal(docUrl, `${first.docsUrl}/errors/resource_not_found`);
    const page = await fetch(docUrl);
    assert.equal(page.status, 200);
    assert.match(await page.text(), /resource_not_found/);
  });

  if (TEST_DB === 'pglite') {
    // Bounded: were the first start to have failed, this second process would hold the data
    // directory and serve, and its exit would never come (a whole CI file timeout, seen).
    test('a second process on the same PGlite DATA_DIR refuses to start with a clear message; the first keeps serving', { timeout: 120_000 }, async () => {
      assert.ok(first, 'the first start failed: nothing holds the data directory');
      const second = runServe([], {
        PORT: String(await freePort()),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DOCS_URL: `http://localhost:${await freePort()}`,
        LOG_LEVEL: 'warn',
      });
      procs.push(second);
      const code = await second.exited;
      assert.equal(code, 1, second.stdout() + second.stderr());
      assert.match(second.stderr(), /in use by process \d+/);
      assert.ok(second.stderr().includes(String(first.proc.child.pid)), 'names the process holding the database');
      assert.equal((await fetch(`${first.api}/readyz`)).status, 200);
      assert.equal(JSON.stringify(await clientOf(first, creds).getCase(caseId)).includes(caseId), true);
    });
  } else {
    test('a second instance on the same PostgreSQL database serves the same data, and a revocation on one applies on the other at once', async () => {
      const second = await startService(join(dataDir, 'second-instance'), NO_WARM_UP);
      assert.equal(readFileSync(credsPath(), 'utf8'), credsText, 'no second demo client, no new credentials');
      const viaSecond = clientOf(second, creds);
      assert.equal((await viaSecond.getCase(caseId)).id, caseId);
      const created = await clientOf(first, creds).request<{ id: string; secret: string; signing_secret: string }>('POST', '/v1/api-keys', {});
      const newKey = new IdvClient({ baseUrl: second.api, apiKey: created.secret, signingSecret: created.signing_secret, maxAttempts: 1 });
      assert.equal((await newKey.request<{ object: string }>('GET', '/v1/cases')).object, 'list');
      await clientOf(first, creds).request('DELETE', `/v1/api-keys/${created.id}`);
      const refused = await newKey.request('GET', '/v1/cases').catch((e) => e);
      assert.ok(refused instanceof ApiRequestError);
      assert.equal(refused.code, 'api_key_revoked');
      await stop(second.proc);
      assert.equal(await second.proc.exited, 0);
    });
  }

  test('SIGTERM: a request in flight completes, then the process exits 0', async () => {
    const body = JSON.stringify({ flow_name: 'standard', country: 'DE', external_ref: 'in-flight' });
    const url = new URL(`${first.api}/v1/cases`);
    const headers = {
      authorization: `Bearer ${creds.api_key.secret}`,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(body)),
      ...signing.headers(creds.api_key.signing_secret, 'POST', '/v1/cases', body, randomUUID()),
    };
    const response = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = httpRequest(url, { method: 'POST', headers }, (res) => {
        let text = '';
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, text }));
      });
      req.on('error', reject);
      // Half the body now: the request is received and waits for the rest.
      req.write(body.slice(0, 20));
      setTimeout(() => {
        first.proc.child.kill('SIGTERM');
        // The rest after the signal has been delivered.
        setTimeout(() => req.end(body.slice(20)), 500);
      }, 500);
    });
    const res = await response;
    assert.equal(res.status, 201, res.text);
    assert.equal(JSON.parse(res.text).external_ref, 'in-flight');
    assert.equal(await first.proc.exited, 0, first.proc.stderr());
    const after = await fetch(`${first.api}/livez`).then(
      () => 'still listening',
      () => 'closed',
    );
    assert.equal(after, 'closed');
  });

  test('restart on the same data: same credentials file, the old key works, no second demo client', async () => {
    const restarted = await startService(dataDir, NO_WARM_UP);
    // CHECKS_WARM_UP=false: the models are left to load with the first case.
    assert.deepEqual(await (await fetch(`${restarted.api}/readyz`)).json(), { status: 'ready', checks: 'cold' });
    assert.equal(readFileSync(credsPath(), 'utf8'), credsText);
    assert.equal(statSync(credsPath()).mode & 0o777, 0o600);
    assert.equal(restarted.proc.stdout().includes(creds.api_key.secret), false, 'secrets are not printed again');
    // The banner again, at once (the models are left to the first case), with the same file named.
    const text = await banner(restarted);
    assert.ok(text.includes(credsPath()), text);
    assert.ok(text.includes(restarted.apiBaseUrl) && text.includes(restarted.consoleUrl), text);
    assert.match(text, /checks +models load with the first case/);
    const client = clientOf(restarted, creds);
    assert.equal((await client.getCase(caseId)).id, caseId);
    const list = await client.request<{ data: { external_ref: string }[] }>('GET', '/v1/cases?limit=100');
    assert.deepEqual(list.data.map((c) => c.external_ref).sort(), ['e2e-1', 'in-flight'], 'the case completed during shutdown was kept');
    await stop(restarted.proc);
    assert.equal(await restarted.proc.exited, 0);
    assert.equal(await countClients(), 1);
  });
});

describe(`the API alone (npm run api: --api-only) on ${TEST_DB}`, () => {
  test('serves the API, starts neither the docs nor the journey server, and stops cleanly', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-e2e-api-only-'));
    try {
      const alone = await startService(dir, {}, ['--api-only']);
      assert.equal((await fetch(`${alone.api}/v1/openapi.json`)).status, 200);
      assert.deepEqual(await (await fetch(`${alone.api}/readyz`)).json(), { status: 'ready', checks: 'not_running' });
      for (const url of [alone.docsUrl, alone.journeyUrl]) await assert.rejects(fetch(url), `nothing listens on ${url}`);
      const text = await banner(alone);
      assert.ok(text.includes(alone.apiBaseUrl), text);
      for (const url of [alone.docsUrl, alone.journeyUrl, alone.consoleUrl]) assert.equal(text.includes(url), false, `${url} is not served: ${text}`);
      assert.match(text, /checks +not run by this process/);
      if (TEST_DB === 'pglite') assert.match(alone.proc.stdout() + alone.proc.stderr(), /the API alone with the embedded database: no webhook will be sent/);
      await stop(alone.proc);
      assert.equal(await alone.proc.exited, 0, `a clean stop; what the service said:\n${alone.proc.stdout().slice(-2000)}\n${alone.proc.stderr().slice(-2000)}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('invalid configuration', () => {
  const cases: [string, Record<string, string>, RegExp][] = [
    ['PORT=abc', { PORT: 'abc' }, /PORT/],
    ['PORT out of range', { PORT: '70000' }, /PORT/],
    ['DATABASE_URL without MASTER_KEY', { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/none' }, /MASTER_KEY/],
    ['DATABASE_URL of another kind', { DATABASE_URL: 'mysql://x', MASTER_KEY: generateMasterKey() }, /DATABASE_URL/],
    ['MASTER_KEY too short', { MASTER_KEY: 'c2hvcnQ=' }, /MASTER_KEY/],
    ['DOCS_URL not a URL', { DOCS_URL: 'docs' }, /DOCS_URL/],
  ];
  test('an unknown command-line argument exits 1 naming it, before touching any data', async () => {
    const dir = join(tmpdir(), `idv-e2e-args-${randomUUID()}`);
    const proc = runServe(['--journey-only'], { DATA_DIR: dir });
    procs.push(proc);
    assert.equal(await proc.exited, 1, proc.stdout() + proc.stderr());
    assert.match(proc.stderr(), /unknown argument --journey-only/);
    assert.throws(() => statSync(dir), 'no data directory created');
  });

  test('exits 1 with a message naming the variable, before touching any data', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'idv-e2e-config-'));
    try {
      await Promise.all(
        cases.map(async ([label, env, pattern]) => {
          const proc = runServe([], { DATA_DIR: join(dir, label.replace(/\W+/g, '-')), ...env });
          procs.push(proc);
          const code = await proc.exited;
          assert.equal(code, 1, `${label}: ${proc.stdout()}${proc.stderr()}`);
          assert.match(proc.stderr(), pattern, label);
          assert.match(proc.stderr(), /invalid configuration/, label);
          assert.throws(() => statSync(join(dir, label.replace(/\W+/g, '-'))), `${label}: no data directory created`);
        }),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
