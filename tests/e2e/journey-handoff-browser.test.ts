import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, BrowserContext, Frame, FrameLocator, Page } from 'playwright-core';
import { IdvClient } from '@idv/sdk';
import en from '../../apps/journey/src/app/messages/en.ts';
import { readBarcodes } from '../../packages/engine/src/document/barcodes.ts';
import { screenAudits } from '../helpers/axe.ts';
import { DESKTOP, PHONE, launchChromium } from '../helpers/browser.ts';
import { TEST_DB } from '../helpers/database.ts';
import { startEmbeddingPage, type EmbeddingPage } from '../helpers/embedding-page.ts';
import { y4mFromImage } from '../helpers/fake-camera.ts';
import { IMAGES, allowStillsOver, fixture, journeyCaller } from '../helpers/journey.ts';
import { ROOT, freePort } from '../helpers/processes.ts';
import { startWholeService, waitUntil, type WholeService } from '../helpers/service.ts';

/**
 * The desktop-to-phone handoff in Chromium (docs/journey.md#continuing-on-a-phone): two browser
 * contexts of one browser, a desktop whose camera is refused and a phone whose fake camera shows
 * fixture photos, against the whole service started once (its worker off: the checks are not the
 * subject). Screenshots of each new screen at phone and desktop size, each audited by axe, go to
 * artifacts/journey-handoff/.
 */

const SHOTS = screenAudits(join(ROOT, 'artifacts', 'journey-handoff'));

let service: WholeService;
let client: IdvClient;
let browser: Browser;
let camera: string;
const pages: EmbeddingPage[] = [];

before(async () => {
  service = await startWholeService({ RUN_WORKER: 'false' });
  // The phone's calls send stills (the handoff, not the capture, is this file's subject): the
  // sandbox `standard` flow accepts them (docs/flows.md#the-live-sequence-or-stills).
  await allowStillsOver(service.api, service.creds.api_key);
  camera = await y4mFromImage(fixture(IMAGES.passport), service.dataDir);
  browser = await launchChromium({ camera });
  client = new IdvClient({ baseUrl: service.api, apiKey: service.creds.api_key.secret, signingSecret: service.creds.api_key.signing_secret, maxAttempts: 1 });
});

after(async () => {
  await browser?.close();
  for (const p of pages) await p.close();
  await service?.stop();
});

/** A desktop whose camera is refused for the journey (the browser's own permission setting, as a person's "Block"). */
async function desktop(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(DESKTOP);
  const page = await context.newPage();
  const { targetInfo } = await (await context.newCDPSession(page)).send('Target.getTargetInfo');
  // The setting lasts as long as the DevTools session that made it: kept open until the context closes.
  const session = await browser.newBrowserCDPSession();
  await session.send('Browser.setPermission', { permission: { name: 'camera' }, setting: 'denied', origin: service.journeyUrl, browserContextId: targetInfo.browserContextId });
  context.on('close', () => void session.detach().catch(() => {}));
  return { context, page };
}

async function phone(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(PHONE);
  await context.grantPermissions(['camera'], { origin: service.journeyUrl });
  return { context, page: await context.newPage() };
}

/** Screenshots (and axe audits) of the page as it is, at its own size and at the other viewport's. */
async function shoot(page: Page, name: string, own: 'phone' | 'desktop'): Promise<void> {
  const sizes = { phone: PHONE.viewport, desktop: DESKTOP.viewport };
  const other = own === 'phone' ? 'desktop' : 'phone';
  await SHOTS.capture(page, name, own);
  await page.setViewportSize(sizes[other]);
  await SHOTS.capture(page, name, other);
  await page.setViewportSize(sizes[own]);
}

const heading = (target: Page | Frame | FrameLocator) => target.locator('h1');

/** Consent, entered data and answers of the standard flow, then the passport: the desktop's typing. */
async function typeFirstSteps(target: Page | FrameLocator): Promise<void> {
  await target.getByRole('button', { name: en.consent_accept }).click();
  await target.getByLabel(en.field_given_names).fill('Corinne');
  await target.getByLabel(en.field_surname).fill('Berthier');
  await target.getByLabel(en.field_birth_date).fill('1965-12-06');
  await target.getByRole('button', { name: en.continue }).click();
  await target.getByRole('radio', { name: 'Salary', exact: true }).check();
  await target.getByRole('radio', { name: 'No', exact: true }).check();
  await target.getByRole('button', { name: en.continue }).click();
  await heading(target).filter({ hasText: en.document_title }).waitFor();
}

