import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { LOCALES, STANDARD_FLOW, localeTag, resolveLocale } from '@idv/domain';
import { IdvClient } from '@idv/sdk';
import type { Messages } from '../../apps/journey/src/app/messages/en.ts';
import en from '../../apps/journey/src/app/messages/en.ts';
import { pseudoMessages, pseudoText } from '../../apps/journey/src/app/messages/pseudo.ts';
import { axeViolations } from '../helpers/axe.ts';
import { DESKTOP, PHONE, launchChromium, saveScreenshot } from '../helpers/browser.ts';
import { TEST_DB } from '../helpers/database.ts';
import { documentFrame, selfieFrame, y4mFromFrames } from '../helpers/fake-camera.ts';
import { IMAGES, SELFIE_BOX, fixture } from '../helpers/journey.ts';
import { ROOT, waitUntilReady } from '../helpers/processes.ts';
import { startWholeService, type WholeService } from '../helpers/service.ts';

/**
 * The journey's languages in Chromium, against one started service and one browser for the file:
 * the first screen in each of the twelve languages; every screen of a whole journey in English,
 * Arabic (right to left: the layout mirrored) and Chinese with an axe audit of each; the same
 * journey in the pseudo-locale (long accented texts) on a 360-pixel-wide phone, where no element
 * may overflow horizontally. Screenshots go to artifacts/journey-languages/<run>/. The checks are
 * not this file's subject (RUN_WORKER=false): the cases stop at `processing`.
 */

const ARTIFACTS = join(ROOT, 'artifacts', 'journey-languages');
const NARROW = { ...PHONE, viewport: { width: 360, height: 780 } };

let service: WholeService;
let browser: Browser;
let client: IdvClient;
let cameraDir: string;

const messagesOf = async (locale: string): Promise<Messages> => (await import(`../../apps/journey/src/app/messages/${locale}.ts`)).default;

/**
 * What the camera shows: views that never take themselves (the card at 40% of the frame is "too
 * far"; the face a fifth of the frame's height is "too far" from the oval), so that each photo is
 * taken by the walk's button and its preview screen is audited, whatever the machine's speed.
 * The automatic capture has its own tests (journey-browser).
 */
const cardFarAway = async () => y4mFromFrames([await documentFrame(fixture(IMAGES.idFront), { fill: 0.4 })], cameraDir);
const faceFarAway = async () => y4mFromFrames([await selfieFrame(fixture(IMAGES.selfie), SELFIE_BOX, { share: 0.2 })], cameraDir);

before(async () => {
  service = await startWholeService({ JOURNEY_PSEUDO_LOCALE: 'true', RUN_WORKER: 'false' });
  cameraDir = service.dataDir;
  const camera = await cardFarAway();
  // Both settled before anything is thrown: a browser launched while the service failed is still closed by `after`.
  const [launched, ready] = await Promise.allSettled([launchChromium({ camera }), waitUntilReady(service.proc, `${service.journeyUrl}/`)]);
  if (launched.status === 'fulfilled') browser = launched.value;
  for (const r of [launched, ready]) if (r.status === 'rejected') throw r.reason;
  client = new IdvClient({ baseUrl: service.api, apiKey: service.creds.api_key.secret, signingSecret: service.creds.api_key.signing_secret, maxAttempts: 1 });
});

after(async () => {
  await browser?.close();
  await service?.stop();
});

/** A journey link for a new case of the standard flow, in `locale`; the pseudo-locale's asks for it in its query. */
async function link(locale: string): Promise<{ url: string; expiresAt: string }> {
  const kase = await client.createCase({ flow_name: 'standard', country: 'FR' });
  const session = await client.createSession({ case_id: kase.id, locale: locale === 'en-XA' ? 'en' : locale });
  const url = locale === 'en-XA' ? session.url.replace('/#', '/?locale=en-XA#') : session.url;
  return { url, expiresAt: session.expires_at };
}

async function context(options: object, locale: string): Promise<BrowserContext> {
  const ctx = await browser.newContext({ ...options, locale: locale === 'en-XA' ? 'en-US' : localeTag(resolveLocale(locale)) });
  await ctx.grantPermissions(['camera'], { origin: service.journeyUrl });
  return ctx;
}

const heading = (page: Page, text: string) => page.locator('h1').filter({ hasText: text }).waitFor();

/**
 * Elements wider than their box or outside the viewport's width (the page scrolling sideways, a
 * text cut, a button pushed off screen). Plain JavaScript for the page.
 */
