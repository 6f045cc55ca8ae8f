import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import sharp from 'sharp';
import { sql } from 'drizzle-orm';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { openDatabase } from '@idv/db';
import { IdvClient } from '@idv/sdk';
import { generateMasterKey } from '@idv/vault';
import en from '../../apps/journey/src/app/messages/en.ts';
import { DESKTOP, PHONE, launchChromium, saveScreenshot } from '../helpers/browser.ts';
import { TEST_DB, createPostgresDatabase } from '../helpers/database.ts';
import { startEmbeddingPage, type EmbeddingPage } from '../helpers/embedding-page.ts';
import { documentFrame, glaredFrame, selfieFrame, y4mFromFrames, y4mFromImage } from '../helpers/fake-camera.ts';
import { recordCaptures } from '../helpers/capture-log.ts';
import { IMAGES, SELFIE_BOX, fixture } from '../helpers/journey.ts';
import { clipFrames } from '../helpers/liveness-clips.ts';
import { ROOT, freePort, runServe, stop, waitUntilReady, type Proc } from '../helpers/processes.ts';

/**
 * The hosted journey in a real browser: Debian's Chromium driven by playwright-core, its fake
 * camera fed from a video built at test time from a fixture photo, against the service running
 * as a process (API and journey on their own ports) on the database of TEST_DB. Screenshots of
 * each step at a phone viewport go to artifacts/journey/.
 */

const ARTIFACTS = join(ROOT, 'artifacts', 'journey');

let dir: string;
let databaseUrl: string | null = null;
let dropDb = async () => {};
let proc: Proc;
let env: Record<string, string>;
let api: string;
let journeyUrl: string;
let client: IdvClient;
let browser: Browser;
let camera: string;
const pages: EmbeddingPage[] = [];

async function startService(): Promise<void> {
  proc = runServe([], env);
  await waitUntilReady(proc, `${api}/readyz`);
  await waitUntilReady(proc, `${journeyUrl}/`);
}

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'idv-journey-e2e-'));
  mkdirSync(ARTIFACTS, { recursive: true });
  if (TEST_DB === 'postgres') ({ url: databaseUrl, dropDb } = await createPostgresDatabase());
  const [port, jport, dport, cport] = [await freePort(), await freePort(), await freePort(), await freePort()];
  api = `http://127.0.0.1:${port}`;
  journeyUrl = `http://127.0.0.1:${jport}`;
  env = {
    PORT: String(port),
    HOST: '127.0.0.1',
    DATA_DIR: dir,
    API_BASE_URL: api,
    JOURNEY_URL: journeyUrl,
    DOCS_URL: `http://127.0.0.1:${dport}`,
    CONSOLE_URL: `http://127.0.0.1:${cport}`,
    // The development identity provider of the console, on a port of its own.
    IDP_URL: `http://127.0.0.1:${await freePort()}`,
    LOG_LEVEL: 'warn',
    MASTER_KEY: generateMasterKey(),
    // No worker, as in the handoff's browser suite: this file's subject is the journey up to the
    // case reaching processing, and checks running on its cases would only take CPU from Chromium.
    RUN_WORKER: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  };
  // The fake camera shows a real identity card photo (fixture) in a 1280×720 frame; the
  // whole-journey test turns it into a face for the face step (Chromium reads the file anew at
  // each camera start).
  camera = await cardFarAway();
  // Both settled before anything is thrown: a browser launched while the service failed is still closed by `after`.
  const [launched, started] = await Promise.allSettled([launchChromium({ camera }), startService()]);
  if (launched.status === 'fulfilled') browser = launched.value;
  for (const r of [launched, started]) if (r.status === 'rejected') throw r.reason;
  const creds = JSON.parse(readFileSync(join(dir, 'bootstrap-credentials.json'), 'utf8'));
  client = new IdvClient({ baseUrl: api, apiKey: creds.api_key.secret, signingSecret: creds.api_key.signing_secret, maxAttempts: 1 });
});

after(async () => {
  await browser?.close();
  for (const p of pages) await p.close();
  await stop(proc);
  await dropDb();
  rmSync(dir, { recursive: true, force: true });
});

async function phone(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext(PHONE);
  await context.grantPermissions(['camera'], { origin: journeyUrl });
  const page = await context.newPage();
  return { context, page };
}

const shot = (page: Page, name: string) => saveScreenshot(page, join(ARTIFACTS, `${name}.png`), { fullPage: true });
const heading = (target: Page | Frame) => target.locator('h1');
const newCase = async () => (await client.createCase({ flow_name: 'standard', country: 'FR' })).id;
const newSession = (caseId: string, locale = 'en') => client.createSession({ case_id: caseId, locale });
const sessionUrl = async (caseId: string, locale = 'en') => (await newSession(caseId, locale)).url;

/**
 * The camera's view for the tests where the person presses the button: the identity card at 40%
 * of the frame, which the automatic capture never takes ("Too far": it fills a fifth of the guide,
 * it must fill 45%).
 */
const cardFarAway = async () => y4mFromFrames([await documentFrame(fixture(IMAGES.idFront), { fill: 0.4 })], dir);

