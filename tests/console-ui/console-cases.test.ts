import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { tasksOfCase } from '@idv/db';
import { ARTIFACTS, saveScreenshot, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * Knowing which case this is, in Debian's Chromium through the provider's real sign-in: the
 * queue's rows name their case (the client's reference, case id, flow, country, age, risk, why);
 * the task's header likewise; the portrait cut from the document of a case that went through the
 * real journey and checks, beside the selfie; the case list with its filters,
 * each case's own state, its outcome and reason, and the CSV of the selection; the phone's
 * identity grid and scrolling navigation. Screens captured at 390×844 and 1440×900 and audited.
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;
let h: ConsoleHarness;
let rita: Account;
let sam: Account;
/** Also copied where the screens of this work are looked at (outside the repository), when that folder is asked for. */
const SHOTS = process.env.SHOTS_DIR;
const { audits, capture } = screenAudits({ alsoIn: SHOTS });

let portraitCase: { caseId: string; taskId: string };
let plain: { caseId: string; taskId: string };

before(async () => {
  h = await startConsoleHarness({ realTime: true, worker: true, stills: true });
  rita = await h.operator('reviewer', 'Rita Reviewer');
  sam = await h.operator('supervisor', 'Sam Supervisor');
  plain = await h.taskInReview({ riskScore: 30 });
  // A case through the real journey (passport photo, selfie, head turns) and the real checks.
  const created = await h.t.request('POST', '/v1/cases', {
    signed: true,
    body: { flow_name: 'standard', country: 'FR', external_ref: 'CUST-PORTRAIT-0042', declared: { given_names: 'Sandbox Review', surname: 'Hopper', birth_date: '1906-12-09' } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const caseId = created.json().id as string;
  await h.completeJourney(caseId);
  const ran = await h.runChecks();
  assert.deepEqual(ran.filter((r) => r.caseId === caseId).map((r) => r.outcome), ['in_review']);
  const [task] = await tasksOfCase(h.t.database.db, h.tenant, caseId);
  portraitCase = { caseId, taskId: task.id };
});
after(async () => {
  await h?.close();
});

/** Every image of the faces row loaded (the page asks for them lazily, after the document sides). */
async function facesLoaded(page: Page) {
  await page.waitForFunction(() => {
    const imgs = [...document.querySelectorAll<HTMLImageElement>('.faces img')];
    imgs.forEach((i) => (i.loading = 'eager'));
    // The document's portrait and the selfie (the head turns have the challenge strip: console-attacks.test.ts).
    return imgs.length >= 2 && imgs.every((i) => i.complete && i.naturalWidth > 0);
  });
}

describe('which case this is', () => {
  test('the queue names each case: reference, case id, flow, country, age, risk and why', async () => {
    const page = await h.openAs(rita, '/queue');
    const rows = page.locator('tbody tr');
    await rows.first().waitFor();
    const row = rows.filter({ hasText: 'CUST-PORTRAIT-0042' });
    const text = (await row.textContent())!;
    assert.match(text, new RegExp(portraitCase.caseId));
    assert.match(text, /standard/);
    assert.match(text, /FR/);
    assert.match(text, /now|minute/, 'the age of the case');
    assert.equal(await row.getByRole('link', { name: 'CUST-PORTRAIT-0042' }).getAttribute('href'), `/tasks/${portraitCase.taskId}`);
    const other = rows.filter({ hasText: plain.caseId });
    assert.match((await other.textContent())!, /close but not close enough/, 'why, in plain words');
    assert.equal(await page.getByRole('columnheader', { name: 'Age' }).count(), 1);
    await capture(page, 'cases-queue', 'desktop');
    const phone = await h.openAs(rita, '/queue', { viewport: 'phone' });
    await phone.locator('tbody tr').first().waitFor();
    assert.ok(await fitsWidth(phone), 'the queue is no wider than the phone');
    await capture(phone, 'cases-queue', 'phone');
  });

  test('the task header names the case; the portrait cut from the document stands beside the selfie', async () => {
    const page = await h.openAs(rita, `/tasks/${portraitCase.taskId}`);
    const heading = page.getByRole('heading', { level: 1 });
    await heading.filter({ hasText: 'CUST-PORTRAIT-0042' }).waitFor();
    assert.match((await heading.textContent())!, new RegExp(portraitCase.taskId));
    // The window's title (kept in the browser's history) names the task, not the reference.
    assert.doesNotMatch(await page.title(), /CUST-PORTRAIT/);
    const ident = (await page.locator('.case-ident').textContent())!;
    // v2: the version the harness activated to take stills (`stills`), which the case was opened under.
    for (const part of [portraitCase.caseId, 'standard v2', 'FR']) assert.ok(ident.includes(part), `${part} in the header: ${ident}`);
    await facesLoaded(page);
    const portrait = page.locator('.face-portrait img');
    assert.match((await portrait.getAttribute('src'))!, /\?view=portrait$/);
    assert.equal(await portrait.getAttribute('alt'), 'Portrait cut from the document');
    const { w, h: ht } = await portrait.evaluate((i: HTMLImageElement) => ({ w: i.naturalWidth, h: i.naturalHeight }));
    assert.ok(Math.abs(w / ht - 0.8) < 0.05 && ht <= 480, `a portrait, not the page: ${w}x${ht}`);
    // Shown at the size of the selfie beside it, large enough to compare.
    const sizes = await page.locator('.faces img').evaluateAll((imgs) => imgs.map((i) => Math.round(i.getBoundingClientRect().width)));
    assert.ok(sizes.every((s) => s === sizes[0] && s >= 150), `faces at one comparable size: ${sizes}`);
    const selfie = page.locator('.faces img[alt="Selfie"]');
    assert.match((await selfie.getAttribute('src'))!, /\?view=thumbnail$/);
    assert.ok((await selfie.evaluate((i: HTMLImageElement) => Math.max(i.naturalWidth, i.naturalHeight))) <= 320, 'a thumbnail, not the photo');
    // The full image on demand: the piece as received.
    const full = page.locator('.face-portrait').getByRole('link', { name: 'Full size' });
    assert.doesNotMatch((await full.getAttribute('href'))!, /view=/);
    // Each view is journaled as a download, with its view.
    const record = (await h.t.request('GET', `/v1/cases/${portraitCase.caseId}/access-log?limit=100`)).json();
    const views = new Set(record.data.filter((e: { kind: string }) => e.kind === 'downloaded').map((e: { what: unknown }) => JSON.stringify(e.what)));
    assert.ok(views.size >= 1, JSON.stringify(record.data.slice(0, 3)));
    await capture(page, 'cases-task-portrait', 'desktop');

    const phone = await h.openAs(rita, `/tasks/${portraitCase.taskId}`, { viewport: 'phone' });
    await phone.getByRole('heading', { level: 1 }).filter({ hasText: 'CUST-PORTRAIT-0042' }).waitFor();
    await facesLoaded(phone);
    assert.ok(await fitsWidth(phone), 'the case screen is no wider than the phone');
    await capture(phone, 'cases-task-portrait', 'phone');
  });
});

describe('the case list', () => {
  test('every case with filters, its own state, outcome and reason; the selection as CSV without the reference', async () => {
    const decided = await h.taskInReview({ riskScore: 10 });
    const rejected = await h.t.request('POST', `/v1/cases/${decided.caseId}/decision`, { signed: true, body: { outcome: 'reject', reason_code: 'document_expired' } });
    assert.equal(rejected.statusCode, 201, rejected.body);
    const page = await h.openAs(sam, '/search');
    await page.getByRole('heading', { level: 1, name: 'Cases' }).waitFor();
    const rows = page.locator('tbody tr');
    await rows.first().waitFor();
    assert.ok((await rows.count()) >= 3, 'every case, before any filter');
    // The case's own state: a case in review says so, a rejected one says rejected with its reason in words.
    const decidedRow = rows.filter({ hasText: decided.caseId });
    assert.match((await decidedRow.textContent())!, /rejected/);
    assert.match((await decidedRow.textContent())!, /The document has expired/);
    await capture(page, 'cases-list', 'desktop');

    await page.getByLabel('State').selectOption('rejected');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1);
    assert.match((await rows.first().textContent())!, new RegExp(decided.caseId));
    await page.getByLabel('State').selectOption('');
    await page.getByLabel(/^Reference or case id/).fill('CUST-PORT');
    await page.getByRole('button', { name: 'Show' }).click();
    await page.waitForFunction(() => document.querySelectorAll('tbody tr').length === 1 && document.querySelector('tbody tr')!.textContent!.includes('CUST-PORTRAIT-0042'));
    assert.match((await rows.first().textContent())!, /in review/);
    // The filters never reach the address.
    assert.ok(!page.url().includes('CUST'));
    await capture(page, 'cases-list-filtered', 'desktop');

    // The CSV of the selection: the same case, outcome columns, never the reference.
    await page.getByRole('button', { name: 'Clear the filters' }).click();
    await page.getByLabel('Flow').fill('standard');
    await page.getByRole('button', { name: 'Show' }).click();
    await rows.nth(2).waitFor();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download these cases as CSV' }).click()]);
    assert.equal(download.suggestedFilename(), 'cases-sandbox.csv');
    const csv = readFileSync((await download.path())!, 'utf8');
    const lines = csv.trimEnd().split('\r\n');
    assert.equal(lines[0], 'case_id,created_at,flow_name,flow_version,country,status,state,outcome,reason_code,decided_at,updated_at');
    assert.ok(lines.some((l) => l.startsWith(`${decided.caseId},`) && l.includes(',rejected,rejected,document_expired,')));
    assert.ok(lines.some((l) => l.startsWith(`${portraitCase.caseId},`)));
    assert.ok(!csv.includes('CUST-PORTRAIT') && !csv.includes('ref-'), 'no reference in the export');

    const phone = await h.openAs(sam, '/search', { viewport: 'phone' });
    await phone.locator('tbody tr').first().waitFor();
    assert.ok(await fitsWidth(phone), 'the case list is no wider than the phone');
    await capture(phone, 'cases-list', 'phone');
  });
});

describe('phone', () => {
  test('the identity grid keeps its labels under the title row; the navigation shows that it scrolls', async () => {
    // A case read from a real passport, in French (the longer words), every value revealed.
    const phone = await h.openAs(sam, `/tasks/${portraitCase.taskId}`, { viewport: 'phone', locale: 'fr-FR' });
    const identity = phone.locator('.table-subject');
    await identity.waitFor();
    await phone.getByRole('button', { name: 'Tout afficher' }).click();
    await phone.locator('.table-subject .revealed').first().waitFor();
    await phone.locator('#subject-title').evaluate((e) => e.scrollIntoView());
    await saveScreenshot(phone, join(ARTIFACTS, 'cases-identity-view-phone.png'), { alsoIn: SHOTS });
    // Each card's labelled values all stand below its title row (the field's name and its comparison badge).
    const overlaps = await identity.evaluate((table) => {
      const hit: string[] = [];
      for (const tr of table.querySelectorAll('tbody tr')) {
        const title = [tr.querySelector('th')!, tr.querySelector('.cell-gap')!].map((e) => e.getBoundingClientRect());
        const titleBottom = Math.max(...title.map((r) => r.bottom));
        for (const td of tr.querySelectorAll<HTMLElement>('td[data-label]')) {
          if (td.getBoundingClientRect().top < titleBottom - 0.5) hit.push(`${tr.querySelector('th')!.textContent} / ${td.dataset.label}`);
        }
      }
      return hit;
    });
    assert.deepEqual(overlaps, []);
    const nav = phone.locator('nav.nav');
    const scrolls = await nav.evaluate((n) => n.scrollWidth > n.clientWidth);
    assert.ok(scrolls, 'the navigation is wider than the phone');
    assert.equal(await nav.getAttribute('data-more'), 'end', 'more lies to the right, and it says so');
    await nav.evaluate((n) => n.scrollTo({ left: n.scrollWidth }));
    await phone.waitForFunction(() => document.querySelector('nav.nav')!.getAttribute('data-more') === 'start');
    await nav.evaluate((n) => n.scrollTo({ left: 0 }));
    await phone.waitForFunction(() => document.querySelector('nav.nav')!.getAttribute('data-more') === 'end');
    await capture(phone, 'cases-task-identity', 'phone');
  });

  test('axe: no serious or critical violation on any screen reached above', () => {
    assert.deepEqual(Object.entries(audits).filter(([, v]) => v.length > 0), []);
  });
});

/** The page is no wider than its viewport (nothing scrolls sideways). */
async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