const OVERFLOW = `(() => {
  const width = document.documentElement.clientWidth;
  const problems = [];
  if (document.documentElement.scrollWidth > width) problems.push('the page scrolls sideways: ' + document.documentElement.scrollWidth + ' > ' + width);
  const name = (el) => el.tagName.toLowerCase() + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
  for (const el of document.body.querySelectorAll('*')) {
    if (el.getClientRects().length === 0 || el.closest('.visually-hidden')) continue;
    const r = el.getBoundingClientRect();
    if (r.left < -1 || r.right > width + 1) problems.push(name(el) + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right) + ' of ' + width);
    const control = /^(INPUT|SELECT|TEXTAREA|VIDEO|IMG|CANVAS|PROGRESS|OPTION)$/.test(el.tagName);
    if (!control && el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) problems.push(name(el) + ' holds ' + el.scrollWidth + ' px in ' + el.clientWidth);
  }
  return problems;
})()`;

interface Run {
  /** Directory name of the screenshots. */
  name: string;
  locale: string;
  messages: Messages;
  /** The texts of the flow (the questionnaire) as the person reads them. */
  flowText: (label: Record<string, string | undefined>) => string;
  options: object;
  /** axe audit of each screen (the pseudo-locale's run measures overflow only). */
  audit: boolean;
  /** Called on each screen once it is up, after the audits (Arabic: the mirrored layout). */
  extra?: (page: Page, screen: string) => Promise<void>;
}

/** Each screen: a screenshot, the overflow measure, and the axe audit; the problems are gathered for the test's end. */
function screens(run: Run) {
  const dir = join(ARTIFACTS, run.name);
  mkdirSync(dir, { recursive: true });
  const problems: string[] = [];
  return {
    problems,
    async visit(page: Page, screen: string): Promise<void> {
      await saveScreenshot(page, join(dir, `${screen}.png`), { fullPage: true });
      for (const p of (await page.evaluate(OVERFLOW)) as string[]) problems.push(`${screen}: overflow: ${p}`);
      if (run.audit) for (const v of await axeViolations(page)) problems.push(`${screen}: axe: ${v}`);
      await run.extra?.(page, screen);
    },
  };
}

/**
 * Waits for the camera to play and, for the screenshot, for its first (black) frames to pass: a
 * hint other than "too dark" (advice only: after a few seconds the screen is shot as it is).
 */
async function cameraPlaying(page: Page, m: Messages): Promise<void> {
  await page.waitForFunction(() => (document.querySelector('video')?.videoWidth ?? 0) > 0);
  await page
    .waitForFunction((dark) => Boolean(document.querySelector('.hint')?.textContent) && document.querySelector('.hint')?.textContent !== dark, m.hint_dark, { timeout: 3000 })
    .catch(() => {});
}

/** Takes a photo on the capture screen once the camera plays, and accepts it. */
async function capture(page: Page, m: Messages, visit?: (screen: string) => Promise<void>, screen?: string): Promise<void> {
  await page.waitForFunction(() => (document.querySelector('video')?.videoWidth ?? 0) > 0);
  // The views of this file never take themselves: the photo is the button's.
  assert.notEqual(await page.locator('.viewfinder').getAttribute('data-state'), 'captured', `${screen ?? 'capture'}: taken by itself`);
  const take = page.getByRole('button', { name: m.camera_take });
  await take.click();
  await page.locator('img.preview').waitFor();
  if (visit && screen) await visit(`${screen}-preview`);
  await page.getByRole('button', { name: m.use_photo }).click();
}

/**
 * Every screen of the standard flow, from consent to completed, then the ended screens (later,
 * declined, invalid link), in the run's language. Returns the problems found on the way.
 */
