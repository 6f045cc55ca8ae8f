import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { tasksOfCase } from '@idv/db';
import { CHECK_MEASURES, reportContradictions, type CheckReport } from '@idv/domain';
import { ARTIFACTS, screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * Issue 37, plain words, in Debian's Chromium: a case from a real journey (the shared fixtures'
 * passport, selfie and head turns) checked by the real engine, then its task screen and its record
 * read in French and in English. The rendered text holds no code-like token (snake_case, a dotted
 * action, a measure name with its underscores made spaces); each code stays on hover (the title)
 * for support. Every screen captured on a phone and a desktop, and audited with axe.
 */

let h: ConsoleHarness;
let rita: Awaited<ReturnType<ConsoleHarness['operator']>>;
let sam: Awaited<ReturnType<ConsoleHarness['operator']>>;
let caseId: string;
let taskId: string;
const { audits, capture } = screenAudits();

/** snake_case words, dotted actions (`case.consulted`), and the measures as the console used to show them (`document long side px`). */
const CODE_LIKE = [/\b[a-z]+(?:_[a-z0-9]+)+\b/g, /\b[a-z_]+\.[a-z_]+\b/g];
const MEASURES_AS_WORDS = [...new Set(Object.values(CHECK_MEASURES).flatMap((m) => Object.keys(m)))].filter((n) => n.includes('_')).map((n) => n.replace(/_/g, ' '));

/**
 * The code-like tokens of the page's visible text, less what is not a code: addresses (e-mail,
 * URL) and the ids the screens show on purpose (`tsk_` and 26 characters of a ULID); the journal's
 * raw actor `person` is one too. On a French screen, any measure's name with its underscores made
 * spaces is English left in place.
 */
async function codeLikeTokens(page: Page, locale: 'en' | 'fr'): Promise<string[]> {
  const text = (await page.locator('main').innerText())
    .replace(/\S+@\S+/g, ' ')
    .replace(/https?:\/\/\S+/g, ' ')
    .replace(/\b[a-z]{2,5}_[0-9a-z]{26}\b/gi, ' ');
  const found = CODE_LIKE.flatMap((re) => text.match(re) ?? []);
  if ((await page.locator('.timeline li .small').allInnerTexts()).some((a) => a.trim() === 'person')) found.push('person');
  if (locale === 'fr') for (const m of MEASURES_AS_WORDS) if (text.toLowerCase().includes(m)) found.push(m);
  return [...new Set(found)];
}

/**
 * Every measure shown has words of its own and its name on hover: never its name; in French never
 * its name with the underscores made spaces either (in English that may be the plain words
 * themselves: "Document found").
 */
async function measuresInWords(page: Page, locale: 'en' | 'fr'): Promise<void> {
  const shown = await page.locator('.measures dt .coded').evaluateAll((els) => els.map((e) => ({ code: e.getAttribute('title') ?? '', words: e.textContent ?? '' })));
  assert.ok(shown.length >= 20, `${shown.length} measures shown`);
  for (const m of shown) {
    assert.ok(m.code.length > 0, `a measure without its name on hover: ${m.words}`);
    assert.notEqual(m.words, m.code, `${m.code} shown as itself`);
    if (locale === 'fr') assert.notEqual(m.words.toLowerCase(), m.code.replace(/_/g, ' '), `${m.code} shown in English`);
  }
}

/** The checks panel and the journal both drawn, with the entries of a claim and a consultation. */
async function caseDrawn(page: Page): Promise<void> {
  await page.locator('.checks .measures dt').first().waitFor();
  await page.locator('.timeline li').first().waitFor();
}

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  h = await startConsoleHarness({ realTime: true, worker: true, stills: true });
  rita = await h.operator('reviewer', 'Rita Reviewer');
  sam = await h.operator('supervisor', 'Sam Supervisor');
  // "Sandbox Review" sends the case to review whatever the checks say (sandbox.md); the checks still run on the real images.
  const created = await h.t.request('POST', '/v1/cases', {
    signed: true,
    body: { flow_name: 'standard', country: 'FR', external_ref: 'plain-words', declared: { given_names: 'Sandbox Review', surname: 'Hopper', birth_date: '1906-12-09' } },
  });
  assert.equal(created.statusCode, 201, created.body);
  caseId = created.json().id as string;
  await h.completeJourney(caseId);
  const ran = await h.runChecks();
  assert.deepEqual(ran.filter((r) => r.caseId === caseId).map((r) => r.outcome), ['in_review']);
  // What the real engine reported on these photos agrees with itself (status, reasons, measures).
  const read = await h.t.request('GET', `/v1/cases/${caseId}`, { signed: true });
  assert.equal(read.statusCode, 200, read.body);
  for (const c of read.json().checks as CheckReport[]) assert.deepEqual(reportContradictions(c), [], JSON.stringify(c));
  const [task] = await tasksOfCase(h.t.database.db, h.tenant, caseId);
  assert.ok(task, 'the case has its review task');
  taskId = task.id;
});