/** Takes one photo on the capture screen and accepts it. */
async function capture(page: Page, name: string): Promise<void> {
  await page.waitForFunction(() => {
    const v = document.querySelector('video');
    return Boolean(v && v.videoWidth > 0);
  });
  await page.locator('.hint').filter({ hasText: /\S/ }).waitFor();
  // The first frames of a camera can be black: a few looks before the screenshot.
  // (Without its detector, offline on the face step, the screen keeps today's hints: state "manual".)
  await eventually('a few looks', async () => {
    const v = await viewfinderState(page);
    return v.looks >= 3 || v.state === 'manual';
  }, 30_000);
  await shot(page, `${name}-camera`);
  // The views of this test do not take themselves (the card far away, the face small in the
  // oval): the person presses the button.
  assert.notEqual((await viewfinderState(page)).state, 'captured');
  await page.getByRole('button', { name: en.camera_take }).click();
  await page.locator('img.preview').waitFor();
  await shot(page, `${name}-preview`);
  await page.getByRole('button', { name: en.use_photo }).click();
}

/** Sets a session's expiry in the past, in the database the service uses (PGlite: with the service stopped). */
async function expireSession(sessionId: string): Promise<void> {
  if (databaseUrl) {
    const c = new pg.Client({ connectionString: databaseUrl });
    await c.connect();
    try {
      await c.query(`UPDATE sessions SET expires_at = now() - interval '1 minute' WHERE id = $1`, [sessionId]);
    } finally {
      await c.end();
    }
    return;
  }
  await stop(proc);
  const database = await openDatabase({ kind: 'pglite', dataDir: dir });
  try {
    await database.db.execute(sql`UPDATE sessions SET expires_at = now() - interval '1 minute' WHERE id = ${sessionId}`);
  } finally {
    await database.close();
  }
  await startService();
}

/** Polls a condition of the test (a frame's state across origins) until it holds. */
async function eventually(what: string, check: () => boolean | Promise<boolean>, ms = 15_000): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`not reached: ${what}`);
}

const eventsOf = (page: Page) => page.evaluate(() => (window as unknown as { events: Record<string, unknown>[] }).events);

/**
 * A turned face as the service's own analysis boxes it (analyseFaces, pixels of the photo): the
 * selfie frames are built around it (and SELFIE_BOX) so that the face fills the oval. The turned
 * face is Kit Harington turned to his own right (yaw −23° for the service); its mirror image is a
 * turn to the left.
 */
const TURNED = 'faces/face_recognition/examples/knn_examples/train/kit_harington/john2.jpeg';
const TURNED_BOX = { x: 330, y: 72, width: 162, height: 245 };