async function walk(run: Run): Promise<string[]> {
  const m = run.messages;
  const { problems, visit: visitPage } = screens(run);
  const ctx = await context(run.options, run.locale);
  const page = await ctx.newPage();
  const visit = (screen: string) => visitPage(page, screen);
  try {
    const { url } = await link(run.locale);
    await page.goto(url);
    await heading(page, m.consent_title);
    assert.equal(await page.title(), m.app_title);
    await visit('01-consent');
    await page.getByRole('button', { name: m.consent_decline }).click();
    await heading(page, m.decline_title);
    await visit('02-decline');
    await page.getByRole('button', { name: m.decline_cancel }).click();
    await heading(page, m.consent_title);
    await page.getByRole('button', { name: m.consent_accept }).click();

    await heading(page, m.applicant_title);
    await page.getByRole('button', { name: m.continue }).click();
    await page.getByText(m.field_required).first().waitFor();
    await visit('03-applicant-errors');
    await page.getByLabel(m.field_given_names).fill('Corinne');
    await page.getByLabel(m.field_surname).fill('Berthier');
    await page.getByLabel(m.field_birth_date).fill('1965-12-06');
    await page.getByLabel(m.field_email).fill('corinne.berthier@example.com');
    await visit('04-applicant');
    await page.getByRole('button', { name: m.continue }).click();

    await heading(page, m.questionnaire_title);
    const questions = STANDARD_FLOW.questionnaire.questions;
    assert.deepEqual(await page.locator('legend').allTextContents(), questions.map((q) => run.flowText(q.label)), "the flow's questions in the language");
    for (const q of questions) await page.locator(`input[name="${q.id}"][value="${q.answers[0].id}"]`).check();
    await visit('05-questionnaire');
    await page.getByRole('button', { name: m.continue }).click();

    await heading(page, m.document_title);
    const france = await page.evaluate((tag) => new Intl.DisplayNames([tag], { type: 'region' }).of('FR'), run.locale === 'en-XA' ? 'en' : localeTag(resolveLocale(run.locale)));
    assert.equal(await page.locator('select option:checked').textContent(), france, 'the country named in the language (Intl)');
    await page.locator('input[value="id_card"]').check();
    await visit('06-document');
    await page.getByRole('button', { name: m.continue }).click();

    await heading(page, m.piece_document_front);
    await cameraPlaying(page, m);
    await visit('07-document-front');
    await capture(page, m, visit, '07-document-front');
    await heading(page, m.piece_document_back);
    await capture(page, m);

    await heading(page, m.face_title);
    await faceFarAway();
    await visit('08-face');
    await page.getByRole('button', { name: m.camera_start }).click();
    await heading(page, m.piece_selfie);
    await cameraPlaying(page, m);
    await visit('09-selfie');
    await capture(page, m);
    // The live sequence: a slow uplink (40 kB/s) so that its sending is seen.
    await heading(page, m.sequence_title);
    await page.locator('.viewfinder[data-state="ready"]').waitFor();
    await visit('10-sequence-ready');
    const cdp = await ctx.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 50, downloadThroughput: 500_000, uploadThroughput: 40_000 });
    await page.getByRole('button', { name: m.sequence_start }).click();
    await page.locator('.viewfinder[data-state="filming"][data-movement="1"]').waitFor();
    await visit('10b-sequence-movement');
    await page.locator('.viewfinder[data-state="sending"]').waitFor({ timeout: 20_000 });
    await visit('10c-sequence-sending');
    await page.locator('.viewfinder[data-state="done"]').waitFor({ timeout: 120_000 });
    await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

    await heading(page, m.check_title);
    await visit('11-check');
    await page.getByRole('button', { name: m.help }).click();
    await heading(page, m.help_title);
    await visit('12-help');
    await page.getByRole('button', { name: m.help_back }).click();
    await heading(page, m.check_title);
    await page.getByRole('button', { name: m.check_send }).click();
    await heading(page, m.completed_title);
    await visit('14-completed');
    await cardFarAway();

    // The ended screens: later (its date in the person's language, by Intl), declined, invalid link.
    const later = await link(run.locale);
    await page.goto(later.url);
    await heading(page, m.consent_title);
    await page.getByRole('button', { name: m.help }).click();
    await page.getByRole('button', { name: m.help_later }).click();
    await heading(page, m.later_title);
    const tag = await page.evaluate(() => document.documentElement.lang);
    const time = await page.evaluate(([tag, iso]) => new Intl.DateTimeFormat(tag, { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)), [tag, later.expiresAt]);
    assert.equal(await page.locator('.ended p').textContent(), m.later_body.replace('{time}', time), 'the date in the language (Intl)');
    await visit('15-later');
    await page.goto((await link(run.locale)).url);
    await page.getByRole('button', { name: m.consent_decline }).click();
    await page.getByRole('button', { name: m.decline_confirm }).click();
    await heading(page, m.declined_title);
    await visit('16-declined');
    await page.goto('about:blank');
    await page.goto(`${service.journeyUrl}/${run.locale === 'en-XA' ? '?locale=en-XA' : ''}#not-a-token`);
    await heading(page, m.invalid_link_title);
    await visit('17-invalid-link');
  } finally {
    await ctx.close();
    await cardFarAway();
  }
  return problems;
}