/** One photo on the phone's capture screen. */
async function capture(page: Page, title: string): Promise<void> {
  await heading(page).filter({ hasText: title }).waitFor();
  await page.waitForFunction(() => (document.querySelector('video')?.videoWidth ?? 0) > 0);
  await page.getByRole('button', { name: en.camera_take }).click();
  await page.getByRole('button', { name: en.use_photo }).click();
}

describe(`the desktop-to-phone handoff in Chromium (${TEST_DB})`, () => {
  test('a desktop whose camera is refused shows a QR code and a short link; the phone opens it, captures, and the desktop follows to the same finish screen', async () => {
    const kase = await client.createCase({ flow_name: 'standard', country: 'FR' });
    const session = await client.createSession({ case_id: kase.id, locale: 'en' });
    const desktopToken = new URL(session.url).hash.slice(1);
    const d = await desktop();
    const p = await phone();
    try {
      await d.page.goto(session.url);
      await typeFirstSteps(d.page);
      await shoot(d.page, 'desktop-document-offer', 'desktop');
      await d.page.getByRole('radio', { name: en.doc_passport }).check();
      await d.page.getByRole('button', { name: en.continue, exact: true }).click();

      // No camera here: the journey offers the phone by itself.
      await heading(d.page).filter({ hasText: en.handoff_title }).waitFor();
      await d.page.getByText(en.handoff_camera_blocked).waitFor();
      const qr = d.page.getByRole('img', { name: en.handoff_qr_label });
      await qr.waitFor();
      const shortLink = (await d.page.locator('.short-link').textContent()) ?? '';
      assert.match(shortLink, /^127\.0\.0\.1:\d+\/p\/[0-9A-HJKMNP-TV-Z]{5}-[0-9A-HJKMNP-TV-Z]{5}$/, 'a short link to type');
      const [read] = await readBarcodes(await qr.screenshot());
      assert.deepEqual(read, { format: 'QRCode', text: `http://${shortLink}` }, 'the QR code holds the short link, drawn in the page');
      assert.equal(shortLink.includes(desktopToken), false, 'the desktop token stays on the desktop');
      await shoot(d.page, 'desktop-code', 'desktop');

      // The phone opens the short link as typed: a session of its own, the code gone from the address.
      await p.page.goto(`http://${shortLink}`);
      await heading(p.page).filter({ hasText: en.handoff_phone_title }).waitFor();
      assert.match(new URL(p.page.url()).hash, /^#[A-Za-z0-9_-]{43}$/);
      assert.equal(new URL(p.page.url()).pathname, '/');
      assert.notEqual(new URL(p.page.url()).hash.slice(1), desktopToken);
      await shoot(p.page, 'phone-opening', 'phone');
      assert.equal(await p.page.getByText(en.handoff_offer).count(), 0, 'a phone is not offered another phone');

      // The desktop follows: the phone has opened it.
      await d.page.getByText(en.handoff_opened).waitFor();

      await p.page.getByRole('button', { name: en.continue, exact: true }).click();
      await capture(p.page, en.piece_document_front);
      await heading(p.page).filter({ hasText: en.face_title }).waitFor();
      await d.page.getByText(en.handoff_phone_step.replace('{step}', en.face_title)).waitFor();
      await shoot(d.page, 'desktop-following', 'desktop');

      await y4mFromImage(fixture(IMAGES.selfie), service.dataDir, { width: 960, height: 720 });
      await p.page.getByRole('button', { name: en.camera_start }).click();
      await capture(p.page, en.piece_selfie);
      // The live sequence on the phone.
      await heading(p.page).filter({ hasText: en.sequence_title }).waitFor();
      await p.page.locator('.viewfinder[data-state="ready"]').waitFor();
      await p.page.getByRole('button', { name: en.sequence_start }).click();
      await p.page.locator('.viewfinder[data-state="done"]').waitFor({ timeout: 60_000 });
      await heading(p.page).filter({ hasText: en.check_title }).waitFor();
      await p.page.getByRole('button', { name: en.check_send }).click();
      await heading(p.page).filter({ hasText: en.completed_title }).waitFor();

      // The desktop ends on the phone's finish screen.
      await heading(d.page).filter({ hasText: en.completed_title }).waitFor();
      assert.equal(await d.page.locator('main p').textContent(), await p.page.locator('main p').textContent());
      await shoot(d.page, 'desktop-finished', 'desktop');
      const read2 = await client.getCase(kase.id);
      assert.equal(read2.status, 'processing');
      assert.deepEqual([...new Set((read2.pieces as { kind: string }[]).map((x) => x.kind))].sort(), ['document_front', 'liveness_frame', 'selfie']);
    } finally {
      await d.context.close();
      await p.context.close();
      await y4mFromImage(fixture(IMAGES.passport), service.dataDir);
    }
  });

  test('embedded on the desktop, by choice (declined once, chosen again): the page receives the same messages, step by step to completed', async () => {
    const kase = await client.createCase({ flow_name: 'standard', country: 'FR' });
    const embedding = await startEmbeddingPage(await freePort(), service.journeyUrl, async () => (await client.createSession({ case_id: kase.id })).url);
    pages.push(embedding);
    await client.request('POST', '/v1/journey-embedding', { origins: [embedding.origin] }, { signed: true });
    const d = await desktop();
    const events = () => d.page.evaluate(() => (window as unknown as { events: { type: string; step?: string }[] }).events.filter((e) => e.type !== 'resize'));
    const reached = (step: string) => waitUntil(`the page hears step ${step}`, async () => (await events()).some((e) => e.step === step), 15_000);
    try {
      await d.page.goto(embedding.origin);
      const frame = d.page.frameLocator('iframe').first();
      await typeFirstSteps(frame);
      // Chosen, then declined: back where the person was; chosen again, a new code replaces the first.
      await frame.getByRole('button', { name: en.handoff_offer }).click();
      await frame.getByRole('img', { name: en.handoff_qr_label }).waitFor();
      assert.equal(await frame.getByText(en.handoff_camera_blocked).count(), 0, 'chosen, not forced: no reason given');
      const first = /\/p\/(.+)$/.exec((await frame.locator('.short-link').textContent()) ?? '')![1];
      await frame.getByRole('button', { name: en.handoff_use_this_device }).click();
      await frame.locator('h1').filter({ hasText: en.document_title }).waitFor();
      await frame.getByRole('button', { name: en.handoff_offer }).click();
      await frame.getByRole('img', { name: en.handoff_qr_label }).waitFor();
      const code = /\/p\/(.+)$/.exec((await frame.locator('.short-link').textContent()) ?? '')![1];
      assert.notEqual(code, first);
      const openCode = (c: string) => fetch(`${service.api}/v1/sessions/handoff`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code: c }) });
      assert.equal((await openCode(first)).status, 401, 'the first code no longer opens');

      // The phone's own calls, as its journey app makes them: open the code, then each step.
      const opened = await openCode(code);
      assert.equal(opened.status, 201);
      const call = journeyCaller(service.api, new URL(((await opened.json()) as { url: string }).url).hash.slice(1));
      await frame.getByText(en.handoff_opened).waitFor();
      await call('POST', '/document', { country: 'FR', type: 'passport' });
      await call('PUT', '/pieces/document_front', undefined, fixture(IMAGES.passport));
      await reached('face');
      for (const [kind, image] of [['selfie', IMAGES.selfie], ['liveness_turn_left', IMAGES.turnLeft], ['liveness_turn_right', IMAGES.turnRight]] as const) {
        await call('PUT', `/pieces/${kind}`, undefined, fixture(image));
      }
      await reached('check');
      await call('POST', '/finish');
      await frame.locator('h1').filter({ hasText: en.completed_title }).waitFor();
      await waitUntil('the page hears completed', async () => (await events()).some((e) => e.type === 'completed'), 15_000);

      assert.deepEqual(await events(), [
        { type: 'ready' },
        { type: 'step', step: 'consent' },
        { type: 'step', step: 'applicant' },
        { type: 'step', step: 'questionnaire' },
        { type: 'step', step: 'document' },
        { type: 'step', step: 'face' },
        { type: 'step', step: 'check' },
        { type: 'completed' },
      ]);
      const raw = await d.page.evaluate(() => (window as unknown as { raw: { origin: string; data: Record<string, unknown> }[] }).raw);
      for (const m of raw) {
        assert.equal(m.origin, new URL(service.journeyUrl).origin);
        assert.equal(JSON.stringify(m.data).includes(code), false, 'no message carries the code');
      }
    } finally {
      await d.context.close();
    }
  });

  test('every screen of the handoff passed the axe audit (no serious or critical violation)', () => {
    assert.ok(Object.keys(SHOTS.audits).length >= 10, Object.keys(SHOTS.audits).join(', '));
    for (const [screen, violations] of Object.entries(SHOTS.audits)) assert.deepEqual(violations, [], screen);
  });
});
