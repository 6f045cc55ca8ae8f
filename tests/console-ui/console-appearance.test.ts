import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Page } from 'playwright-core';
import { ARTIFACTS, axeViolations, saveScreenshot, startConsoleHarness, type ConsoleHarness } from './harness.ts';

/**
 * The Journey appearance screen in Chromium, through the development provider's sign-in: an
 * administrator sees the contrast of a colour as it is typed, is stopped before saving one below
 * WCAG AA, saves a name, colours and a logo, and the service holds them; a supervisor neither sees
 * the screen nor reaches the service's route through the console. Audited with axe, captured on a
 * phone and a desktop into artifacts/console/.
 */

let h: ConsoleHarness;
let dir: string;

before(async () => {
  mkdirSync(ARTIFACTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'console-appearance-'));
  h = await startConsoleHarness();
});
after(async () => {
  await h.close();
  rmSync(dir, { recursive: true, force: true });
});

async function openAs(role: 'administrator' | 'supervisor', viewport: 'phone' | 'desktop', path: string): Promise<Page> {
  return h.openAs(await h.operator(role, `${role} ${viewport}`), path, { viewport });
}

async function capture(page: Page, name: string): Promise<void> {
  await saveScreenshot(page, join(ARTIFACTS, `${name}.png`), { fullPage: true });
  assert.deepEqual(await axeViolations(page), [], `axe: ${name}`);
}

describe('console: journey appearance', () => {
  test('an administrator sets name, colours and logo; a colour below AA is stopped with its contrast', async () => {
    const page = await openAs('administrator', 'desktop', '/appearance');
    await page.getByRole('heading', { level: 1, name: 'Journey appearance' }).waitFor();
    await page.getByText('meets AA').first().waitFor();
    await capture(page, 'appearance-desktop');

    // An orange on white: the links would read at 2.39:1; the form says so and will not save.
    const primary = page.getByRole('textbox', { name: 'Hexadecimal value' }).first();
    await primary.fill('#ff8800');
    await page.getByText(/2\.39:1; WCAG AA needs 4\.5:1/).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Save' }).isDisabled(), true);
    assert.equal(await primary.getAttribute('aria-invalid'), 'true');
    await capture(page, 'appearance-refused-desktop');

    const logoPath = join(dir, 'logo.png');
    writeFileSync(logoPath, await sharp({ create: { width: 200, height: 60, channels: 3, background: '#14532d' } }).png().toBuffer());
    await primary.fill('#14532d');
    await page.getByLabel('Display name').fill('Banque Démo');
    await page.getByLabel('Choose a new logo').setInputFiles(logoPath);
    await page.locator('.journey-preview img').waitFor();
    assert.equal(await page.locator('.journey-preview-button').evaluate((e) => getComputedStyle(e).backgroundColor), 'rgb(20, 83, 45)');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Saved. New journey screens show it at once.').waitFor();
    await page.getByText(/Current logo: PNG/).waitFor();
    await capture(page, 'appearance-saved-desktop');

    const stored = (await h.t.request('GET', '/v1/journey-appearance')).json();
    assert.equal(stored.display_name, 'Banque Démo');
    assert.equal(stored.primary_color, '#14532d');
    assert.equal(stored.logo.content_type, 'image/png');
  });

  test('on a phone: the form and the preview one above the other', async () => {
    const page = await openAs('administrator', 'phone', '/appearance');
    await page.getByRole('heading', { level: 1, name: 'Journey appearance' }).waitFor();
    await page.getByText(/Current logo: PNG/).waitFor();
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 390, `no sideways scrolling (${width} px)`);
    await capture(page, 'appearance-phone');
  });

  test('a supervisor sees no such screen, and the service refuses the route through the console', async () => {
    const page = await openAs('supervisor', 'desktop', '/queue');
    await page.getByRole('navigation', { name: 'Main' }).waitFor();
    assert.equal(await page.getByRole('link', { name: 'Journey appearance' }).count(), 0);
    const res = await page.evaluate(async () => {
      const r = await fetch('/api/v1/journey-appearance');
      return { status: r.status, code: (await r.json()).error?.code };
    });
    assert.deepEqual(res, { status: 403, code: 'operator_role_insufficient' });
  });
});
