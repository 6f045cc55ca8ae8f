import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext, Locator, Page } from 'playwright-core';
import { ARTIFACTS, DESKTOP, PHONE, saveScreenshot, screenAudits, signIn, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * The review station in Debian's Chromium, through the development provider's real sign-in
 * pages: the queue, the case screen (claim, reveal, correction, approval), search, the signed-out
 * and invitation screens; an axe audit of each, and screenshots at a phone and a desktop viewport
 * into artifacts/console/.
 */

let h: ConsoleHarness;
let reviewer: { login: string; password: string };
const { audits, capture } = screenAudits();

/** Whether the element shows whole on the screen as it is scrolled now. */
async function onScreen(page: Page, locator: Locator): Promise<boolean> {
  const box = await locator.boundingBox();
  const { width, height } = page.viewportSize()!;
  return box !== null && box.x >= 0 && box.y >= 0 && box.x + box.width <= width && box.y + box.height <= height;
}

/** Whether the page is no wider than the screen (nothing cut off at the right, no sideways scrolling). */
async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startConsoleHarness();
  reviewer = await h.operator('reviewer', 'Rita Reviewer');
});

after(async () => {
  await h?.close();
});

describe('review station', () => {
  let context: BrowserContext;
  let page: Page;
  let taskId: string;

  before(async () => {
    context = await h.browser.newContext({ ...DESKTOP, locale: 'en-GB' });
    page = await context.newPage();
  });
  after(async () => {
    await context.close();
  });

  test('an operator signs in at the provider and sees the queue in the service order, with counters and overdue tasks marked', async () => {
    const low = await h.taskInReview({ riskScore: 20 });
    const high = await h.taskInReview({ riskScore: 85, dueAt: new Date(h.t.clock.now().getTime() - 3_600_000) });
    taskId = high.taskId;
    await signIn(page, h.consoleUrl, '/queue', reviewer.login, reviewer.password);
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    await page.getByText('Rita Reviewer').waitFor();
    assert.equal(await page.locator('.env').textContent(), 'Sandbox');
    const rows = page.locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 2);
    // Risk first: the high-risk task leads, and it is overdue.
    assert.equal(await rows.nth(0).locator('a').getAttribute('href'), `/tasks/${high.taskId}`);
    assert.equal(await rows.nth(1).locator('a').getAttribute('href'), `/tasks/${low.taskId}`);
    assert.match((await rows.nth(0).textContent())!, /Overdue/);
    assert.doesNotMatch((await rows.nth(1).textContent())!, /Overdue/);
    // Task reasons in plain words.
    assert.match((await rows.nth(0).textContent())!, /close but not close enough/);
    const overdueCounter = page.locator('.counter', { hasText: 'Overdue' }).locator('dd');
    assert.equal(await overdueCounter.textContent(), '1');
    await capture(page, 'queue', 'desktop');
    // The status filter: nothing escalated.
    await page.getByLabel('Status').selectOption('escalated');
    await page.getByText('No task here').waitFor();
    await capture(page, 'queue-empty', 'desktop');
    await page.getByLabel('Status').selectOption('');
    await rows.first().waitFor();
  });

  test('claim, reveal a field, enter a correction and approve, with the keyboard shortcuts', async () => {
    await page.click(`a[href="/tasks/${taskId}"]`);
    await page.getByRole('heading', { level: 1 }).filter({ hasText: taskId }).waitFor();
    await page.getByText('Claim the task to correct or decide it.').waitFor();
    await capture(page, 'case-unclaimed', 'desktop');
    // c claims (the shortcut does not fire inside an input: checked below with a).
    await page.keyboard.press('c');
    await page.getByText(/You hold this task until/).waitFor();

    // Reveal the declared surname: one field, the others stay masked.
    await page.getByRole('button', { name: 'Reveal declared.surname' }).click();
    await page.locator('.revealed', { hasText: 'Martin' }).waitFor();
    assert.equal(await page.locator('.revealed').count(), 1);
    assert.ok((await page.getByRole('button', { name: 'Reveal declared.given_names' }).count()) === 1);

    // A correction beside the image.
    await page.getByLabel('Field to correct').selectOption('subject.document_number');
    await page.getByLabel('Value as read on the image').fill('X12345678');
    // Typing "a" in an input is text, not the approve shortcut.
    await page.getByLabel('Comment (optional)').fill('read on the back');
    assert.equal(await page.locator('dialog[open]').count(), 0);
    await page.getByRole('button', { name: 'Save the correction' }).click();
    await page.getByText('Correction saved for Document number.').waitFor();
    await page.locator('ul.plain li', { hasText: 'Document number' }).waitFor();
    await capture(page, 'case-claimed', 'desktop');

    // a asks to approve, in a dialog; confirm.
    await page.locator('body').click({ position: { x: 5, y: 5 } });
    await page.keyboard.press('a');
    const dialog = page.getByRole('dialog', { name: 'Approve this case?' });
    await dialog.waitFor();
    await capture(page, 'case-confirm', 'desktop');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('Decision recorded. The case is now approved.').waitFor();
    await page.getByText('This task is closed.').waitFor();
    await capture(page, 'case-decided', 'desktop');
  });

  test('rejecting needs a reason from the closed list, in plain words', async () => {
    const { taskId: other } = await h.taskInReview({ riskScore: 60 });
    await page.goto(`${h.consoleUrl}/tasks/${other}`);
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText(/You hold this task until/).waitFor();
    await page.keyboard.press('r');
    await page.getByText('Choose a reason for the rejection.').waitFor();
    assert.equal(await page.locator('dialog[open]').count(), 0);
    await page.getByLabel('Reason').first().selectOption('document_tampered');
    await page.getByRole('button', { name: /^Reject/ }).click();
    // The question as title, the reason below it (not inside the question).
    const dialog = page.getByRole('dialog', { name: 'Reject this case?' });
    await dialog.getByText('Reason given to the client: The document shows signs of tampering or forgery.', { exact: true }).waitFor();
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await page.locator('dialog[open]').count(), 0);
  });

  test('case search by identifier prefix, with results linking to the record', async () => {
    await page.getByRole('link', { name: 'Cases', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Cases' }).waitFor();
    await capture(page, 'search', 'desktop');
    await page.getByLabel(/^Reference or case id/).fill('case_');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('tbody tr').first().waitFor();
    assert.equal(await page.locator('tbody tr').count(), 3);
    await capture(page, 'search-results', 'desktop');
    // The criteria never reach the address.
    assert.ok(!page.url().includes('case_'));
    await page.locator('tbody tr a').first().click();
    await page.getByRole('heading', { level: 1 }).filter({ hasText: 'Case' }).waitFor();
    await page.getByRole('heading', { name: 'Case journal' }).waitFor();
    await capture(page, 'record', 'desktop');
  });

  test('French from the switch, kept for the next page in a cookie (and nothing in web storage)', async () => {
    await page.goto(`${h.consoleUrl}/queue`);
    await page.getByLabel('Language').selectOption('fr');
    await page.getByRole('heading', { level: 1, name: 'File de révision' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'File de révision' }).waitFor();
    assert.equal(await page.getAttribute('html', 'lang'), 'fr');
    await capture(page, 'queue-fr', 'desktop');
    const storage = await page.evaluate(() => localStorage.length + sessionStorage.length);
    assert.equal(storage, 0);
    await page.getByLabel('Langue').selectOption('en');
  });

  test('sign out ends the session: the app then asks to sign in again', async () => {
    await page.goto(`${h.consoleUrl}/queue`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL((u) => u.pathname === '/signed-out' || u.port !== new URL(h.consoleUrl).port);
    // RP-initiated logout may show the provider's confirmation first.
    if (new URL(page.url()).port !== new URL(h.consoleUrl).port) {
      const confirm = page.locator('button[type="submit"]').first();
      if (await confirm.count()) await confirm.click();
      await page.waitForURL((u) => u.pathname === '/signed-out');
    }
    await page.getByRole('heading', { level: 1, name: 'You are signed out' }).waitFor();
    await capture(page, 'signed-out', 'desktop');
    const session = await page.evaluate(async () => (await fetch('/auth/session')).status);
    assert.equal(session, 401);
  });
});

describe('screens without a session', () => {
  test('a wrong invitation says so plainly after the round trip to the provider', async () => {
    const context = await h.browser.newContext({ ...PHONE, locale: 'en-GB' });
    const page = await context.newPage();
    const login = 'newcomer';
    const password = 'password-newcomer';
    h.idp.addAccount(login, password);
    await page.goto(`${h.consoleUrl}/invitation#inv_${'x'.repeat(43)}`);
    await page.waitForSelector('input[name="login"]');
    await page.fill('input[name="login"]', login);
    await page.fill('input[name="password"]', password);
    await page.click('button[type="submit"]');
    await page.waitForURL((u) => u.pathname === '/signed-out');
    assert.equal(new URL(page.url()).searchParams.get('reason'), 'invitation_invalid');
    await page.getByText('This invitation cannot be used: it is wrong, already used or expired.').waitFor();
    await capture(page, 'invitation-invalid', 'phone');
    await page.goto(`${h.consoleUrl}/invitation`);
    await page.getByText('This invitation link is incomplete.').waitFor();
    await capture(page, 'invitation-incomplete', 'phone');
    await context.close();
  });
});

describe('phone viewport', () => {
  test('queue, case screen and search at 390x844', async () => {
    const context = await h.browser.newContext({ ...PHONE, locale: 'fr-FR' });
    const page = await context.newPage();
    const { taskId } = await h.taskInReview({ riskScore: 40 });
    await signIn(page, h.consoleUrl, '/queue', reviewer.login, reviewer.password);
    // The browser's language (French) is the default.
    await page.getByRole('heading', { level: 1, name: 'File de révision' }).waitFor();
    await page.getByLabel('Langue').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    // Each task is a card as wide as the screen; its id on one line.
    const link = page.locator(`a[href="/tasks/${taskId}"]`);
    await link.waitFor();
    assert.ok(await fitsWidth(page), 'the queue is no wider than the phone');
    const idLines = await link.evaluate((a) => {
      const range = document.createRange();
      range.selectNodeContents(a);
      return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size;
    });
    assert.equal(idLines, 1);
    await capture(page, 'queue', 'phone');
    await page.goto(`${h.consoleUrl}/tasks/${taskId}`);
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText(/You hold this task until/).waitFor();
    assert.ok(await fitsWidth(page), 'the case screen is no wider than the phone');
    // The decision buttons stay within reach wherever the reviewer is on this long screen.
    const approve = page.getByRole('button', { name: /^Approve/ });
    for (const where of ['top', 'identity', 'bottom'] as const) {
      if (where === 'top') await page.evaluate(() => window.scrollTo(0, 0));
      if (where === 'identity') await page.getByRole('heading', { name: 'Identity' }).evaluate((e) => e.scrollIntoView());
      if (where === 'bottom') await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      assert.ok(await onScreen(page, approve), `Approve on screen at the ${where}`);
    }
    await page.evaluate(() => window.scrollTo(0, 0));
    await saveScreenshot(page, join(ARTIFACTS, 'case-claimed-first-screen-phone.png'));
    await capture(page, 'case-claimed', 'phone');
    // Thirty-one minutes pass on the service's clock: the next act under the lock is refused
    // (409 lock_expired) and the screen says the lock is lost, with "claim again".
    h.t.clock.advance(31 * 60_000);
    await page.getByLabel('Value as read on the image').fill('MARTIN');
    await page.getByRole('button', { name: 'Save the correction' }).click();
    await page.getByText(/Your lock on this task was lost after thirty minutes without activity/).waitFor();
    // Claim again is where the reviewer is (by the correction), not only at the top of the screen.
    assert.ok(await onScreen(page, page.getByRole('button', { name: 'Claim again' })));
    await capture(page, 'case-lock-lost', 'phone');
    await page.getByRole('button', { name: 'Claim again' }).click();
    await page.getByText(/You hold this task until/).waitFor();
    await page.goto(`${h.consoleUrl}/search`);
    await page.getByRole('heading', { level: 1, name: 'Cases' }).waitFor();
    await capture(page, 'search', 'phone');
    await page.getByLabel(/^Reference or case id/).fill('case_');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.locator('tbody tr').first().waitFor();
    assert.ok(await fitsWidth(page), 'the search results are no wider than the phone');
    await capture(page, 'search-results', 'phone');
    await page.goto(`${h.consoleUrl}/signed-out?reason=operator_revoked`);
    await page.getByText('Your access to this console was revoked.').waitFor();
    await capture(page, 'signed-out-revoked', 'phone');
    await context.close();
  });
});

describe('accessibility', () => {
  test('no serious or critical axe violation on any screen captured above', () => {
    assert.ok(Object.keys(audits).length >= 12, `audited: ${Object.keys(audits).join(', ')}`);
    const failures = Object.entries(audits).filter(([, v]) => v.length > 0);
    assert.deepEqual(failures, []);
  });
});
