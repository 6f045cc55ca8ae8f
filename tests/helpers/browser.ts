import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';

/** The two viewports of the browser suites' screenshots and audits. */
export const PHONE = { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true };
export const DESKTOP = { viewport: { width: 1440, height: 900 } };

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Debian's Chromium driven by playwright-core (no browser download), headless, with the flags
 * this machine needs (no sandbox as root, no background connections to the closed network), and
 * the fake camera fed from a Y4M file when given.
 */
export async function launchChromium(opts: { camera?: string; extraArgs?: string[]; ownSignalHandling?: boolean } = {}): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`Chromium is missing at ${CHROMIUM}: install Debian's chromium package (.ci/run does)`);
  const args = [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    '--disable-dev-shm-usage',
    ...(opts.camera ? ['--use-fake-device-for-media-stream', `--use-file-for-fake-video-capture=${opts.camera}`, '--use-fake-ui-for-media-stream'] : []),
    ...(opts.extraArgs ?? []),
  ];
  // ownSignalHandling: the caller stops everything itself on Ctrl-C (playwright's own handler would exit the process first).
  const signals = opts.ownSignalHandling ? { handleSIGINT: false, handleSIGTERM: false, handleSIGHUP: false } : {};
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args, ...signals });
}

/**
 * Whether this run writes the browser suites' screenshots (artifacts/): they are for people
 * looking at the screens, and no test reads them back. CI sets TEST_SCREENSHOTS=0: the PNGs of a
 * whole run (about 330, 100 MB) cost Chromium a tenth (the journey) to a fifth (a console suite) of its CPU.
 */
const KEEP_SCREENSHOTS = process.env.TEST_SCREENSHOTS !== '0';

/**
 * A screenshot of the page to `path`, unless this run keeps none (KEEP_SCREENSHOTS); `alsoIn`, a
 * folder it is copied into as well (where the screens of a piece of work are looked at, outside
 * the repository: SHOTS_DIR).
 */
export async function saveScreenshot(page: Page, path: string, opts: { fullPage?: boolean; alsoIn?: string } = {}): Promise<void> {
  if (!KEEP_SCREENSHOTS) return;
  await page.screenshot({ path, fullPage: opts.fullPage ?? false });
  if (opts.alsoIn) {
    mkdirSync(opts.alsoIn, { recursive: true });
    copyFileSync(path, join(opts.alsoIn, basename(path)));
  }
}