after(async () => {
  await h?.close();
});

describe('plain words on the case screens', () => {
  test('French task screen: checks, reasons, measures and journal in words, no raw code; each code on hover', async () => {
    const page = await h.openAs(rita, `/tasks/${taskId}`, { locale: 'fr-FR' });
    await page.getByRole('button', { name: 'Prendre', exact: true }).click();
    await page.reload();
    await caseDrawn(page);
    // The journal names what happened: the consultation and the claim, the raw action on hover.
    await page.locator('.timeline-action[title="case.consulted"]', { hasText: 'Dossier consulté' }).first().waitFor();
    await page.locator('.timeline-action[title="review.claimed"]', { hasText: 'Tâche de révision prise' }).waitFor();
    // A measure the operator could not read before ("document long side px"), in words, its name on hover.
    const longSide = page.locator('.measures dt .coded[title="document_long_side_px"]');
    assert.equal(await longSide.innerText(), 'Grand côté du document, en pixels');
    assert.equal(await page.locator('.check-type[title="face_match"]').innerText(), 'Correspondance des visages');
    // The sandbox's reason, in words.
    await page.locator('.check-reasons .coded[title="sandbox_forced"]', { hasText: 'imposé par une valeur de test' }).first().waitFor();
    await measuresInWords(page, 'fr');
    assert.deepEqual(await codeLikeTokens(page, 'fr'), []);
    await capture(page, 'plain-words-task-fr', 'desktop');
    const phone = await h.openAs(rita, `/tasks/${taskId}`, { locale: 'fr-FR', viewport: 'phone' });
    await caseDrawn(phone);
    assert.deepEqual(await codeLikeTokens(phone, 'fr'), []);
    await capture(phone, 'plain-words-task-fr', 'phone');
  });

  test('English task screen: the same words in English, no raw code', async () => {
    const page = await h.openAs(rita, `/tasks/${taskId}`);
    await caseDrawn(page);
    assert.equal(await page.locator('.measures dt .coded[title="document_long_side_px"]').innerText(), "Document's long side, in pixels");
    await page.locator('.timeline-action[title="review.claimed"]', { hasText: 'Review task claimed' }).waitFor();
    await measuresInWords(page, 'en');
    assert.deepEqual(await codeLikeTokens(page, 'en'), []);
    await capture(page, 'plain-words-task-en', 'desktop');
    const phone = await h.openAs(rita, `/tasks/${taskId}`, { viewport: 'phone' });
    await caseDrawn(phone);
    await capture(phone, 'plain-words-task-en', 'phone');
  });

  test("the case's record (a supervisor's), in French and in English: checks and journal in words, no raw code", async () => {
    const words = {
      fr: { created: 'Dossier créé', checked: 'Contrôles automatiques terminés', person: 'La personne (parcours)', yes: 'oui' },
      en: { created: 'Case created', checked: 'Automated checks completed', person: 'The person (journey)', yes: 'yes' },
    };
    for (const locale of ['fr', 'en'] as const) {
      for (const viewport of ['desktop', 'phone'] as const) {
        const page = await h.openAs(sam, `/cases/${caseId}`, { locale: locale === 'fr' ? 'fr-FR' : 'en-GB', viewport });
        await caseDrawn(page);
        const w = words[locale];
        await page.locator('.timeline-action[title="case.created"]', { hasText: w.created }).waitFor();
        await page.locator('.timeline-action[title="checks.completed"]', { hasText: w.checked }).waitFor();
        // The journey's own entries name the person, not the raw actor `person`.
        await page.locator('.timeline li', { hasText: w.person }).first().waitFor();
        // A 1/0 flag reads as yes or no.
        assert.equal(await page.locator('.measures div', { has: page.locator('.coded[title="document_found"]') }).locator('dd').innerText(), w.yes);
        await measuresInWords(page, locale);
        assert.deepEqual(await codeLikeTokens(page, locale), []);
        await capture(page, `plain-words-record-${locale}`, viewport);
      }
    }
  });

  test('axe: no serious or critical violation on the screens above', () => {
    for (const [screen, violations] of Object.entries(audits)) assert.deepEqual(violations, [], screen);
  });
});