describe(`the journey's languages in Chromium (${TEST_DB})`, () => {
  test('each of the twelve languages: its own texts, its lang and direction, from the first screen', async () => {
    const ctx = await context(PHONE, 'en');
    const page = await ctx.newPage();
    try {
      for (const locale of LOCALES) {
        const m = await messagesOf(locale);
        await page.goto('about:blank');
        await page.goto((await link(locale)).url);
        await heading(page, m.consent_title);
        assert.deepEqual(
          await page.evaluate(() => ({ lang: document.documentElement.lang, dir: document.documentElement.dir, title: document.title })),
          { lang: localeTag(locale), dir: locale === 'ar' ? 'rtl' : 'ltr', title: m.app_title },
          locale,
        );
        assert.equal(await page.getByRole('button', { name: m.consent_accept }).count(), 1, locale);
        mkdirSync(join(ARTIFACTS, 'consent'), { recursive: true });
        await saveScreenshot(page, join(ARTIFACTS, 'consent', `${locale}.png`), { fullPage: true });
      }
    } finally {
      await ctx.close();
    }
  });

  for (const [locale, language] of [['en', 'English'], ['zh', 'Chinese']] as const) {
    test(`${language}: every screen passes the axe audit and fits the phone`, async () => {
      const messages = await messagesOf(locale);
      assert.deepEqual(await walk({ name: locale, locale, messages, flowText: (l) => l[locale]!, options: PHONE, audit: true }), []);
    });
  }

  test('Arabic, right to left: every screen mirrored, audited by axe, fitting the phone; dates, numbers and countries in Arabic; the desktop mirrored too', async () => {
    const ar = await messagesOf('ar');
    const mirrored = async (page: Page, screen: string) => {
      assert.equal(await page.evaluate(() => document.documentElement.dir), 'rtl', screen);
      assert.equal(await page.evaluate(() => getComputedStyle(document.getElementById('app')!).direction), 'rtl', screen);
      const bar = page.locator('header.bar');
      if (await bar.count()) {
        // The step line starts on the right, the help button sits on the left.
        const helpButton = bar.getByRole('button', { name: ar.help });
        const position = await bar.locator('.position').boundingBox();
        const help = (await helpButton.count()) ? await helpButton.boundingBox() : null;
        if (position && help && position.width > 0) assert.ok(help.x + help.width <= position.x, `${screen}: help left of the step line`);
        // The numbers as Intl writes them in Arabic.
        const line = (await bar.locator('.position').textContent()) ?? '';
        const digits = await page.evaluate(() => new Intl.NumberFormat('ar').format(1234567890));
        const numbers = /^الخطوة (\S+) من (\S+)$/.exec(line);
        if (line) assert.ok(numbers && [...numbers[1] + numbers[2]].every((c) => digits.includes(c)), `${screen}: "${line}"`);
      }
      // A choice's radio button on the right of its label.
      const choice = page.locator('.choice').first();
      if (await choice.count()) {
        const radio = await choice.locator('input').boundingBox();
        const label = await choice.locator('label').boundingBox();
        assert.ok(radio && label && radio.x > label.x, `${screen}: the radio button right of its label`);
      }
      // The front camera's view is a mirror in every language; the document's is not.
      const video = page.locator('video');
      if (await video.count()) {
        const transform = await video.evaluate((v) => getComputedStyle(v).transform);
        assert.equal(transform, screen.startsWith('07-document') ? 'none' : 'matrix(-1, 0, 0, 1, 0, 0)', `${screen}: the camera view`);
      }
    };
    const problems = await walk({ name: 'ar', locale: 'ar', messages: ar, flowText: (l) => l.ar!, options: PHONE, audit: true, extra: mirrored });
    assert.deepEqual(problems, []);

    // On a desktop: the buttons in a row, the first (the main action) on the right in English, on the left in Arabic.
    const dir = join(ARTIFACTS, 'ar');
    const ctx = await context(DESKTOP, 'ar');
    const page = await ctx.newPage();
    try {
      await page.goto((await link('ar')).url);
      await heading(page, ar.consent_title);
      await saveScreenshot(page, join(dir, '01-consent-desktop.png'));
      const accept = await page.getByRole('button', { name: ar.consent_accept }).boundingBox();
      const decline = await page.getByRole('button', { name: ar.consent_decline }).boundingBox();
      assert.ok(accept && decline && Math.abs(accept.y - decline.y) < 2 && accept.x < decline.x, "the row's first button, the main action (on the right in English), on the left");
      await page.getByRole('button', { name: ar.consent_accept }).click();
      await heading(page, ar.applicant_title);
      await saveScreenshot(page, join(dir, '04-applicant-desktop.png'));
    } finally {
      await ctx.close();
    }
  });

  test('the pseudo-locale (every text longer, accented) on a 360-pixel-wide phone: no element overflows on any screen', async () => {
    const pseudo = pseudoMessages(en);
    assert.deepEqual(await walk({ name: 'pseudo-360', locale: 'en-XA', messages: pseudo, flowText: (l) => pseudoText(l.en!), options: NARROW, audit: false }), []);
  });
});
