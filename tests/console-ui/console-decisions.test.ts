import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { createFlowVersion } from '@idv/db';
import { STANDARD_FLOW, type CheckReport } from '@idv/domain';
import { apiFromPage, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * Safe decisions in Debian's Chromium, signed in through the development provider's real pages:
 * approving a case whose face match failed lists the checks it goes against and cannot be
 * confirmed without a justification (nor sent without one: the service refuses it); with one it
 * is recorded, and the task, the record, the journal and the API show it. A flow asking a second
 * validator for overrides sends the task to a second operator, who must justify too. The
 * confirmations read in English and French; rejecting looks destructive. Every screen reached is
 * audited with axe and captured (phone and desktop).
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;

/** A face match that failed and liveness that needs attention, the rest passed (as the checks runner stores them). */
const CHECKS: CheckReport[] = [
  { type: 'document_quality', status: 'ok', reasons: [], measures: {} },
  { type: 'face_match', status: 'failed', reasons: ['faces_differ'], measures: { distance: 1.31 } },
  { type: 'liveness', status: 'attention', reasons: ['challenge_not_performed'], measures: {} },
  { type: 'duplicates', status: 'ok', reasons: [], measures: {} },
];
const WHY = 'Portrait taken in 2012; ears and the chin scar match. Called the customer back on the number on file.';

let h: ConsoleHarness;
let rita: Account;
let remi: Account;
let sam: Account;
const { audits, capture } = screenAudits();

before(async () => {
  h = await startConsoleHarness();
  // The standard flow, plus: an override needs a second operator (double validation otherwise off).
  await h.t.database.db.transaction((tx) =>
    createFlowVersion(tx, h.tenant, 'guarded', { ...STANDARD_FLOW, double_validation: false, double_validation_on_override: true }, h.t.clock.now(), true),
  );
  rita = await h.operator('reviewer', 'Rita Reviewer');
  remi = await h.operator('reviewer', 'Rémi Reviewer');
  sam = await h.operator('supervisor', 'Sam Supervisor');
});

after(async () => {
  await h?.close();
});

async function claim(page: Page, taskId: string): Promise<void> {
  await page.goto(`${h.consoleUrl}/tasks/${taskId}`);
  await page.getByRole('button', { name: 'Claim', exact: true }).click();
  await page.getByText(/You hold this task until/).waitFor();
}

describe('deciding against failed checks', () => {
  test('an override of a failed face match: refused without a justification, recorded with one; the task, the record, the journal and the API show it', async () => {
    const { taskId, caseId } = await h.taskInReview({ checks: CHECKS });
    const page = await h.openAs(rita, `/tasks/${taskId}`);
    await claim(page, taskId);
    await page.getByRole('button', { name: /^Approve/ }).click();
    const dialog = page.getByRole('dialog', { name: 'Approve this case?' });
    await dialog.waitFor();
    // The checks it goes against, in plain words with their verdicts.
    await dialog.getByText('Approving goes against these checks:').waitFor();
    const listed = await dialog.locator('.override li').allTextContents();
    assert.deepEqual(listed, ['Face match · Failed', 'Liveness · Needs attention']);
    const confirm = dialog.getByRole('button', { name: 'Approve' });
    const why = dialog.getByLabel('Why approve despite them?');
    assert.equal(await why.evaluate((e) => e === document.activeElement), true, 'the focus starts in the justification');
    assert.equal(await confirm.isDisabled(), true, 'no approval without a justification');
    await why.fill('ok');
    await dialog.getByText('Write at least 10 characters.').waitFor();
    assert.equal(await confirm.isDisabled(), true);
    await capture(page, 'override-confirm', 'desktop', { fullPage: false });

    // The service refuses it too, whatever the page does: the same call without a justification.
    const refused = await apiFromPage(page, 'POST', `/v1/reviews/${taskId}/decision`, { outcome: 'approve' });
    assert.equal(refused.status, 422);
    assert.deepEqual([refused.body.error.code, refused.body.error.field], ['justification_required', 'justification']);
    assert.match(refused.body.error.message, /face_match, liveness/);

    await why.fill(WHY);
    await confirm.click();
    await page.getByText('Decision recorded. The case is now approved.').waitFor();
    const decision = page.locator('.decisions li', { hasText: 'Rita Reviewer' });
    await decision.getByText('Approved against: Face match, Liveness').waitFor();
    await decision.getByText(WHY).waitFor();
    await capture(page, 'override-recorded', 'desktop');

    // The record (what search and links open) shows it, on a phone as on a desktop.
    const supervisor = await h.openAs(sam, `/cases/${caseId}`);
    await supervisor.locator('.decisions li', { hasText: 'Rita Reviewer' }).getByText(WHY).waitFor();
    await capture(supervisor, 'override-record', 'desktop');
    const phone = await h.openAs(sam, `/cases/${caseId}`, { viewport: 'phone' });
    await phone.locator('.decisions li').getByText(WHY).waitFor();
    await capture(phone, 'override-record', 'phone');

    // The API: the decision carries the checks and the justification; the journal names the override, never quotes it.
    const record = await apiFromPage(supervisor, 'GET', `/v1/cases/${caseId}/record`);
    assert.equal(record.status, 200);
    assert.deepEqual(
      record.body.decisions.map((d: { overridden_checks: string[]; justification: string; decided_by: string }) => [d.decided_by, d.overridden_checks, d.justification]),
      [[`op:${rita.op.id}`, ['face_match', 'liveness'], WHY]],
    );
    const entry = record.body.journal.find((j: { action: string }) => j.action === 'review.checks_overridden');
    assert.deepEqual([entry?.actor, JSON.stringify(record.body.journal).includes('chin scar')], [`op:${rita.op.id}`, false]);
  });

  test('the flow asks a second validator for overrides: the task waits for another operator, who decides blind and justifies too', async () => {
    const { taskId, caseId } = await h.taskInReview({ checks: CHECKS, flow: 'guarded' });
    const first = await h.openAs(rita, `/tasks/${taskId}`);
    await claim(first, taskId);
    await first.getByRole('button', { name: /^Approve/ }).click();
    let dialog = first.getByRole('dialog', { name: 'Approve this case?' });
    await dialog.getByLabel('Why approve despite them?').fill(WHY);
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await first.getByText('Your outcome is recorded. The task waits for a second operator or a supervisor.').waitFor();
    assert.equal((await apiFromPage(first, 'GET', `/v1/cases/${caseId}/record`)).body.case.state, 'in_review');

    const second = await h.openAs(remi, `/tasks/${taskId}`);
    await second.getByText('Another operator has already given an outcome. It stays hidden until you give yours.').waitFor();
    assert.equal(await second.locator('.decisions').count(), 0, 'the first outcome and its justification stay hidden');
    await capture(second, 'override-second-validator', 'desktop');
    await claim(second, taskId);
    await second.getByRole('button', { name: /^Approve/ }).click();
    dialog = second.getByRole('dialog', { name: 'Approve this case?' });
    assert.equal(await dialog.getByRole('button', { name: 'Approve' }).isDisabled(), true);
    await dialog.getByLabel('Why approve despite them?').fill('Same person: I compared the ears and the chin scar too.');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await second.getByText('Decision recorded. The case is now approved.').waitFor();
    await second.locator('.decisions li', { hasText: 'Rita Reviewer' }).getByText(WHY).waitFor();
    await second.locator('.decisions li', { hasText: 'Rémi Reviewer' }).getByText(/compared the ears/).waitFor();
    await capture(second, 'override-second-validator-concluded', 'desktop');
  });
});

describe('confirmations', () => {
  for (const locale of ['en', 'fr'] as const) {
    test(`read in ${locale}: approve against checks, reject with its reason (destructive), resubmit with its steps`, async () => {
      const words = {
        en: {
          approve: 'Approve this case?',
          override: 'Approving goes against these checks:',
          listed: ['Face match · Failed', 'Liveness · Needs attention'],
          reject: 'Reject this case?',
          rejectButton: 'Reject',
          reason: 'Reason given to the client: The document has expired.',
          resubmit: 'Ask the person to retake photos?',
          steps: 'To retake: Document photos.',
          cancel: 'Cancel',
        },
        fr: {
          approve: 'Approuver ce dossier ?',
          override: 'Approuver va contre ces contrôles :',
          listed: null,
          reject: 'Refuser ce dossier ?',
          rejectButton: 'Refuser',
          reason: 'Motif donné au client : Le document a expiré.',
          resubmit: 'Demander à la personne de reprendre des photos ?',
          steps: 'À reprendre : Photos du document.',
          cancel: 'Annuler',
        },
      }[locale];
      const { taskId } = await h.taskInReview({ checks: CHECKS });
      for (const viewport of ['desktop', 'phone'] as const) {
        const page = await h.openAs(sam, `/tasks/${taskId}`, { viewport, locale });
        if (viewport === 'desktop') {
          await page.getByRole('button', { name: locale === 'fr' ? 'Prendre' : 'Claim', exact: true }).click();
        }
        await page.locator('.decision-ready').waitFor();

        await page.locator('button.button-approve').click();
        let dialog = page.getByRole('dialog', { name: words.approve });
        await dialog.getByText(words.override).waitFor();
        if (words.listed) assert.deepEqual(await dialog.locator('.override li').allTextContents(), words.listed);
        await capture(page, `confirm-approve-override-${locale}`, viewport, { fullPage: false });
        await dialog.getByRole('button', { name: words.cancel }).click();

        await page.locator('select[name="reject_reason"]').selectOption('document_expired');
        await page.locator('button.button-reject').click();
        dialog = page.getByRole('dialog', { name: words.reject });
        await dialog.getByText(words.reason, { exact: true }).waitFor();
        assert.doesNotMatch((await dialog.locator('h2').textContent())!, /\.\s?\?/, 'no sentence inside the question');
        const reject = dialog.getByRole('button', { name: words.rejectButton });
        assert.match((await reject.getAttribute('class'))!, /button-danger/, 'rejecting looks destructive');
        assert.equal(await dialog.getByRole('button', { name: words.cancel }).evaluate((e) => e === document.activeElement), true, 'the focus starts on Cancel');
        await capture(page, `confirm-reject-${locale}`, viewport, { fullPage: false });
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });

        await page.locator('input[name="steps"][value="document"]').check();
        await page.locator('.decision-buttons button').nth(2).click();
        dialog = page.getByRole('dialog', { name: words.resubmit });
        await dialog.getByText(words.steps, { exact: true }).waitFor();
        await capture(page, `confirm-resubmit-${locale}`, viewport, { fullPage: false });
        await dialog.getByRole('button', { name: words.cancel }).click();
        await page.context().close();
      }
    });
  }

  test('every screen reached passes axe', () => {
    assert.ok(Object.keys(audits).length >= 16, `audited: ${Object.keys(audits).join(', ')}`);
    const failures = Object.entries(audits).filter(([, v]) => v.length > 0);
    assert.deepEqual(failures, []);
  });
});
