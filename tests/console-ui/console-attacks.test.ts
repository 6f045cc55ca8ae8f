import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import sharp from 'sharp';
import { insertPiece, listPieces, tasksOfCase } from '@idv/db';
import { newId } from '@idv/domain';
import { PieceBlobs } from '@idv/case-data';
import { IMAGES, fixture } from '../helpers/journey.ts';
import { screenAudits, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * The review station's evidence of a suspected presentation attack, in Debian's Chromium: two
 * cases through the real journey (passport, selfie, two head turns) and the real checks, one with
 * the sandbox value `Sandbox Attack challenge_not_live` (the flow sends it to review), one without.
 * The task screen says why the checks suspect an attack (English and French), shows the challenge
 * frames in capture order as lazy thumbnails the keyboard moves through and enlarges, and the
 * liveness and face measures in plain words; never the person's data. Captured on a phone and a
 * desktop and audited.
 */

type Account = Awaited<ReturnType<ConsoleHarness['operator']>>;
let h: ConsoleHarness;
let rita: Account;
/** Also copied where the screens of this work are looked at (outside the repository), when that folder is asked for. */
const { audits, capture } = screenAudits({ alsoIn: process.env.SHOTS_DIR });

let attacked: { caseId: string; taskId: string };
let clean: { caseId: string; taskId: string };
let sequence: { caseId: string; taskId: string };
/** Frames of a challenge sequence added to the two head turns, as a sequence capture stores them. */
const EXTRA_FRAMES = 34;
const PERSON = { surname: 'Hopper', birth_date: '1906-12-09' };

async function reviewedCase(givenNames: string, ref: string, filmed = false): Promise<{ caseId: string; taskId: string }> {
  const created = await h.t.request('POST', '/v1/cases', {
    signed: true,
    body: { flow_name: 'standard', country: 'FR', external_ref: ref, declared: { given_names: givenNames, ...PERSON } },
  });
  assert.equal(created.statusCode, 201, created.body);
  const caseId = created.json().id as string;
  await h.completeJourney(caseId, { filmed });
  return { caseId, taskId: '' };
}

before(async () => {
  h = await startConsoleHarness({ realTime: true, worker: true, stills: true });
  rita = await h.operator('reviewer', 'Rita Reviewer');
  attacked = await reviewedCase('Sandbox Attack challenge_not_live', 'CUST-ATTACK-0001');
  // Filmed: head turns sent as stills carry challenge_stills, an attack reason of their own.
  clean = await reviewedCase('Sandbox Review', 'CUST-CLEAN-0002', true);
  sequence = await reviewedCase('Sandbox Attack camera_injection_suspected', 'CUST-SEQUENCE-0003');
  const ran = await h.runChecks();
  for (const c of [attacked, clean, sequence]) {
    assert.deepEqual(ran.filter((r) => r.caseId === c.caseId).map((r) => r.outcome), ['in_review']);
    c.taskId = (await tasksOfCase(h.t.database.db, h.tenant, c.caseId))[0].id;
  }
  await addSequenceFrames(sequence.caseId, EXTRA_FRAMES);
});

/**
 * Frames of a live challenge sequence (kinds `liveness_frame_<n>`, uploaded in order), sealed and stored
 * as the journey's piece route stores any piece: real photos, one a second.
 */
async function addSequenceFrames(caseId: string, count: number): Promise<void> {
  const blobs = new PieceBlobs(h.t.ctx.blobs, h.t.ctx.vault, h.t.ctx.keyring);
  const photos = [IMAGES.selfie, IMAGES.turnLeft, IMAGES.turnRight].map((p) => fixture(p));
  const sizes = await Promise.all(photos.map((b) => sharp(b).metadata()));
  const [first] = await listPieces(h.t.database.db, caseId);
  for (let i = 0; i < count; i++) {
    const at = new Date(h.t.clock.now().getTime() + 1000 * (i + 1));
    const bytes = photos[i % photos.length];
    const id = newId('pc', at.getTime());
    await h.t.database.db.transaction(async (tx) => {
      assert.ok(await blobs.put(tx, caseId, id, 'biometric', bytes, at));
      await insertPiece(tx, {
        id,
        clientId: first.clientId,
        environment: first.environment,
        caseId,
        sessionId: first.sessionId,
        round: first.round,
        // One current piece per kind and round (the pieces_current index): numbered frames.
        kind: `liveness_frame_${String(i + 1).padStart(2, '0')}`,
        keyClass: 'biometric',
        blobId: id,
        contentType: 'image/jpeg',
        sizeBytes: bytes.length,
        width: sizes[i % photos.length].width!,
        height: sizes[i % photos.length].height!,
        contentHmac: blobs.fingerprint(bytes),
        receivedAt: at,
      });
    });
  }
}
after(async () => {
  await h?.close();
});

/** Every thumbnail of the strip loaded (they are lazy: scrolled into view first). */
async function framesLoaded(page: Page, count: number) {
  await page.locator('.frame-strip').scrollIntoViewIfNeeded();
  await page.waitForFunction((n) => {
    const imgs = [...document.querySelectorAll<HTMLImageElement>('.frame-strip img')];
    return imgs.length === n && imgs.every((i) => i.complete && i.naturalWidth > 0);
  }, count);
}

async function fitsWidth(page: Page): Promise<boolean> {
  return page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth);
}

