import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { createFlowVersion } from '@idv/db';
import { LOCALES, STANDARD_FLOW } from '@idv/domain';
import { verifyWebhook } from '@idv/sdk';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { createEndpoint } from '../helpers/webhooks.ts';
import { apiFromPage, ARTIFACTS, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * The console's review proof in Debian's Chromium, through the development provider's real sign-in
 * pages, one started stack for the file and one browser context per operator:
 * a sandbox case ("Sandbox Review") that went through the real journey and checks, reviewed and
 * approved with its webhook; double validation; an escalation decided by a supervisor; a support
 * account's granted cases; a journey link shown once; an invitation accepted; a revoked operator
 * signed out; a revision finished after the round trip to the provider. Every screen reached is
 * audited with axe and captured into artifacts/console/.
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;

let h: ConsoleHarness;
let rx: Receiver;
let webhookSecret: string;
let rita: Account;
let remi: Account;
let sam: Account;
let ada: Account;
let sue: Account;
const { audits, capture } = screenAudits();
const openAs = (who: { login: string; password: string }, path: string, viewport: 'phone' | 'desktop' = 'desktop', locale?: string) => h.openAs(who, path, { viewport, locale });

/** The verified webhooks of a case, in order (a bad signature throws). */
function eventsOf(caseId: string): { type: string; data: Record<string, unknown> }[] {
  return rx.received
    .map((r) => verifyWebhook(r.body, r.headers, webhookSecret).event)
    .filter((e) => (e.object as { id: string }).id === caseId)
    .map((e) => ({ type: e.type, data: e.data as Record<string, unknown> }));
}

/** Opens a task from the queue and claims it. */
async function claim(page: Page, taskId: string): Promise<void> {
  await page.goto(`${h.consoleUrl}/tasks/${taskId}`);
  await page.getByRole('button', { name: 'Claim', exact: true }).click();
  await page.getByText(/You hold this task until/).waitFor();
}

async function approve(page: Page): Promise<void> {
  await page.getByRole('button', { name: /^Approve/ }).click();
  await page.getByRole('dialog', { name: 'Approve this case?' }).getByRole('button', { name: 'Approve' }).click();
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startConsoleHarness({ realTime: true, worker: true, stills: true });
  // The flow `dual`: the standard flow with double validation.
  await h.t.database.db.transaction((tx) => createFlowVersion(tx, h.tenant, 'dual', { ...STANDARD_FLOW, double_validation: true }, h.t.clock.now(), true));
  rx = await startReceiver();
  webhookSecret = (await createEndpoint(h.t, { tenant: h.tenant, key: h.t.demoKey }, rx.url, ['case.decided'])).secret;
  rita = await h.operator('reviewer', 'Rita Reviewer');
  remi = await h.operator('reviewer', 'Rémi Reviewer');
  sam = await h.operator('supervisor', 'Sam Supervisor');
  ada = await h.operator('administrator', 'Ada Administrator');
  sue = await h.operator('support', 'Sue Support');
});

after(async () => {
  await rx?.close();
  await h?.close();
});