/** Runs the standard flow's steps through the journey's routes, as the app would, up to the capture of the chosen document. */
async function journeyUpToCapture(token: string, type: 'passport' | 'id_card', pieces: [string, Buffer][] = []): Promise<void> {
  for (const [path, body] of [
    ['/consent', { accepted: true }],
    ['/applicant', { given_names: 'Corinne', surname: 'Berthier', birth_date: '1965-12-06' }],
    ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
    ['/document', { country: 'FR', type }],
  ] as const) {
    const res = await fetch(`${api}/v1/sessions/current${path}`, { method: 'POST', headers: { authorization: `Session ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    assert.equal(res.status, 200, path);
  }
  for (const [kind, bytes] of pieces) {
    const res = await fetch(`${api}/v1/sessions/current/pieces/${kind}`, { method: 'PUT', headers: { authorization: `Session ${token}`, 'content-type': 'image/jpeg' }, body: new Uint8Array(bytes) });
    assert.equal(res.status, 200, kind);
  }
}

/** What the capture screen's automatic capture says of its last look. */
const viewfinderState = (page: Page) =>
  page.locator('.viewfinder').evaluate((el) => ({ state: (el as HTMLElement).dataset.state ?? '', looks: Number((el as HTMLElement).dataset.looks) }));

describe(`the hosted journey in Chromium (${TEST_DB})`, () => {
  test('a person completes the whole journey on a phone: the case reaches processing with every piece stored', async () => {
    const caseId = await newCase();
    const { context, page } = await phone();
    try {
      await page.goto(await sessionUrl(caseId));
      await heading(page).filter({ hasText: en.consent_title }).waitFor();
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), 'H1', 'the focus is on the title of the screen');
      await shot(page, '01-consent');
      assert.equal((await client.getCase(caseId)).status, 'collecting', 'opening the link starts the journey');

      await page.getByRole('button', { name: en.consent_accept }).click();
      await heading(page).filter({ hasText: en.applicant_title }).waitFor();
      await page.getByRole('button', { name: en.continue }).click();
      assert.equal(await page.getByLabel(en.field_given_names).getAttribute('aria-invalid'), 'true', 'required fields are flagged before sending');
      await page.getByLabel(en.field_given_names).fill('Corinne');
      await page.getByLabel(en.field_surname).fill('Berthier');
      await page.getByLabel(en.field_birth_date).fill('1965-12-06');
      await shot(page, '02-applicant');
      await page.getByRole('button', { name: en.continue }).click();

      await heading(page).filter({ hasText: en.questionnaire_title }).waitFor();
      await page.getByRole('radio', { name: 'Salary', exact: true }).check();
      await page.getByRole('radio', { name: 'No', exact: true }).check();
      await shot(page, '03-questionnaire');
      await page.getByRole('button', { name: en.continue }).click();

      await heading(page).filter({ hasText: en.document_title }).waitFor();
      assert.equal(await page.getByLabel(en.document_country).inputValue(), 'FR', 'the case country is proposed');
      await page.getByRole('radio', { name: en.doc_id_card }).check();
      await shot(page, '04-document');
      await page.getByRole('button', { name: en.continue }).click();

      await heading(page).filter({ hasText: en.piece_document_front }).waitFor();
      await page.locator('.hint').filter({ hasText: en.hint_far }).waitFor();
      await capture(page, '05-document-front');
      await heading(page).filter({ hasText: en.piece_document_back }).waitFor();
      await capture(page, '06-document-back');

      await heading(page).filter({ hasText: en.face_title }).waitFor();
      // A face too small in the oval to take itself (a fifth of the frame's height): the person presses.
      await y4mFromFrames([await selfieFrame(fixture(IMAGES.selfie), SELFIE_BOX, { share: 0.2 })], dir);
      await shot(page, '07-face');
      await page.getByRole('button', { name: en.camera_start }).click();
      await heading(page).filter({ hasText: en.piece_selfie }).waitFor();
      await capture(page, '08-selfie');
      // The live sequence: the service draws the challenge when the person presses Start, the
      // screen films it (a small frame every tenth of a second) and sends the frames at once.
      await heading(page).filter({ hasText: en.sequence_title }).waitFor();
      await page.locator('.viewfinder[data-state="ready"]').waitFor();
      await shot(page, '09-sequence-ready');
      // A slow uplink (40 kB/s) from here on, so that the sequence's upload and its progress are seen.
      const cdp = await context.newCDPSession(page);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 50, downloadThroughput: 500_000, uploadThroughput: 40_000 });
      await page.getByRole('button', { name: en.sequence_start }).click();
      await page.locator('.viewfinder[data-state="filming"][data-movement="1"]').waitFor();
      const asked = new Set([en.instruction_liveness_turn_left, en.instruction_liveness_turn_right]);
      await eventually('a movement is asked', async () => asked.has((await page.locator('.sequence-cue').textContent()) ?? ''));
      await shot(page, '10-sequence-movement');
      await page.locator('.viewfinder[data-state="sending"]').waitFor({ timeout: 20_000 });
      assert.equal(await page.locator('.sequence-cue').textContent(), en.sequence_sending);
      // Real progress, from the upload's own progress events.
      await eventually('the progress moves', async () => {
        const value = Number(await page.locator('progress').getAttribute('value'));
        return value > 0 && value < 1;
      }, 60_000);
      await shot(page, '10b-sequence-sending');
      await page.locator('.viewfinder[data-state="done"]').waitFor({ timeout: 120_000 });
      await shot(page, '10c-sequence-done');
      await cdp.send('Network.emulateNetworkConditions', { offline: false, latency: 0, downloadThroughput: -1, uploadThroughput: -1 });

      await heading(page).filter({ hasText: en.check_title }).waitFor();
      await page.getByRole('button', { name: en.help }).click();
      await heading(page).filter({ hasText: en.help_title }).waitFor();
      await shot(page, '11-help');
      await page.getByRole('button', { name: en.help_back }).click();
      await heading(page).filter({ hasText: en.check_title }).waitFor();
      // Both sides, the selfie and the sequence.
      assert.equal(await page.locator('.check-item').count(), 4);
      await shot(page, '12-check');
      await page.getByRole('button', { name: en.check_send }).click();
      await heading(page).filter({ hasText: en.completed_title }).waitFor();
      await shot(page, '13-completed');

      const read = await client.getCase(caseId);
      assert.equal(read.status, 'processing');
      assert.equal(read.state, 'processing');
      const pieces = read.pieces as { id: string; kind: string; available: boolean }[];
      assert.deepEqual([...new Set(pieces.map((p) => p.kind))].sort(), ['document_back', 'document_front', 'liveness_frame', 'selfie']);
      // At least 8 frames a second over the capture (about 5 to 8 seconds).
      assert.ok(pieces.filter((p) => p.kind === 'liveness_frame').length >= 40, `frames: ${pieces.filter((p) => p.kind === 'liveness_frame').length}`);
      assert.ok(pieces.every((p) => p.available && /^pc_/.test(p.id)));
    } finally {
      await context.close();
      await cardFarAway();
    }
  });

  test('the fake camera shows a photo with its own levels: the grey the page reads is the grey written, white paper is not clipped', async () => {
    // A ramp of grey from 0 to 255 across the frame, 5 pixels a level.
    const width = 1280;
    const height = 720;
    const ramp = Buffer.alloc(width * height * 3);
    for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) ramp.fill(Math.min(255, Math.floor(x / 5)), (y * width + x) * 3, (y * width + x + 1) * 3);
    await y4mFromFrames([await sharp(ramp, { raw: { width, height, channels: 3 } }).png().toBuffer()], dir);
    const context = await browser.newContext();
    await context.grantPermissions(['camera'], { origin: journeyUrl });
    const page = await context.newPage();
    try {
      await page.goto(`${journeyUrl}/#not-a-token`);
      const seen = await page.evaluate(async () => {
        const video = document.createElement('video');
        video.muted = true;
        video.srcObject = await navigator.mediaDevices.getUserMedia({ video: { width: 1280, height: 720 } });
        await video.play();
        while (!video.videoWidth) await new Promise((r) => setTimeout(r, 20));
        const canvas = document.createElement('canvas');
        canvas.width = video.videoWidth;
        canvas.height = video.videoHeight;
        const ctx = canvas.getContext('2d')!;
        ctx.drawImage(video, 0, 0);
        const row = ctx.getImageData(0, canvas.height >> 1, canvas.width, 1).data;
        (video.srcObject as MediaStream).getTracks().forEach((t) => t.stop());
        return Array.from({ length: 256 }, (_, level) => row[(level * 5 + 2) * 4]);
      });
      const off = seen.map((v, level) => [level, v]).filter(([level, v]) => Math.abs(v - level) > 3);
      assert.deepEqual(off, [], 'levels shown otherwise than written [written, seen]');
    } finally {
      await context.close();
      await cardFarAway();
    }
  });

  test('automatic capture: both sides of the document, the selfie and both head turns take themselves; the case reaches processing', async () => {
    const caseId = await newCase();
    const token = new URL(await sessionUrl(caseId)).hash.slice(1);
    await journeyUpToCapture(token, 'id_card');
    const frames = {
      front: await documentFrame(fixture(IMAGES.idFront)),
      back: await documentFrame(fixture(IMAGES.idBack)),
      selfie: await selfieFrame(fixture(IMAGES.selfie), SELFIE_BOX),
      turnLeft: await selfieFrame(fixture(TURNED), TURNED_BOX, { flop: true }),
      turnRight: await selfieFrame(fixture(TURNED), TURNED_BOX),
    };
    await y4mFromFrames([frames.front], dir);
    // What each capture screen's camera is fed next: written as soon as the screen before starts
    // its camera (the running camera keeps the file it opened; the next screen's reads the new one).
    const feedAfter = new Map<string, Buffer>([
      [en.piece_document_front, frames.back],
      [en.piece_document_back, frames.selfie],
      [en.piece_selfie, frames.turnLeft],
    ]);
    const { context, page } = await phone();
    let pressed = 0;
    await page.exposeFunction('shutterPressed', () => pressed++);
    await page.addInitScript(() =>
      document.addEventListener('click', (e) => {
        if ((e.target as HTMLElement).closest('button')?.textContent === 'Take the photo') (window as unknown as { shutterPressed(): void }).shutterPressed();
      }, true),
    );
    // The next screen's camera file is written as soon as this one's camera plays (from the page's
    // own call, so never late behind a screenshot).
    const captures = await recordCaptures(page, async (screen) => {
      const next = feedAfter.get(screen);
      feedAfter.delete(screen);
      if (next) await y4mFromFrames([next], dir);
    });
    /** Waits until a capture screen's camera played and its photo took itself, saying "Photo taken". */
    const takesItself = async (title: string, name: string) => {
      const taken = await captures.photoTaken(title).catch(async (err: Error) => {
        await shot(page, `${name}-failed`);
        throw err;
      });
      assert.equal(taken.hint, en.hint_captured);
      const log = await captures.of(title);
      const played = log.findIndex((e) => e.event === 'playing');
      assert.ok(played >= 0 && played < log.findIndex((e) => e.event === 'captured'), 'the camera played before the photo was taken');
      if (await captures.stillShown(title)) await shot(page, name);
    };
    try {
      await page.goto(`${journeyUrl}/#${token}`);
      await takesItself(en.piece_document_front, '50-auto-front-captured');
      await takesItself(en.piece_document_back, '51-auto-back-captured');
      await heading(page).filter({ hasText: en.face_title }).waitFor();
      await page.getByRole('button', { name: en.camera_start }).click();
      await takesItself(en.piece_selfie, '52-auto-selfie-captured');
      // The live sequence starts when the person presses Start (the challenge is drawn then).
      await heading(page).filter({ hasText: en.sequence_title }).waitFor();
      await page.locator('.viewfinder[data-state="ready"]').waitFor();
      await page.getByRole('button', { name: en.sequence_start }).click();
      await page.locator('.viewfinder[data-state="done"]').waitFor({ timeout: 60_000 });
      await shot(page, '53-auto-sequence-done');

      await heading(page).filter({ hasText: en.check_title }).waitFor();
      assert.equal(await page.locator('.check-item').count(), 4);
      await shot(page, '55-auto-check');
      assert.equal(pressed, 0, 'no photo was taken with the button');
      await page.getByRole('button', { name: en.check_send }).click();
      await heading(page).filter({ hasText: en.completed_title }).waitFor();
      const read = await client.getCase(caseId);
      assert.equal(read.status, 'processing');
      const pieces = read.pieces as { kind: string; available: boolean }[];
      assert.deepEqual([...new Set(pieces.map((p) => p.kind))].sort(), ['document_back', 'document_front', 'liveness_frame', 'selfie']);
      assert.ok(pieces.every((p) => p.available));
    } finally {
      await context.close();
      await cardFarAway();
    }
  });

  test('automatic capture waits and says why: a blurred document is never taken, nor a glared, moving or distant one; a frontal face is no head turn', async () => {
    const card = fixture(IMAGES.passport);
    const good = await documentFrame(card);
    const views: [string, Buffer[], string][] = [
      // An empty table, lit (a dark one is "too dark").
      ['no-document', [await sharp({ create: { width: 1280, height: 720, channels: 3, background: { r: 120, g: 110, b: 100 } } }).png().toBuffer()], en.hint_document_edges],
      ['far', [await documentFrame(card, { fill: 0.35 })], en.hint_far],
      ['glare', [await glaredFrame(good)], en.hint_glare],
      // A sweep across the guide that jumps back (the camera plays it in a loop): every frame of the
      // 1.5 s loop at another place, 0.004 of the width apart, so that looks a seventh of a second
      // apart or more never see it still. A back-and-forth loop of 12 frames (0.4 s) was seen still
      // when the looks fell in step with it (frames 3 and 9 at the same place, 200 ms apart).
      ['moving', await Promise.all(Array.from({ length: 45 }, (_, i) => documentFrame(card, { dx: -0.09 + 0.004 * i }))), en.hint_steady],
      ['blurred', [await sharp(good).blur(3).png().toBuffer()], en.hint_blurry],
    ];
    for (const [size, viewport] of [['phone', PHONE], ['desktop', DESKTOP]] as const) {
      const caseId = await newCase();
      const token = new URL(await sessionUrl(caseId)).hash.slice(1);
      await journeyUpToCapture(token, 'passport');
      const context = await browser.newContext(viewport);
      await context.grantPermissions(['camera'], { origin: journeyUrl });
      const page = await context.newPage();
      const captures = await recordCaptures(page);
      try {
        for (const [name, frames, text] of views) {
          await y4mFromFrames(frames, dir);
          // The camera starts when the capture screen is drawn: open it anew for each view.
          if (page.url() === 'about:blank') await page.goto(`${journeyUrl}/#${token}`);
          else {
            await page.getByRole('button', { name: en.help }).click();
            await page.getByRole('button', { name: en.help_back }).click();
          }
          await heading(page).filter({ hasText: en.piece_document_front }).waitFor();
          await eventually(`the hint says "${text}"`, async () => (await page.locator('.hint').textContent()) === text, 30_000).catch(async (err) => {
            await shot(page, `56-wait-${name}-${size}-failed`);
            throw new Error(`${(err as Error).message}; it says "${await page.locator('.hint').textContent()}"`);
          });
          await shot(page, `56-wait-${name}-${size}`);
          if (name === 'blurred') {
            // Twenty looks at the blurred document (several seconds): none takes it.
            await eventually('twenty looks', async () => (await viewfinderState(page)).looks >= 20, 60_000);
            assert.notEqual((await viewfinderState(page)).state, 'captured');
            assert.equal(await page.locator('.hint').textContent(), en.hint_blurry);
            assert.deepEqual((await client.getCase(caseId)).pieces, [], 'nothing was sent');
          }
        }
        // Never taken at any moment of those views, not only when looked at.
        const taken = (await captures.of(en.piece_document_front)).filter((e) => e.event === 'captured');
        assert.deepEqual(taken, [], 'no view above took a photo (the hint shown when one did)');
        // The same document, sharp: it takes itself.
        await y4mFromFrames([good], dir);
        await page.getByRole('button', { name: en.help }).click();
        await page.getByRole('button', { name: en.help_back }).click();
        assert.equal((await captures.photoTaken(en.piece_document_front)).hint, en.hint_captured);
        if (await captures.stillShown(en.piece_document_front)) await shot(page, `57-captured-${size}`);
        await heading(page).filter({ hasText: en.face_title }).waitFor();

        // The face step: the detector loads, then a frontal face is no turn to the left.
        await y4mFromFrames([await selfieFrame(fixture(IMAGES.selfie), SELFIE_BOX)], dir);
        await page.getByRole('button', { name: en.camera_start }).click();
        await heading(page).filter({ hasText: en.piece_selfie }).waitFor();
        await shot(page, `58-face-detecting-${size}`);
        await captures.photoTaken(en.piece_selfie);
        // Then the live sequence's screen, waiting for the person to start it: nothing is filmed or sent before.
        await heading(page).filter({ hasText: en.sequence_title }).waitFor();
        await page.locator('.viewfinder[data-state="ready"]').waitFor();
        assert.equal(await page.locator('.sequence-cue').textContent(), en.sequence_intro);
        await shot(page, `59-sequence-ready-${size}`);
        assert.ok(!(await client.getCase(caseId)).pieces.some((p: { kind: string }) => p.kind === 'liveness_frame'), 'no frame before Start');
        // Started: each movement is said in turn, with its number and the progress; then done.
        await page.getByRole('button', { name: en.sequence_start }).click();
        await page.locator('.viewfinder[data-state="filming"][data-movement="1"]').waitFor();
        await eventually('a movement is said', async () => ((await page.locator('.sequence-cue').textContent()) ?? '').startsWith('Turn your head'));
        await shot(page, `59b-sequence-movement-${size}`);
        await page.locator('.viewfinder[data-state="done"]').waitFor({ timeout: 60_000 });
        await shot(page, `59c-sequence-done-${size}`);
        assert.ok((await client.getCase(caseId)).pieces.filter((p: { kind: string }) => p.kind === 'liveness_frame').length >= 40, 'the frames were sent');
      } finally {
        await context.close();
        await cardFarAway();
      }
    }
  });

  test('a connection lost while sending: the photo waits, "Try again" sends it and the journey finishes', async () => {
    const caseId = await newCase();
    const token = new URL(await sessionUrl(caseId)).hash.slice(1);
    const call = (method: string, path: string, body: unknown, bytes?: Buffer) =>
      fetch(`${api}/v1/sessions/current${path}`, {
        method,
        headers: { authorization: `Session ${token}`, 'content-type': bytes ? 'image/jpeg' : 'application/json' },
        body: bytes ? new Uint8Array(bytes) : JSON.stringify(body),
      });
    // Everything but the selfie through the journey's routes, as the app would have sent it.
    for (const [path, body] of [
      ['/consent', { accepted: true }],
      ['/applicant', { given_names: 'Corinne', surname: 'Berthier', birth_date: '1965-12-06' }],
      ['/questionnaire', { answers: { source_of_funds: 'salary', politically_exposed: 'no' } }],
      ['/document', { country: 'FR', type: 'passport' }],
    ] as const) {
      assert.equal((await call('POST', path, body)).status, 200, path);
    }
    assert.equal((await call('PUT', '/pieces/document_front', undefined, fixture(IMAGES.passport))).status, 200);
    // The live sequence as the app sends it (real frames of a head turn), before the selfie.
    const challenge = (await (await call('POST', '/face/challenge', {})).json()) as { id: string; nonce: string };
    const clip = clipFrames('bona_fide/bf_p01_phone_turn_right_left.mp4', { duration: 2 });
    const frames = clip.frames.map((f, i) => ({ t: clip.times[i]! + (i % 3), image: f.toString('base64') }));
    const sent = await call('POST', '/face/sequence', { challenge_id: challenge.id, nonce: challenge.nonce, frames, camera: { label: 'Front Camera' } });
    assert.equal(sent.status, 200, await sent.text());
    const { context, page } = await phone();
    try {
      await page.goto(`${journeyUrl}/#${token}`);
      await heading(page).filter({ hasText: en.face_title }).waitFor();
      // The app asks for its on-demand screens right after its first one: let those arrive
      // (500 ms without a request) before the connection goes, as it would for a person.
      await page.waitForLoadState('networkidle');
      await context.setOffline(true);
      await page.getByRole('button', { name: en.camera_start }).click();
      await capture(page, '17-offline-selfie');
      await heading(page).filter({ hasText: en.check_title }).waitFor();
      await page.getByRole('button', { name: en.check_send }).click();
      await page.getByText(en.uploading_failed).waitFor();
      await shot(page, '18-upload-failed');
      assert.equal((await client.getCase(caseId)).status, 'collecting');
      await context.setOffline(false);
      await page.getByRole('button', { name: en.retry }).click();
      await heading(page).filter({ hasText: en.completed_title }).waitFor();
      const read = await client.getCase(caseId);
      assert.equal(read.status, 'processing');
      assert.deepEqual([...new Set((read.pieces as { kind: string }[]).map((p) => p.kind))].sort(), ['document_front', 'liveness_frame', 'selfie']);
    } finally {
      await context.close();
    }
  });

  test('accessibility: every control labelled, every button named, text contrast at least 4.5:1 (WCAG AA)', async () => {
    const caseId = await newCase();
    const { context, page } = await phone();
    // Plain JavaScript run in the page (a string: the test compiler's helpers do not exist there).
    const audit = `(() => {
      const problems = [];
      for (const el of document.querySelectorAll('input:not([type=hidden]), select, textarea')) {
        if (!(el.labels && el.labels.length) && !el.getAttribute('aria-label')) problems.push('unlabelled ' + el.outerHTML.slice(0, 80));
      }
      for (const b of document.querySelectorAll('button')) if (!b.textContent.trim() && !b.getAttribute('aria-label')) problems.push('unnamed button');
      const rgb = (c) => (c.match(/[\\d.]+/g) || []).map(Number);
      const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
      const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
      const background = (el) => {
        for (let e = el; e; e = e.parentElement) {
          const c = rgb(getComputedStyle(e).backgroundColor);
          if (c.length >= 3 && (c.length < 4 || c[3] > 0)) return c;
        }
        return [255, 255, 255];
      };
      let checked = 0;
      for (const el of document.querySelectorAll('main h1, main p, main label, main legend, main button, main span, main li')) {
        if (!el.textContent.trim() || el.offsetParent === null) continue;
        const style = getComputedStyle(el);
        const a = lum(rgb(style.color));
        const b = lum(background(el));
        const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
        const large = parseFloat(style.fontSize) >= 24 || (parseFloat(style.fontSize) >= 18.66 && Number(style.fontWeight) >= 700);
        checked++;
        if (ratio < (large ? 3 : 4.5)) problems.push(el.tagName + ' "' + el.textContent.trim().slice(0, 30) + '" contrast ' + ratio.toFixed(2));
      }
      return { problems, checked };
    })()`;
    try {
      await page.goto(await sessionUrl(caseId));
      const screens: [string, () => Promise<void>][] = [
        [en.consent_title, async () => page.getByRole('button', { name: en.consent_accept }).click()],
        [en.applicant_title, async () => {
          await page.getByRole('button', { name: en.continue }).click(); // with errors shown
          await page.getByLabel(en.field_given_names).fill('Corinne');
          await page.getByLabel(en.field_surname).fill('Berthier');
          await page.getByLabel(en.field_birth_date).fill('1965-12-06');
          await page.getByRole('button', { name: en.continue }).click();
        }],
        [en.questionnaire_title, async () => {
          await page.getByRole('radio', { name: 'Salary', exact: true }).check();
          await page.getByRole('radio', { name: 'No', exact: true }).check();
          await page.getByRole('button', { name: en.continue }).click();
        }],
        [en.document_title, async () => page.getByRole('button', { name: en.help }).click()],
        [en.help_title, async () => {}],
      ];
      for (const [title, next] of screens) {
        await heading(page).filter({ hasText: title }).waitFor();
        if (title === en.applicant_title) await page.getByRole('button', { name: en.continue }).click();
        const result = (await page.evaluate(audit)) as { problems: string[]; checked: number };
        assert.ok(result.checked > 2, `${title}: texts were checked`);
        assert.deepEqual(result.problems, [], title);
        await next();
      }
    } finally {
      await context.close();
    }
  });

  test('the ended screens: declined (after confirmation) and invalid link', async () => {
    const caseId = await newCase();
    const { context, page } = await phone();
    try {
      await page.goto(await sessionUrl(caseId));
      await page.getByRole('button', { name: en.consent_decline }).click();
      await heading(page).filter({ hasText: en.decline_title }).waitFor();
      await shot(page, '14-decline-confirm');
      await page.getByRole('button', { name: en.decline_confirm }).click();
      await heading(page).filter({ hasText: en.declined_title }).waitFor();
      await shot(page, '15-declined');
      assert.equal((await client.getCase(caseId)).status, 'abandoned');
      await page.reload();
      await heading(page).filter({ hasText: en.declined_title }).waitFor();

      for (const fragment of ['#not-a-token', `#${'A'.repeat(43)}`]) {
        await page.goto(`${journeyUrl}/${fragment}`);
        await heading(page).filter({ hasText: en.invalid_link_title }).waitFor();
      }
      await shot(page, '16-invalid-link');
    } finally {
      await context.close();
    }
  });

  test('an embedding page on an allowed origin gets the handshake and the message sequence, posted only to its origin', async () => {
    const caseId = await newCase();
    const allowed = await startEmbeddingPage(await freePort(), journeyUrl, () => sessionUrl(caseId));
    pages.push(allowed);
    await client.request('POST', '/v1/journey-embedding', { origins: [allowed.origin] }, { signed: true });
    const { context, page } = await phone();
    await context.grantPermissions(['camera'], { origin: journeyUrl });
    try {
      await page.goto(allowed.origin);
      const frameEl = page.locator('iframe').first();
      assert.equal(await frameEl.getAttribute('allow'), 'camera');
      const frame = page.frameLocator('iframe').first();
      await frame.locator('h1').filter({ hasText: en.consent_title }).waitFor();
      await shot(page, '20-embedded-consent');
      await frame.getByRole('button', { name: en.consent_accept }).click();
      await frame.locator('h1').filter({ hasText: en.applicant_title }).waitFor();
      await frame.getByRole('button', { name: en.help }).click();
      await frame.locator('h1').filter({ hasText: en.help_title }).waitFor();
      await frame.getByRole('button', { name: en.help_later }).click();
      await frame.locator('h1').filter({ hasText: en.later_title }).waitFor();
      await shot(page, '21-embedded-later');
      await eventually('the ended event reached the page', async () => (await eventsOf(page)).some((e) => e.type === 'ended'));

      const events = await eventsOf(page);
      const sequence = events.filter((e) => e.type !== 'resize');
      assert.deepEqual(sequence, [
        { type: 'ready' },
        { type: 'step', step: 'consent' },
        { type: 'step', step: 'applicant' },
        { type: 'step', step: 'help' },
        { type: 'ended', reason: 'later' },
      ]);
      const resizes = events.filter((e) => e.type === 'resize');
      assert.ok(resizes.length >= 1 && resizes.every((e) => typeof e.height === 'number' && (e.height as number) > 0));
      assert.ok(Number.parseInt(await frameEl.evaluate((el) => (el as HTMLIFrameElement).style.height), 10) > 0, 'the frame takes the height the journey reports');

      const raw = (await page.evaluate(() => (window as unknown as { raw: { origin: string; data: Record<string, unknown> }[] }).raw)) ?? [];
      assert.equal(raw[0].data.type, 'service:hello', 'the journey says hello first');
      for (const m of raw) {
        assert.equal(m.origin, new URL(journeyUrl).origin, 'every message comes from the journey origin');
        assert.deepEqual(Object.keys(m.data).filter((k) => !['type', 'version', 'step', 'reason', 'height'].includes(k)), [], 'no other field');
        assert.equal(JSON.stringify(m.data).includes('Berthier'), false);
      }
    } finally {
      await context.close();
    }
  });

  test('an embedding page on a forbidden origin gets nothing, and the frame shows a refusal', async () => {
    const caseId = await newCase();
    let directUrl = '';
    const forbidden = await startEmbeddingPage(await freePort(), journeyUrl, () => sessionUrl(caseId), {
      directFrame: async () => {
        const token = new URL(await sessionUrl(caseId)).hash;
        const creds = JSON.parse(readFileSync(join(dir, 'bootstrap-credentials.json'), 'utf8'));
        directUrl = `${journeyUrl}/embed/${creds.client_id}/sandbox${token}`;
        return directUrl;
      },
    });
    pages.push(forbidden);
    const { context, page } = await phone();
    try {
      await page.goto(`${forbidden.origin}/?direct`);
      const frame = page.frameLocator('iframe').first();
      await frame.locator('h1').filter({ hasText: en.refused_title }).waitFor();
      await shot(page, '22-forbidden-refusal');
      // The client's frame itself, framed directly: the browser refuses it (frame-ancestors).
      const direct = await (await page.waitForSelector('#direct-frame')).contentFrame();
      assert.ok(direct);
      await eventually('the direct frame is blocked by the browser', () => direct.url().startsWith('chrome-error://'));
      assert.ok(directUrl.includes('/embed/cli_'));
      assert.deepEqual(await page.evaluate(() => (window as unknown as { raw: unknown[] }).raw), [], 'no message reached the page');
      assert.deepEqual(await page.evaluate(() => (window as unknown as { events: unknown[] }).events), []);
      assert.equal((await client.getCase(caseId)).status, 'created', 'the journey did not even start');
    } finally {
      await context.close();
    }
  });

  test('a refused embedding changes nothing: the client’s own frame, framed by an allowed page that never answers its handshake, leaves the case created', async () => {
    const caseId = await newCase();
    const other = await newCase();
    const creds = JSON.parse(readFileSync(join(dir, 'bootstrap-credentials.json'), 'utf8'));
    // The page's integrator script answers its own frame only: the direct frame's handshake goes unanswered.
    const allowed = await startEmbeddingPage(await freePort(), journeyUrl, () => sessionUrl(other), {
      directFrame: async () => `${journeyUrl}/embed/${creds.client_id}/sandbox${new URL(await sessionUrl(caseId)).hash}`,
    });
    pages.push(allowed);
    await client.request('POST', '/v1/journey-embedding', { origins: [allowed.origin] }, { signed: true });
    const { context, page } = await phone();
    try {
      await page.goto(`${allowed.origin}/?direct`);
      const direct = await (await page.waitForSelector('#direct-frame')).contentFrame();
      assert.ok(direct);
      await direct.locator('h1').filter({ hasText: en.refused_title }).waitFor({ timeout: 20_000 });
      assert.equal((await client.getCase(caseId)).status, 'created', 'the refused frame did not open the journey');
    } finally {
      await context.close();
    }
  });

  test('an expired link shows the expired screen, top level and framed (telling no page); a new session resumes at the same step', async () => {
    const caseId = await newCase();
    const first = await newSession(caseId);
    const { context, page } = await phone();
    try {
      await page.goto(first.url);
      await page.getByRole('button', { name: en.consent_accept }).click();
      await page.getByLabel(en.field_given_names).fill('Corinne');
      await page.getByLabel(en.field_surname).fill('Berthier');
      await page.getByLabel(en.field_birth_date).fill('1965-12-06');
      await page.getByRole('button', { name: en.continue }).click();
      await heading(page).filter({ hasText: en.questionnaire_title }).waitFor();

      await expireSession(first.id);
      await page.reload();
      await heading(page).filter({ hasText: en.expired_title }).waitFor();
      await shot(page, '30-expired');

      await page.goto(await sessionUrl(caseId));
      await heading(page).filter({ hasText: en.questionnaire_title }).waitFor();
      await shot(page, '31-resumed');

      // Framed, an expired link learns nothing of its client (nothing outlives the link it came
      // from, not even the origins allowed to frame it): the frame says it has expired, and no
      // page is verified to be told. The expired link is made before the page opens: on PGlite,
      // expiring restarts the service, which must not happen while the browser waits.
      const expired = await newSession(caseId);
      await expireSession(expired.id);
      const embedding = await startEmbeddingPage(await freePort(), journeyUrl, async () => expired.url);
      pages.push(embedding);
      await client.request('POST', '/v1/journey-embedding', { origins: [embedding.origin] }, { signed: true });
      await page.goto(embedding.origin);
      const frame = page.frameLocator('iframe').first();
      await frame.locator('h1').filter({ hasText: en.expired_title }).waitFor();
      await shot(page, '32-embedded-expired');
      assert.deepEqual(await page.evaluate(() => (window as unknown as { raw: unknown[] }).raw), [], 'no message reached the page');
      assert.equal(await page.evaluate(() => (window as unknown as { renewals: number }).renewals), 0);
    } finally {
      await context.close();
    }
  });

  test('the client’s appearance: its colours on the buttons and background, its name and logo at the top, the CSP intact', async () => {
    const logo = await sharp({ create: { width: 160, height: 48, channels: 3, background: '#7a1f3d' } }).png().toBuffer();
    await client.request('POST', '/v1/journey-appearance', { display_name: 'Banque Démo', primary_color: '#7a1f3d', background_color: '#fbf7f0', logo: { data_base64: logo.toString('base64') } }, { signed: true });
    const { context, page } = await phone();
    const refusedStyles: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refusedStyles.push(m.text());
    });
    try {
      await page.goto(await sessionUrl(await newCase()));
      await heading(page).filter({ hasText: en.consent_title }).waitFor();
      const brand = page.locator('header.brand');
      await brand.getByText('Banque Démo').waitFor();
      await page.waitForFunction(() => (document.querySelector('img.brand-logo') as HTMLImageElement | null)?.naturalWidth === 160);
      const colours = await page.evaluate(() => ({
        body: getComputedStyle(document.body).backgroundColor,
        button: getComputedStyle(document.querySelector('button.primary')!).backgroundColor,
        label: getComputedStyle(document.querySelector('button.primary')!).color,
      }));
      assert.deepEqual(colours, { body: 'rgb(251, 247, 240)', button: 'rgb(122, 31, 61)', label: 'rgb(255, 255, 255)' });
      assert.deepEqual(refusedStyles, [], 'nothing refused by the CSP');
      await shot(page, '40-appearance');
    } finally {
      await context.close();
      // The next tests (and a rerun) see the journey's own look again.
      await client.request('POST', '/v1/journey-appearance', { display_name: null, primary_color: '#0b57d0', background_color: '#ffffff', logo: null }, { signed: true });
    }
  });
});
