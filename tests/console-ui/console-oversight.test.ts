import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { recordUsage } from '@idv/db';
import { seedAutomaticDecisions, seedDecidedTasks } from '../helpers/review-seed.ts';
import { apiFromPage, ARTIFACTS, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * Issue 18's oversight screens in Debian's Chromium, through the development provider's sign-in
 * pages: Operators (invite with its link shown once, the invited person signing in; a clearance
 * change; a revocation; an invitation finished after the round trip to the provider, its link
 * shown once), Support access (a grant opened, read by the support account, seen in the case's
 * journal, closed early), Review metrics (charts drawn from seeded history) and Usage and contract
 * (chart, totals, CSV downloaded and parsed). Each screen hidden from the roles it is not for, and
 * its routes answered 403 by the service through the console. Every screen audited with axe and
 * captured on a phone and a desktop into artifacts/console/.
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;

let h: ConsoleHarness;
let ada: Account;
let sam: Account;
let rita: Account;
let sue: Account;
const { audits, capture } = screenAudits();
const openAs = (who: { login: string; password: string }, path: string, viewport: 'phone' | 'desktop' = 'desktop', locale?: string) => h.openAs(who, path, { viewport, locale });
const USAGE_UNITS = { verification: 14, review: 6, resubmission: 2, erasure: 1 };
const DECIDED_TASKS = 120;
const AUTOMATIC_DECISIONS = 90;

async function navLinks(page: Page): Promise<string[]> {
  await page.locator('nav[aria-label="Main"] a').first().waitFor();
  return (await page.locator('nav[aria-label="Main"] a').allTextContents()).map((s) => s.trim());
}
const month = () => new Date().toISOString().slice(0, 7);

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startConsoleHarness({ realTime: true });
  ada = await h.operator('administrator', 'Ada Administrator');
  sam = await h.operator('supervisor', 'Sam Supervisor');
  rita = await h.operator('reviewer', 'Rita Reviewer');
  sue = await h.operator('support', 'Sue Support');
  // History for the metrics (the last 60 days) and this month's units for the usage screen.
  const now = new Date();
  await seedDecidedTasks(h.t.database.db, h.tenant, now, DECIDED_TASKS, 60, 'd', [`op:${rita.op.id}`, `op:${sam.op.id}`]);
  await seedAutomaticDecisions(h.t.database.db, h.tenant, now, AUTOMATIC_DECISIONS, 60);
  let n = 0;
  for (const [service, units] of Object.entries(USAGE_UNITS)) {
    for (let i = 0; i < units; i++) {
      n += 1;
      // Spread over the days of the month so far (the first of the month at least).
      const day = Math.max(1, (n % now.getUTCDate()) + 1);
      const at = new Date(Math.min(now.getTime() - 1000, Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), day, 10)));
      await recordUsage(h.t.database.db, { ...h.tenant, service: service as keyof typeof USAGE_UNITS, sourceKey: `seed:${service}:${i}`, caseId: `case_seed${n}`, at });
    }
  }
});

after(async () => {
  await h?.close();
});