describe('the proof of the review station', () => {
  let ritaPage: Page;
  let remiPage: Page;
  let samPage: Page;
  let adaPage: Page;
  let escalatedTask: string;

  test('a "Sandbox Review" case from a real journey reaches the queue with its images; claim, reveal, correct, approve; the webhook says approved', async () => {
    const created = await h.t.request('POST', '/v1/cases', {
      signed: true,
      body: { flow_name: 'standard', country: 'FR', external_ref: 'proof-sandbox-review', declared: { given_names: 'Sandbox Review', surname: 'Hopper', birth_date: '1906-12-09' } },
    });
    assert.equal(created.statusCode, 201, created.body);
    const caseId = created.json().id as string;
    await h.completeJourney(caseId);
    // The checks run while the reviewer signs in.
    const [ran] = await Promise.all([h.runChecks(), (async () => (ritaPage = await openAs(rita, '/queue')))()]);
    assert.deepEqual(
      ran.filter((r) => r.caseId === caseId).map((r) => r.outcome),
      ['in_review'],
    );
    await rx.waitFor(() => eventsOf(caseId).length >= 1, 15_000, 'the manual_review webhook');
    assert.deepEqual(eventsOf(caseId)[0], { type: 'case.decided', data: { outcome: 'manual_review', reason_code: null } });
    await ritaPage.reload();
    const rows = ritaPage.locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    const href = (await rows.first().locator('a').getAttribute('href'))!;
    const taskId = href.replace('/tasks/', '');
    await ritaPage.click(`a[href="${href}"]`);
    await ritaPage.getByRole('heading', { level: 1 }).filter({ hasText: taskId }).waitFor();

    // Every image of the journey is shown, streamed through the console: the document, its portrait
    // and the selfie among the images, both turns in the challenge strip.
    const images = ritaPage.locator('section[aria-labelledby="images-title"] img');
    await images.first().waitFor();
    await ritaPage.waitForFunction(() => {
      const pictures = [...document.querySelectorAll<HTMLImageElement>('section[aria-labelledby="images-title"] img')];
      const strip = [...document.querySelectorAll<HTMLImageElement>('section[aria-labelledby="attack-title"] img')];
      const imgs = [...pictures, ...strip];
      imgs.forEach((i) => (i.loading = 'eager'));
      return pictures.length >= 3 && strip.length >= 2 && imgs.every((i) => i.complete && i.naturalWidth > 0);
    });
    // The real checks' reports are listed.
    await ritaPage.getByText('sandbox_forced').or(ritaPage.getByText(/forced by a sandbox test value/i)).first().waitFor();
    await ritaPage.getByRole('button', { name: 'Claim', exact: true }).click();
    await ritaPage.getByText(/You hold this task until/).waitFor();
    await ritaPage.getByRole('button', { name: 'Reveal declared.given_names' }).click();
    await ritaPage.locator('.revealed', { hasText: 'Sandbox Review' }).waitFor();
    await ritaPage.getByLabel('Field to correct').selectOption('subject.document_number');
    await ritaPage.getByLabel('Value as read on the image').fill('LX1234567');
    await ritaPage.getByRole('button', { name: 'Save the correction' }).click();
    await ritaPage.getByText('Correction saved for Document number.').waitFor();
    await ritaPage.locator('ul.plain li', { hasText: 'Document number' }).filter({ hasText: 'Rita Reviewer' }).waitFor();
    await capture(ritaPage, 'sandbox-case', 'desktop');

    // The same case screen on a phone (a reviewer's second device), images included.
    const phone = await openAs(rita, `/tasks/${taskId}`, 'phone');
    await phone.waitForFunction(() => {
      const pictures = [...document.querySelectorAll<HTMLImageElement>('section[aria-labelledby="images-title"] img')];
      const strip = [...document.querySelectorAll<HTMLImageElement>('section[aria-labelledby="attack-title"] img')];
      const imgs = [...pictures, ...strip];
      imgs.forEach((i) => (i.loading = 'eager'));
      return pictures.length >= 3 && strip.length >= 2 && imgs.every((i) => i.complete && i.naturalWidth > 0);
    });
    await capture(phone, 'sandbox-case', 'phone');

    // The real checks found what sent the case to review: approving goes against them, so the
    // confirmation lists them and asks why (docs/operators.md#overrides).
    await ritaPage.getByRole('button', { name: /^Approve/ }).click();
    const confirm = ritaPage.getByRole('dialog', { name: 'Approve this case?' });
    await confirm.getByText('Approving goes against these checks:').waitFor();
    assert.ok((await confirm.locator('.override li').count()) >= 1);
    await confirm.getByLabel('Why approve despite them?').fill('Sandbox test case, approved on purpose for the proof.');
    await confirm.getByRole('button', { name: 'Approve' }).click();
    await ritaPage.getByText('Decision recorded. The case is now approved.').waitFor();
    // The journal and the decision name the operator, not an id.
    await ritaPage.locator('.decisions li', { hasText: 'Rita Reviewer' }).waitFor();
    await ritaPage.locator('.timeline li', { hasText: 'Rita Reviewer' }).first().waitFor();
    assert.equal(await ritaPage.locator('.timeline', { hasText: rita.op.id }).count(), 0);
    await capture(ritaPage, 'sandbox-case-approved', 'desktop');

    await rx.waitFor(() => eventsOf(caseId).length >= 2, 15_000, 'the approved webhook');
    assert.deepEqual(eventsOf(caseId)[1], { type: 'case.decided', data: { outcome: 'approved', reason_code: null } });
  });

  test('double validation: the second operator decides without seeing the first outcome; the same outcome concludes', async () => {
    const { taskId } = await h.taskInReview({ flow: 'dual', riskScore: 70 });
    await claim(ritaPage, taskId);
    await approve(ritaPage);
    await ritaPage.getByText('Your outcome is recorded. The task waits for a second operator or a supervisor.').waitFor();

    remiPage = await openAs(remi, `/tasks/${taskId}`);
    await remiPage.getByText('Another operator has already given an outcome. It stays hidden until you give yours.').waitFor();
    // No decision listed; the journal says that Rita acted, never her outcome.
    assert.equal(await remiPage.locator('.decisions').count(), 0);
    await remiPage.locator('.timeline li', { hasText: 'Rita Reviewer' }).first().waitFor();
    assert.doesNotMatch((await remiPage.locator('main').textContent())!, /approved|Approve ·/);
    await capture(remiPage, 'second-validation', 'desktop');
    await remiPage.getByRole('button', { name: 'Claim', exact: true }).click();
    await remiPage.getByText(/You hold this task until/).waitFor();
    await approve(remiPage);
    await remiPage.getByText('Decision recorded. The case is now approved.').waitFor();
    // Now that Rémi gave his, both decisions show, by name.
    await remiPage.locator('.decisions li', { hasText: 'Rita Reviewer' }).waitFor();
    await remiPage.locator('.decisions li', { hasText: 'Rémi Reviewer' }).waitFor();
    await capture(remiPage, 'second-validation-concluded', 'desktop');
  });

  test('an escalation: the two disagree, a reviewer cannot decide it, the supervisor does', async () => {
    const { taskId } = await h.taskInReview({ flow: 'dual', riskScore: 65 });
    escalatedTask = taskId;
    await claim(ritaPage, taskId);
    await approve(ritaPage);
    await ritaPage.getByText('Your outcome is recorded. The task waits for a second operator or a supervisor.').waitFor();

    await claim(remiPage, taskId);
    await remiPage.getByLabel('Reason').first().selectOption('document_tampered');
    await remiPage.getByRole('button', { name: /^Reject/ }).click();
    await remiPage.getByRole('dialog', { name: 'Reject this case?' }).getByRole('button', { name: 'Reject' }).click();
    await remiPage.getByText('Your outcome is recorded. The task waits for a second operator or a supervisor.').waitFor();
    await remiPage.reload();
    await remiPage.getByText('The two operators disagreed. A supervisor or an administrator decides.').waitFor();
    await remiPage.getByText('Only a supervisor or an administrator can decide an escalated task.').waitFor();

    samPage = await openAs(sam, '/queue?status=escalated');
    const rows = samPage.locator('tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.first().locator('a').getAttribute('href'), `/tasks/${taskId}`);
    await capture(samPage, 'queue-escalated', 'desktop');
    await claim(samPage, taskId);
    await samPage.getByText('The two operators disagreed. A supervisor or an administrator decides.').waitFor();
    await capture(samPage, 'escalated-case', 'desktop');
    await samPage.getByLabel('Reason').first().selectOption('document_tampered');
    await samPage.getByRole('button', { name: /^Reject/ }).click();
    await samPage.getByRole('dialog', { name: 'Reject this case?' }).getByRole('button', { name: 'Reject' }).click();
    await samPage.getByText('Decision recorded. The case is now rejected.').waitFor();
    await samPage.locator('.decisions li', { hasText: 'Sam Supervisor' }).waitFor();
    await capture(samPage, 'escalated-decided', 'desktop');
  });

  test('a support account sees only the case granted to it; a reviewer gets a journey link once, with a copy button', async () => {
    const granted = await h.taskInReview({ riskScore: 30, surname: 'Granted' });
    const other = await h.taskInReview({ riskScore: 35, surname: 'Other' });
    // The supervisor (signed in a moment ago: the sign-in counts as the re-authentication) opens the case to support.
    const grant = await apiFromPage(samPage, 'POST', '/v1/support-access', { case_id: granted.caseId, operator_id: sue.op.id, reason: 'The person called the help desk' });
    assert.equal(grant.status, 201, JSON.stringify(grant.body));

    const suePage = await openAs(sue, '/');
    await suePage.getByRole('heading', { level: 1, name: 'Cases granted to me' }).waitFor();
    assert.equal(new URL(suePage.url()).pathname, '/support');
    const cards = suePage.locator('.card');
    await cards.first().waitFor();
    assert.equal(await cards.count(), 1);
    assert.equal(await cards.first().locator('a').textContent(), granted.caseId);
    assert.equal(await suePage.getByRole('link', { name: 'Queue' }).count(), 0);
    await capture(suePage, 'support-grants', 'desktop');
    await cards.first().locator('a').click();
    await suePage.getByRole('heading', { level: 1 }).filter({ hasText: granted.caseId }).waitFor();
    await suePage.getByRole('heading', { name: 'Case journal' }).waitFor();
    await capture(suePage, 'support-record', 'desktop');
    // Another case, even one in review, is not there for support.
    await suePage.goto(`${h.consoleUrl}/cases/${other.caseId}`);
    await suePage.getByText(/No such case|not found/i).first().waitFor();
    assert.equal(await suePage.getByRole('heading', { name: 'Case journal' }).count(), 0);
    const queue = await apiFromPage(suePage, 'GET', '/v1/reviews');
    assert.equal(queue.status, 403);

    // A case waiting for its photos: the reviewer makes a new journey link, shown once, copied.
    const waiting = await h.t.request('POST', '/v1/cases', { signed: true, body: { flow_name: 'standard', country: 'FR', external_ref: 'proof-waiting' } });
    assert.equal(waiting.statusCode, 201, waiting.body);
    const waitingId = waiting.json().id as string;
    await ritaPage.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.consoleUrl });
    await ritaPage.goto(`${h.consoleUrl}/cases/${waitingId}`);
    // The link in the person's language, among the journey's, each named in itself.
    const language = ritaPage.getByLabel('Language of the journey');
    assert.equal(await language.inputValue(), 'en', "the console's language first");
    assert.equal(await language.locator('option').count(), LOCALES.length);
    await language.selectOption({ label: 'العربية' });
    await ritaPage.getByRole('button', { name: 'New journey link' }).click();
    const link = ritaPage.getByRole('textbox', { name: 'Journey link' });
    await link.waitFor();
    const url = await link.inputValue();
    assert.match(url, /^http:\/\/journey\.test\/.*#[A-Za-z0-9_-]{43}$/);
    const journeyState = await h.t.request('GET', '/v1/sessions/current', { key: null, headers: { authorization: `Session ${url.split('#')[1]}` } });
    assert.equal(journeyState.json().locale, 'ar', 'the journey speaks the chosen language');
    await ritaPage.getByText(/Shown once, valid until/).waitFor();
    await ritaPage.getByRole('button', { name: 'Copy' }).click();
    await ritaPage.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await ritaPage.evaluate(() => navigator.clipboard.readText()), url);
    await capture(ritaPage, 'journey-link', 'desktop');
    // Shown once: the screen opened again has no link, only the button to make a new one.
    await ritaPage.reload();
    await ritaPage.getByRole('button', { name: 'New journey link' }).waitFor();
    assert.equal(await ritaPage.locator(`input[value="${url}"]`).count(), 0);
  });

  test('an invitation link accepted by a new operator, who signs in with a new account and lands as that operator', async () => {
    adaPage = await openAs(ada, '/queue');
    const invited = await apiFromPage(adaPage, 'POST', '/v1/operators', { name: 'Nina Newcomer', role: 'reviewer', countries: ['FR'], sensitivity: 'standard' });
    assert.equal(invited.status, 201, JSON.stringify(invited.body));
    const token = invited.body.invitation_token as string;
    assert.match(token, /^inv_/);

    h.idp.addAccount('nina', 'password-nina');
    const context = await h.newContext({ viewport: 'phone' });
    const page = await context.newPage();
    await page.goto(`${h.consoleUrl}/invitation#${token}`);
    await page.waitForSelector('input[name="login"]');
    await page.fill('input[name="login"]', 'nina');
    await page.fill('input[name="password"]', 'password-nina');
    await Promise.all([page.waitForURL((u) => u.origin === h.consoleUrl && u.pathname === '/queue'), page.click('button[type="submit"]')]);
    await page.getByRole('heading', { level: 1, name: 'Review queue' }).waitFor();
    assert.equal(await page.locator('.who-name').textContent(), 'Nina Newcomer');
    // The token never reached a server in a URL, and is gone from the address.
    assert.ok(!page.url().includes(token));
    await capture(page, 'invitation-accepted', 'phone');
    const session = await page.evaluate(async () => (await fetch('/auth/session')).json());
    assert.equal(session.operator.name, 'Nina Newcomer');
    assert.equal(session.operator.role, 'reviewer');
  });

  test('a revoked operator is signed out at their next request', async () => {
    const victor = await h.operator('reviewer', 'Victor Reviewer');
    const { taskId } = await h.taskInReview({ riskScore: 10 });
    const page = await openAs(victor, `/tasks/${taskId}`);
    await page.getByRole('button', { name: 'Claim', exact: true }).waitFor();
    const revoked = await apiFromPage(adaPage, 'POST', `/v1/operators/${victor.op.id}/revoke`);
    assert.equal(revoked.status, 204, JSON.stringify(revoked.body));
    // Victor's next act: claiming the task on the screen he has open.
    await Promise.all([page.waitForURL((u) => u.pathname === '/signed-out'), page.getByRole('button', { name: 'Claim', exact: true }).click()]);
    assert.equal(new URL(page.url()).searchParams.get('reason'), 'session_ended');
    await page.getByText('Your session ended. Please sign in again.').waitFor();
    await capture(page, 'signed-out-session-ended', 'desktop');
    assert.equal(await page.evaluate(async () => (await fetch('/auth/session')).status), 401);
    // Signing in again is refused: the provider account is no longer an operator.
    // (the provider's own session is still alive: it sends him straight back, refused).
    await Promise.all([
      page.waitForURL((u) => u.origin === h.consoleUrl && u.pathname === '/signed-out' && u.search.includes('operator_revoked')),
      page.getByRole('link', { name: 'Sign in' }).or(page.getByRole('button', { name: 'Sign in' })).first().click(),
    ]);
    await page.getByText('Your access to this console was revoked.').waitFor();
    await capture(page, 'signed-out-revoked', 'desktop');
  });

  test('a revision needing a re-authentication is finished after the round trip to the provider, without redoing it', async () => {
    // Six minutes pass for the console: the sign-in's ID token is no longer a recent
    // re-authentication, so the console stops sending it and the service asks for one.
    h.advanceConsoleClock(6 * 60_000);
    await samPage.goto(`${h.consoleUrl}/tasks/${escalatedTask}`);
    await samPage.getByRole('heading', { name: 'Revise the decision' }).waitFor();
    await capture(samPage, 'revision', 'desktop');
    await samPage.locator('select[name="revision_outcome"]').selectOption('approve');
    await samPage.locator('textarea[name="revision_comment"]').fill('The document is genuine after all');
    await samPage.getByRole('button', { name: 'Revise', exact: true }).click();
    await samPage.getByRole('dialog', { name: 'Revise this decision?' }).getByRole('button', { name: 'Revise' }).click();
    // The provider asks for the password again (prompt=login), whatever its own session.
    await samPage.waitForURL((u) => u.origin !== h.consoleUrl);
    await samPage.waitForSelector('input[name="login"]');
    await capture(samPage, 'provider-reauth', 'desktop');
    await samPage.fill('input[name="login"]', sam.login);
    await samPage.fill('input[name="password"]', sam.password);
    await Promise.all([samPage.waitForURL((u) => u.origin === h.consoleUrl && u.pathname === `/tasks/${escalatedTask}`), samPage.click('button[type="submit"]')]);
    // Back on the case: the outcome of the revision is said, and the case is approved now.
    await samPage.getByText('The action you asked for was completed.').waitFor();
    await samPage.getByText('Decision revised: the case is approved.').waitFor();
    assert.ok(!samPage.url().includes('action='), 'the action id left the address');
    await capture(samPage, 'revision-done', 'desktop');
    const read = await h.t.request('GET', `/v1/cases/${(await apiFromPage(samPage, 'GET', `/v1/reviews/${escalatedTask}`)).body.case_id}`);
    assert.equal(read.json().state, 'approved');
  });

  test('axe: no serious or critical violation on any screen reached above', () => {
    assert.ok(Object.keys(audits).length >= 15, `audited: ${Object.keys(audits).join(', ')}`);
    const failures = Object.entries(audits).filter(([, v]) => v.length > 0);
    assert.deepEqual(failures, []);
  });
});