describe('the evidence of a suspected presentation attack', () => {
  test('why the check suspects an attack, the frames in capture order, the keyboard enlarges one, the measures in words', async () => {
    const page = await h.openAs(rita, `/tasks/${attacked.taskId}`);
    const panel = page.locator('section.attack-panel');
    await panel.getByRole('heading', { name: 'Suspected presentation attack' }).waitFor();
    const why = panel.getByRole('list', { name: 'Why the checks suspect an attack' });
    assert.match((await why.textContent())!, /The face moved like a flat picture, not like a head turning\./);
    assert.match((await why.textContent())!, /kept the proportions of a flat picture being tilted/);
    // Its head turns came as stills (the harness's flow allows them): the panel says what that cannot prove.
    assert.match((await why.textContent())!, /The movements came as one photo each/);
    // Written from the reason, never from the person: no name, no date of birth in the panel.
    const text = (await panel.textContent())!;
    for (const personal of ['Hopper', 'Grace', '1906']) assert.ok(!text.includes(personal), `${personal} in the attack panel`);

    // The frames: one button per frame, in the order they were uploaded (left turn, then right).
    const frames = panel.getByRole('list', { name: 'Challenge frames (2), in the order they were captured' }).getByRole('button');
    assert.equal(await frames.count(), 2);
    await framesLoaded(page, 2);
    const alts = await panel.locator('.frame-strip img').evaluateAll((imgs) => imgs.map((i) => [i.getAttribute('alt'), i.getAttribute('loading'), new URL((i as HTMLImageElement).src).search]));
    assert.deepEqual(alts, [
      ['Challenge frame 1 of 2: Liveness: head turned left', 'lazy', '?view=thumbnail'],
      ['Challenge frame 2 of 2: Liveness: head turned right', 'lazy', '?view=thumbnail'],
    ]);
    // One tab stop; the arrow keys move; Enter enlarges; Escape closes.
    assert.deepEqual(await frames.evaluateAll((b) => b.map((x) => x.getAttribute('tabindex'))), ['0', '-1']);
    await frames.first().focus();
    await page.keyboard.press('ArrowRight');
    assert.equal(await page.evaluate(() => document.activeElement?.querySelector('img')?.getAttribute('alt')), 'Challenge frame 2 of 2: Liveness: head turned right');
    await page.keyboard.press('Enter');
    const big = panel.locator('.frame-enlarged img');
    await big.waitFor();
    assert.equal(await big.getAttribute('alt'), 'Challenge frame 2 of 2: Liveness: head turned right');
    assert.doesNotMatch((await big.getAttribute('src'))!, /view=/);
    await page.waitForFunction(() => {
      const i = document.querySelector<HTMLImageElement>('.frame-enlarged img');
      return i !== null && i.complete && i.naturalWidth > 0;
    });
    assert.equal(await frames.nth(1).getAttribute('aria-pressed'), 'true');
    await page.keyboard.press('ArrowLeft');
    assert.equal(await big.getAttribute('alt'), 'Challenge frame 1 of 2: Liveness: head turned left', 'the enlarged frame follows the arrows');
    await capture(page, 'attack-evidence', 'desktop');
    await page.keyboard.press('Escape');
    await big.waitFor({ state: 'detached' });
    // A click enlarges too.
    await frames.nth(1).click();
    await big.waitFor();

    // The face and liveness measures, in plain words.
    const measureHeadings = await panel.getByRole('heading', { level: 3 }).allTextContents();
    assert.ok(measureHeadings.includes('Measures: Face match'), JSON.stringify(measureHeadings));
    assert.match((await panel.locator('dl[aria-label="Face match"]').textContent())!, /Distance between the faces/);

    const phone = await h.openAs(rita, `/tasks/${attacked.taskId}`, { viewport: 'phone' });
    await phone.locator('section.attack-panel').getByRole('heading', { name: 'Suspected presentation attack' }).waitFor();
    await framesLoaded(phone, 2);
    assert.ok(await fitsWidth(phone), 'the case screen is no wider than the phone');
    await capture(phone, 'attack-evidence', 'phone');
  });

  test('in French: the same evidence in French words', async () => {
    const page = await h.openAs(rita, `/tasks/${attacked.taskId}`, { locale: 'fr-FR' });
    const panel = page.locator('section.attack-panel');
    await panel.getByRole('heading', { name: 'Attaque de présentation suspectée' }).waitFor();
    assert.match((await panel.getByRole('list', { name: 'Pourquoi les contrôles soupçonnent une attaque' }).textContent())!, /les points du visage ont gardé les proportions d’une image plane/);
    await framesLoaded(page, 2);
    assert.equal(await panel.locator('.frame-strip img').first().getAttribute('alt'), 'Image du défi 1 sur 2 : Vivacité : tête tournée à gauche');
  });

  test('a case without an attack reason: the frames and measures, and a plain note that no check suspects an attack', async () => {
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await h.openAs(rita, `/tasks/${clean.taskId}`, { viewport });
      const panel = page.locator('section.attack-panel');
      await panel.getByRole('heading', { name: 'Liveness challenge frames' }).waitFor();
      assert.match((await panel.textContent())!, /No check suspects a presentation attack\./);
      assert.equal(await panel.locator('.attack-why').count(), 0);
      // The filmed sequence's 16 frames in one row (lazy thumbnails: the first ones load in view).
      await page.locator('.frame-strip').scrollIntoViewIfNeeded();
      assert.equal(await panel.locator('.frame-strip img').count(), 16);
      await page.waitForFunction(() => {
        const i = document.querySelector<HTMLImageElement>('.frame-strip img');
        return i !== null && i.complete && i.naturalWidth > 0;
      });
      assert.ok(await fitsWidth(page));
      await capture(page, 'attack-evidence-none', viewport);
    }
  });

  test('a sequence of 36 frames: one scrolling row, the page no wider, End reaches the last frame and enlarges it', async () => {
    for (const viewport of ['desktop', 'phone'] as const) {
      const page = await h.openAs(rita, `/tasks/${sequence.taskId}`, { viewport });
      const panel = page.locator('section.attack-panel');
      await panel.getByRole('heading', { name: 'Suspected presentation attack' }).waitFor();
      const total = 2 + EXTRA_FRAMES;
      const strip = panel.getByRole('list', { name: `Challenge frames (${total}), in the order they were captured` });
      await strip.scrollIntoViewIfNeeded();
      const frames = strip.getByRole('button');
      assert.equal(await frames.count(), total);
      // Upload order: the two head turns first, then the sequence's frames.
      assert.equal(await frames.nth(0).locator('img').getAttribute('alt'), `Challenge frame 1 of ${total}: Liveness: head turned left`);
      assert.equal(await frames.nth(2).locator('img').getAttribute('alt'), `Challenge frame 3 of ${total}`);
      const box = await strip.evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth, rows: new Set([...el.children].map((c) => Math.round(c.getBoundingClientRect().top))).size }));
      assert.ok(box.scroll > box.client, `the row scrolls: ${JSON.stringify(box)}`);
      assert.equal(box.rows, 1, 'one row of frames');
      assert.ok(await fitsWidth(page), 'the page is no wider than the screen');
      await frames.first().focus();
      await page.keyboard.press('End');
      const last = `Challenge frame ${total} of ${total}`;
      assert.equal(await page.evaluate(() => document.activeElement?.querySelector('img')?.getAttribute('alt')), last);
      await page.keyboard.press('Enter');
      const big = panel.locator('.frame-enlarged img');
      await big.waitFor();
      assert.equal(await big.getAttribute('alt'), last);
      await page.waitForFunction(() => {
        const i = document.querySelector<HTMLImageElement>('.frame-enlarged img');
        return i !== null && i.complete && i.naturalWidth > 0;
      });
      await capture(page, 'attack-evidence-sequence', viewport);
    }
  });

  test('every screen passes the axe audit (serious and critical, WCAG 2.1 A and AA)', () => {
    assert.ok(Object.keys(audits).length >= 6);
    assert.deepEqual(Object.entries(audits).filter(([, v]) => v.length > 0), []);
  });
});