describe('the oversight screens', () => {
  let adaPage: Page;
  let samPage: Page;

  test('navigation by role, and the service refusing the others through the console', async () => {
    adaPage = await openAs(ada, '/queue');
    assert.deepEqual(await navLinks(adaPage), [
      'Queue',
      'Cases',
      'Review metrics',
      'Support access',
      'Usage and contract',
      'Operators',
      'Flows',
      'Journey appearance',
      'API keys',
      'Webhooks',
      'Embedding',
      'Wallet trust anchors',
    ]);
    samPage = await openAs(sam, '/queue');
    assert.deepEqual(await navLinks(samPage), ['Queue', 'Cases', 'Review metrics', 'Support access', 'Usage and contract', 'Flows']);
    const ritaPage = await openAs(rita, '/queue');
    assert.deepEqual(await navLinks(ritaPage), ['Queue', 'Cases']);
    const suePage = await openAs(sue, '/support');
    assert.deepEqual(await navLinks(suePage), ['My granted cases']);

    const refused = async (page: Page, method: string, path: string, body?: unknown) => {
      const res = await apiFromPage(page, method, path, body);
      assert.equal(res.status, 403, `${method} ${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, 'operator_role_insufficient');
    };
    for (const page of [ritaPage, suePage]) {
      await refused(page, 'GET', '/v1/reviews/metrics');
      await refused(page, 'GET', '/v1/reviews/analytics');
      await refused(page, 'GET', '/v1/support-access');
      await refused(page, 'GET', '/v1/operators');
      for (const path of [`/v1/usage?period=${month()}`, `/v1/usage/daily?period=${month()}`, `/v1/usage/export?period=${month()}`, '/v1/contract', '/v1/api-usage']) await refused(page, 'GET', path);
    }
    await refused(samPage, 'GET', '/v1/operators');
    await refused(samPage, 'POST', '/v1/operators', { name: 'Mallory', role: 'administrator', countries: ['*'], sensitivity: 'restricted' });
    // A screen reached by its address all the same sends the operator home (RoleGate).
    await ritaPage.goto(`${h.consoleUrl}/metrics`);
    await ritaPage.waitForURL(`${h.consoleUrl}/queue`);
  });

  test('operators: invite (the link shown once), the invited person signs in; change a clearance; revoke', async () => {
    await adaPage.goto(`${h.consoleUrl}/operators`);
    await adaPage.getByRole('heading', { level: 1, name: 'Operators' }).waitFor();
    await adaPage.locator('tbody tr', { hasText: 'Sam Supervisor' }).waitFor();
    // Ada's own row has no actions (the service refuses a change of oneself).
    assert.equal(await adaPage.locator('tbody tr', { hasText: 'Ada Administrator' }).getByRole('button').count(), 0);
    await capture(adaPage, 'operators', 'desktop');

    await adaPage.getByLabel('Name', { exact: true }).fill('Nina Newcomer');
    await adaPage.getByRole('textbox', { name: 'Countries', exact: true }).fill('fr, be');
    await adaPage.locator('select[name="invite_sensitivity"]').selectOption('sensitive');
    await adaPage.getByRole('button', { name: 'Invite', exact: true }).click();
    const link = adaPage.getByLabel('Invitation link');
    await link.waitFor();
    const url = await link.inputValue();
    assert.match(url, new RegExp(`^${h.consoleUrl}/invitation#inv_[A-Za-z0-9_-]{20,}$`));
    await adaPage.locator('tbody tr', { hasText: 'Nina Newcomer' }).getByText('Invited').waitFor();
    await capture(adaPage, 'operators-invited', 'desktop');
    // Shown once: gone from the screen once left.
    await adaPage.reload();
    await adaPage.locator('tbody tr', { hasText: 'Nina Newcomer' }).waitFor();
    assert.equal(await adaPage.getByLabel('Invitation link').count(), 0);

    // Nina opens the link and signs in through the provider: she lands in the console as herself.
    h.idp.addAccount('nina', 'password-nina');
    const context = await h.newContext({ viewport: 'phone' });
    const nina = await context.newPage();
    await nina.goto(url);
    await nina.waitForSelector('input[name="login"]');
    await nina.fill('input[name="login"]', 'nina');
    await nina.fill('input[name="password"]', 'password-nina');
    await Promise.all([nina.waitForURL((u) => u.origin === h.consoleUrl && u.pathname === '/queue'), nina.click('button[type="submit"]')]);
    assert.equal(await nina.locator('.who-name').textContent(), 'Nina Newcomer');
    const session = await nina.evaluate(async () => (await fetch('/auth/session')).json());
    assert.deepEqual([session.operator.role, session.operator.countries, session.operator.sensitivity], ['reviewer', ['BE', 'FR'], 'sensitive']);

    // A clearance change: Nina becomes a supervisor for Belgium only; it applies to her next request.
    await adaPage.reload();
    const row = adaPage.locator('tbody tr', { hasText: 'Nina Newcomer' });
    await row.getByText('Active').waitFor();
    await adaPage.getByRole('button', { name: 'Change clearance: Nina Newcomer' }).click();
    await adaPage.getByRole('heading', { name: 'Clearance of Nina Newcomer' }).waitFor();
    await adaPage.locator('select[name="clearance_role"]').selectOption('supervisor');
    await adaPage.locator('input[name="clearance_countries"]').fill('BE');
    await capture(adaPage, 'operators-clearance', 'desktop');
    await adaPage.getByRole('button', { name: 'Save the clearance' }).click();
    await adaPage.getByText('The clearance of Nina Newcomer is saved. It applies to their next request.').waitFor();
    await row.getByText('Supervisor').waitFor();
    const changed = await nina.evaluate(async () => (await fetch('/auth/session')).json());
    assert.deepEqual([changed.operator.role, changed.operator.countries], ['supervisor', ['BE']]);

    // Revoked (after a confirmation): Nina is signed out at her next request.
    await adaPage.getByRole('button', { name: 'Revoke: Nina Newcomer' }).click();
    const dialog = adaPage.getByRole('dialog', { name: 'Revoke the access of Nina Newcomer? They are signed out at their next request.' });
    await dialog.waitFor();
    await capture(adaPage, 'operators-revoke', 'desktop');
    await dialog.getByRole('button', { name: 'Revoke' }).click();
    await adaPage.getByText('The access of Nina Newcomer is revoked.').waitFor();
    await row.getByText('Revoked').waitFor();
    assert.equal(await nina.evaluate(async () => (await fetch('/auth/session')).status), 401);

    const phone = await openAs(ada, '/operators', 'phone');
    await phone.locator('tbody tr', { hasText: 'Nina Newcomer' }).waitFor();
    await capture(phone, 'operators', 'phone');
  });

  test('support access: a grant opened on a case in review, read by the support account, in the case journal, closed early', async () => {
    const { caseId } = await h.taskInReview();
    await samPage.goto(`${h.consoleUrl}/support-access`);
    await samPage.getByRole('heading', { level: 1, name: 'Support access' }).waitFor();
    await samPage.getByLabel('Case identifier (a case in review)', { exact: true }).fill(caseId);
    await samPage.locator('select[name="grant_account"]').selectOption({ label: 'Sue Support' });
    await samPage.getByLabel('Reason', { exact: true }).fill('The applicant says the upload failed twice');
    await samPage.getByRole('button', { name: 'Open for four hours' }).click();
    await samPage.getByText(/^The case is open to Sue Support until/).waitFor();
    const row = samPage.locator('tbody tr', { hasText: caseId });
    await row.getByText('In force').waitFor();
    await row.getByText('The applicant says the upload failed twice').waitFor();
    await capture(samPage, 'support-access', 'desktop');

    // Sue reads the case, on her own screen; the journal of the case record shows it.
    const suePage = await openAs(sue, '/support');
    await suePage.getByRole('link', { name: caseId }).click();
    await suePage.getByRole('heading', { level: 1 }).filter({ hasText: caseId }).waitFor();
    await samPage.getByRole('link', { name: `Access log: ${caseId}` }).click();
    await samPage.getByRole('heading', { level: 1 }).filter({ hasText: caseId }).waitFor();
    await samPage.locator('.timeline li', { hasText: 'Sue Support' }).first().waitFor();

    // Closed early, after a confirmation: Sue can no longer read the case.
    await samPage.goBack();
    await samPage.getByRole('button', { name: `Close now: ${caseId}` }).click();
    await samPage.getByRole('dialog').getByRole('button', { name: 'Close the access' }).click();
    await samPage.getByText('The grant is closed.').waitFor();
    await samPage.locator('tbody tr', { hasText: caseId }).getByText('Closed early').waitFor();
    assert.equal((await apiFromPage(suePage, 'GET', `/v1/cases/${caseId}/record`)).status, 404);

    const phone = await openAs(ada, '/support-access', 'phone');
    await phone.locator('tbody tr', { hasText: caseId }).waitFor();
    await capture(phone, 'support-access', 'phone');
  });

  test('review metrics: figures and three charts drawn from the seeded history, each with its table', async () => {
    await samPage.goto(`${h.consoleUrl}/metrics?days=90`);
    await samPage.getByRole('heading', { level: 1, name: 'Review metrics' }).waitFor();
    await samPage.waitForFunction(() => document.querySelectorAll('figure.chart[data-drawn="true"] canvas').length === 5);
    // Every seeded task was decided in the window (60 days), plus none other.
    const counter = (label: string) => samPage.locator('.counter', { hasText: label }).locator('dd').textContent();
    assert.equal(await counter('Tasks closed'), String(DECIDED_TASKS));
    const decided = DECIDED_TASKS - Math.floor(DECIDED_TASKS / 17);
    const approved = Number(await counter('Approved'));
    const rejected = Number(await counter('Rejected'));
    const resubmissions = Number(await counter('Resubmission asked'));
    assert.equal(approved + rejected + resubmissions, decided);
    // The table alternative: 91 UTC days, the closed tasks adding up to the figure above.
    const table = samPage.locator('#chart-volumes-caption').locator('xpath=..');
    await samPage.locator('figure', { has: samPage.locator('#chart-volumes-title') }).locator('summary').click();
    const rows = table.locator('tbody tr');
    assert.equal(await rows.count(), 91);
    const closedPerDay = (await table.locator('tbody tr td:nth-child(3)').allTextContents()).map(Number);
    assert.equal(closedPerDay.reduce((a, b) => a + b, 0), DECIDED_TASKS);
    // The canvas is drawn (not blank).
    const inked = await samPage.evaluate(() => {
      const canvas = document.querySelector<HTMLCanvasElement>('figure.chart canvas')!;
      const data = canvas.getContext('2d')!.getImageData(0, 0, canvas.width, canvas.height).data;
      let n = 0;
      for (let i = 3; i < data.length; i += 4) if (data[i] > 0) n++;
      return n;
    });
    assert.ok(inked > 1000, `the chart has ${inked} inked pixels`);
    // The decisions of every case (reviewed or not): the figures are the service's, in words.
    const analytics = (await apiFromPage(samPage, 'GET', `/v1/reviews/analytics?since=${encodeURIComponent(new Date(Date.now() - 90 * 86_400_000).toISOString())}`)).body;
    assert.ok(analytics.decided.automatic >= AUTOMATIC_DECISIONS, JSON.stringify(analytics.decided));
    assert.equal(await counter('Cases decided'), String(analytics.decided.total));
    assert.equal(await counter('Decided by the checks alone'), `${Math.round(analytics.automation_rate * 1000) / 10}%`);
    assert.equal(await counter('Decided by an operator'), String(analytics.decided.by_operators));
    assert.match((await counter('Median time to decision'))!, /^\d+(\.\d)? (h|min)$/);
    const reasons = samPage.locator('section[aria-labelledby="reasons-title"] tbody tr');
    assert.equal(await reasons.count(), analytics.reasons.length);
    // Reasons in plain words, the code on hover.
    const expired = reasons.filter({ hasText: 'The document has expired' });
    assert.equal(await expired.locator('[title="document_expired"]').count(), 1);
    const reviewers = samPage.locator('section[aria-labelledby="reviewers-title"] tbody tr');
    assert.deepEqual((await reviewers.locator('td:first-child').allTextContents()).sort(), ['Rita Reviewer', 'Sam Supervisor']);
    const decisionsOf = async (name: string) => Number(await reviewers.filter({ hasText: name }).locator('td').nth(1).textContent());
    assert.equal((await decisionsOf('Rita Reviewer')) + (await decisionsOf('Sam Supervisor')), DECIDED_TASKS - Math.floor(DECIDED_TASKS / 17));
    await samPage.locator('#decisions-title').scrollIntoViewIfNeeded();
    await capture(samPage, 'metrics', 'desktop');
    // Another window: the address keeps it, the figures follow.
    await samPage.locator('select[name="metrics_window"]').selectOption('7');
    await samPage.waitForURL((u) => u.searchParams.get('days') === '7');
    await samPage.waitForFunction(() => document.getElementById('chart-volumes-caption')?.parentElement?.querySelectorAll('tbody tr').length === 8);
    assert.ok(Number(await counter('Tasks closed')) < DECIDED_TASKS);

    // On a phone, in French (the browser's language).
    const phone = await openAs(ada, '/metrics', 'phone', 'fr-FR');
    await phone.getByRole('heading', { level: 1, name: 'Indicateurs de revue' }).waitFor();
    await phone.waitForFunction(() => document.querySelectorAll('figure.chart[data-drawn="true"] canvas').length === 5);
    await capture(phone, 'metrics-fr', 'phone');
  });

  test('usage and contract: totals against quotas, the chart per day, the contract, the CSV downloaded and parsed', async () => {
    await adaPage.goto(`${h.consoleUrl}/usage`);
    await adaPage.getByRole('heading', { level: 1, name: 'Usage and contract' }).waitFor();
    await adaPage.waitForFunction(() => document.querySelectorAll('figure.chart[data-drawn="true"] canvas').length === 2);
    const units = (service: string) => adaPage.locator('section[aria-labelledby="totals-title"] tbody tr', { hasText: service }).locator('td').first().locator('strong').textContent();
    assert.equal(await units('Verifications'), String(USAGE_UNITS.verification));
    assert.equal(await units('Reviews'), String(USAGE_UNITS.review));
    // The demo client's contract: a subscription per service, in force.
    const contract = adaPage.locator('section[aria-labelledby="contract-title"]');
    assert.equal(await contract.locator('tbody tr').count(), 4);
    assert.equal(await contract.locator('tbody tr', { hasText: 'In force' }).count(), 4);
    // The chart's table: the days of the month so far at least, adding up to the units.
    await adaPage.locator('figure', { has: adaPage.locator('#chart-usage-title') }).locator('summary').click();
    const usageRows = adaPage.locator('#chart-usage-caption').locator('xpath=..').locator('tbody tr');
    const perDay = await usageRows.evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].reduce((n, td) => n + Number(td.textContent), 0)));
    assert.equal(perDay.reduce((a, b) => a + b, 0), Object.values(USAGE_UNITS).reduce((a, b) => a + b, 0));
    await capture(adaPage, 'usage', 'desktop');

    const [download] = await Promise.all([adaPage.waitForEvent('download'), adaPage.getByRole('link', { name: 'Download the month as CSV' }).click()]);
    assert.equal(download.suggestedFilename(), `usage-${month()}-sandbox.csv`);
    const csv = readFileSync((await download.path())!, 'utf8');
    const [header, ...lines] = csv.trimEnd().split('\r\n');
    assert.equal(header, 'occurred_at,service,quantity,case_id');
    const byService: Record<string, number> = {};
    for (const line of lines) {
      const [at, service, quantity, caseId] = line.split(',');
      assert.match(at, /^\d{4}-\d\d-\d\dT/);
      assert.match(caseId, /^case_seed\d+$/);
      byService[service] = (byService[service] ?? 0) + Number(quantity);
    }
    assert.deepEqual(byService, USAGE_UNITS);

    const phone = await openAs(sam, '/usage', 'phone');
    await phone.waitForFunction(() => document.querySelectorAll('figure.chart[data-drawn="true"] canvas').length === 2);
    await capture(phone, 'usage', 'phone');
  });

  test('an invitation asked without a recent re-authentication is finished after the round trip to the provider, its link shown once', async () => {
    // Six minutes pass for the console: the sign-in no longer counts as a recent re-authentication.
    h.advanceConsoleClock(6 * 60_000);
    await adaPage.goto(`${h.consoleUrl}/operators`);
    await adaPage.getByLabel('Name', { exact: true }).fill('Olga Later');
    await adaPage.getByRole('textbox', { name: 'Countries', exact: true }).fill('*');
    await adaPage.getByRole('button', { name: 'Invite', exact: true }).click();
    await adaPage.waitForURL((u) => u.origin !== h.consoleUrl);
    await adaPage.waitForSelector('input[name="login"]');
    await adaPage.fill('input[name="login"]', ada.login);
    await adaPage.fill('input[name="password"]', ada.password);
    await Promise.all([adaPage.waitForURL((u) => u.origin === h.consoleUrl && u.pathname === '/operators'), adaPage.click('button[type="submit"]')]);
    await adaPage.getByText('The action you asked for was completed.').waitFor();
    const link = adaPage.getByLabel('Invitation link');
    await link.waitFor();
    assert.match(await link.inputValue(), /\/invitation#inv_/);
    await adaPage.locator('tbody tr', { hasText: 'Olga Later' }).waitFor();
    assert.ok(!adaPage.url().includes('action='), 'the action id left the address');
    await capture(adaPage, 'operators-invited-after-reauth', 'desktop');
    // Once: leaving the screen and coming back, or a reload, shows the link no more; the operator was invited once.
    await adaPage.getByRole('link', { name: 'Queue', exact: true }).click();
    await adaPage.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await adaPage.getByRole('link', { name: 'Operators', exact: true }).click();
    await adaPage.locator('tbody tr', { hasText: 'Olga Later' }).waitFor();
    assert.equal(await adaPage.getByLabel('Invitation link').count(), 0);
    await adaPage.reload();
    await adaPage.locator('tbody tr', { hasText: 'Olga Later' }).waitFor();
    assert.equal(await adaPage.getByLabel('Invitation link').count(), 0);
    assert.equal(await adaPage.locator('tbody tr', { hasText: 'Olga Later' }).count(), 1);
  });

  test('axe: no serious or critical violation on any screen reached above', () => {
    assert.ok(Object.keys(audits).length >= 11, `audited: ${Object.keys(audits).join(', ')}`);
    const failures = Object.entries(audits).filter(([, v]) => v.length > 0);
    assert.deepEqual(failures, []);
  });
});
