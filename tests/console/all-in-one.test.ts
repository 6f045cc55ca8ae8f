import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { generateMasterKey } from '@idv/vault';
import { launchChromium } from '../helpers/browser.ts';
import { TEST_DB, createPostgresDatabase, seedPgliteDataDir } from '../helpers/database.ts';
import { Agent } from '../helpers/console.ts';
import { freePort, runServe, stop, waitUntilReady, type Proc } from '../helpers/processes.ts';

/**
 * `npm start` as one runs it on a laptop: the service, the development provider and the console
 * in one process (node --import tsx apps/server/src/main.ts). The first start writes the demo
 * administrator's console login; Chromium signs in with it through the provider's real page
 * (its CSP lets the form post and the redirect chain back to the console), and a restart keeps it.
 */
let dir: string;
let proc: Proc | null = null;
let browser: Browser;
let env: Record<string, string>;
let dropDb = async () => {};

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idv-all-in-one-'));
  // The migrated snapshot as its embedded database: this file's subject is not the first start.
  if (TEST_DB === 'pglite') await seedPgliteDataDir(dir);
  const [port, jport, dport, cport, iport] = await Promise.all([freePort(), freePort(), freePort(), freePort(), freePort()]);
  env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    API_BASE_URL: `http://127.0.0.1:${port}`,
    JOURNEY_URL: `http://127.0.0.1:${jport}`,
    DOCS_URL: `http://127.0.0.1:${dport}`,
    CONSOLE_URL: `http://127.0.0.1:${cport}`,
    IDP_URL: `http://127.0.0.1:${iport}`,
    LOG_LEVEL: 'warn',
    MASTER_KEY: generateMasterKey(),
    // No photo is checked here: the checks' warm-up would only take CPU.
    CHECKS_WARM_UP: 'false',
  };
  if (TEST_DB === 'postgres') {
    const created = await createPostgresDatabase();
    env.DATABASE_URL = created.url;
    dropDb = created.dropDb;
  }
  browser = await launchChromium();
});

after(async () => {
  await stop(proc);
  await browser?.close();
  await dropDb();
  rmSync(dir, { recursive: true, force: true });
});

async function start(): Promise<void> {
  proc = runServe([], env);
  // The whole stack starts here (migrations on PGlite, the console's bundle built and compressed,
  // the provider): on a loaded 2-core machine that has taken over the helpers' default 90 s.
  await waitUntilReady(proc, `${env.API_BASE_URL}/readyz`, 180_000);
  await waitUntilReady(proc, `${env.IDP_URL}/.well-known/openid-configuration`);
}

test('first start: the console login is written once (0600), and Chromium signs in with it through the provider', async () => {
  await start();
  const creds = JSON.parse(readFileSync(join(dir, 'bootstrap-credentials.json'), 'utf8'));
  assert.equal(statSync(join(dir, 'bootstrap-credentials.json')).mode & 0o777, 0o600);
  assert.equal(statSync(join(dir, 'console-credential')).mode & 0o777, 0o600);
  assert.equal(creds.console.url, env.CONSOLE_URL);
  assert.equal(typeof creds.console.login, 'string');
  assert.ok(creds.console.password.length >= 12);
  assert.match(proc!.stdout(), /demo administrator/);

  const context = await browser.newContext();
  const page = await context.newPage();
  const violations: string[] = [];
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
  });
  await page.goto(`${env.CONSOLE_URL}/auth/login?return_to=/queue`);
  assert.equal(new URL(page.url()).origin, env.IDP_URL);
  await page.getByLabel('Login').fill(creds.console.login);
  await page.getByLabel('Password').fill(creds.console.password);
  await Promise.all([page.waitForURL(`${env.CONSOLE_URL}/queue`), page.getByRole('button', { name: 'Sign in' }).click()]);
  const session = await page.evaluate(async () => (await fetch('/auth/session')).json());
  assert.equal(session.operator.role, 'administrator');
  assert.deepEqual(session.operator.countries, ['*']);
  assert.equal(session.environment, 'sandbox');
  const cookies = await context.cookies(env.CONSOLE_URL);
  const cookie = cookies.find((c) => c.name === 'console_session')!;
  assert.equal(cookie.httpOnly, true);
  assert.equal(cookie.sameSite, 'Lax');
  assert.deepEqual(violations, []);
  await context.close();
});

test('a restart keeps the console credential and the provider account; no second demo', async () => {
  await stop(proc);
  await start();
  assert.doesNotMatch(proc!.stdout(), /demo administrator/);
  const creds = JSON.parse(readFileSync(join(dir, 'bootstrap-credentials.json'), 'utf8'));
  const agent = new Agent();
  const form = await agent.follow(`${env.CONSOLE_URL}/auth/login`);
  const done = await agent.signIn(form.url, creds.console.login, creds.console.password);
  assert.equal(done.url.href, `${env.CONSOLE_URL}/`);
  const session = await agent.request(`${env.CONSOLE_URL}/auth/session`);
  assert.equal(session.status, 200);
});
