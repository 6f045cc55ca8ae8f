import type { Page } from 'playwright-core';

/** One moment of a capture screen, as the page logged it. */
interface CaptureEvent {
  /** The screen's title (its h1) at that moment. */
  screen: string;
  /** Its camera started showing frames, or its photo took itself. */
  event: 'playing' | 'captured';
  /** What the screen's hint said then. */
  hint: string;
}

export interface CaptureLog {
  /** What the screen titled `screen` went through, in order. */
  of(screen: string): Promise<CaptureEvent[]>;
  /**
   * Waits until the screen titled `screen` took its photo by itself, and returns that moment; on
   * timeout the error holds the whole log (what every screen went through instead).
   */
  photoTaken(screen: string, timeoutMs?: number): Promise<CaptureEvent>;
  /**
   * Whether the screen titled `screen` still shows the photo it took (it does for a moment before
   * the next screen, unless the next came first on a loaded machine): when to take its screenshot.
   */
  stillShown(screen: string): Promise<boolean>;
}

type LoggingWindow = { captureLog: CaptureEvent[] };

/**
 * Has the journey's page log its capture screens (camera playing, photo taken, title and hint), so
 * a test reads what happened rather than polling for a state that may have come and gone.
 * `onCameraPlays` runs as each screen's camera plays. Call before the page opens the journey.
 */
export async function recordCaptures(page: Page, onCameraPlays: (screen: string) => unknown = () => {}): Promise<CaptureLog> {
  await page.exposeFunction('cameraPlays', onCameraPlays);
  // Given as text: tsx would wrap a named function inside a function given here with a helper
  // (`__name`) the page does not have.
  await page.addInitScript(`
    window.captureLog = [];
    window.noteCapture = (event) => {
      const screen = document.querySelector('h1')?.textContent ?? '';
      window.captureLog.push({ screen, event, hint: document.querySelector('.hint')?.textContent ?? '' });
      return screen;
    };
    // Media events do not bubble; a capturing listener on the document still hears them.
    document.addEventListener('playing', (e) => {
      if (e.target.tagName === 'VIDEO') void window.cameraPlays(window.noteCapture('playing'));
    }, true);
    // Observed once the code that set the state has run: the hint is already written.
    new MutationObserver((changes) => {
      for (const c of changes) if (c.target.matches('.viewfinder[data-state="captured"]')) window.noteCapture('captured');
    }).observe(document, { subtree: true, attributes: true, attributeFilter: ['data-state'] });
  `);
  const all = () => page.evaluate(() => (window as unknown as LoggingWindow).captureLog);
  const of = async (screen: string) => (await all()).filter((e) => e.screen === screen);
  return {
    of,
    async photoTaken(screen, timeoutMs = 60_000) {
      await page
        .waitForFunction((s) => (window as unknown as LoggingWindow).captureLog.some((e) => e.screen === s && e.event === 'captured'), screen, { timeout: timeoutMs })
        .catch(async (err: Error) => {
          throw new Error(`"${screen}" took no photo: ${err.message}; the screens went through ${JSON.stringify(await all().catch(() => 'a closed page'))}`);
        });
      return (await of(screen)).find((e) => e.event === 'captured')!;
    },
    stillShown: (screen) =>
      page.evaluate((s) => document.querySelector('h1')?.textContent === s && document.querySelector('.viewfinder[data-state="captured"]') !== null, screen),
  };
}
