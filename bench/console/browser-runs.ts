import type { Browser, BrowserContext, Page } from 'playwright-core';
import { BrowserFirstScreen, type FirstScreenBytes } from './first-screen.ts';
import type { Stack } from './stack.ts';

type Mark = 'row' | 'caseReady' | 'chart';

/**
 * Installed in every document of the measuring context, before the page's own scripts: records,
 * in milliseconds from the navigation's start (performance.now()), the frame after
 * - `row`: the first row of a queue table (`main table tbody tr`) is in the document with a box;
 * - `caseReady`: every document side's image (`figure.doc-side img`, at least SIDES of them) is
 *   complete with a natural width (decoded, drawable);
 * - `chart`: the review metrics' first chart is drawn (uPlot's draw hook marks its figure
 *   `data-drawn`, components/day-chart.tsx).
 * The console and the baseline page use the same markup for these, so one observer serves both.
 * Plain JavaScript text: a function would be serialised as tsx compiled it, with helpers the page
 * does not have.
 */
const MARKS_SCRIPT = (sides: number) => `(() => {
  const sides = ${sides};
  const marks = {};
  window.__bench = marks;
  const seen = new Set();
  const reached = (mark) => {
    seen.add(mark);
    requestAnimationFrame(() => (marks[mark] = performance.now()));
  };
  const check = () => {
    if (!seen.has('row')) {
      const row = document.querySelector('main table tbody tr');
      if (row && row.getBoundingClientRect().height > 0) reached('row');
    }
    if (!seen.has('chart') && document.querySelector('figure.chart[data-drawn="true"] canvas')) reached('chart');
    if (!seen.has('caseReady')) {
      const images = [...document.querySelectorAll('figure.doc-side img')];
      if (images.length >= sides && images.every((i) => i.complete && i.naturalWidth > 0)) reached('caseReady');
    }
  };
  new MutationObserver(check).observe(document, { childList: true, subtree: true, attributes: true, attributeFilter: ['data-drawn'] });
  // Image loads do not bubble, but they pass the document in the capture phase.
  document.addEventListener('load', check, true);
})();`;

/** Signs in once through the console and the development provider's real pages; returns the cookies. */
async function signIn(browser: Browser, stack: Stack): Promise<Awaited<ReturnType<BrowserContext['storageState']>>> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    // No session: the app sends the browser to /auth/login, which sends it to the provider.
    await page.goto(`${stack.consoleUrl}/queue`);
    await page.locator('input[name="login"]').waitFor({ timeout: 60_000 });
    await page.fill('input[name="login"]', stack.login);
    await page.fill('input[name="password"]', stack.password);
    await Promise.all([page.waitForURL(`${stack.consoleUrl}/queue`, { timeout: 60_000 }), page.click('button[type="submit"]')]);
    await page.locator('main table tbody tr').first().waitFor({ timeout: 60_000 });
    return await context.storageState();
  } finally {
    await context.close();
  }
}

export interface Samples {
  console: number[];
  baseline: number[];
}

export interface BrowserFigures {
  /** Cold: the first navigation of a context with an empty HTTP cache (the service and servers already warm from the sign-in). */
  cold: { queue: { console: number; baseline: number }; case: { console: number; baseline: number } };
  queue: Samples;
  case: Samples;
  /** The review metrics over 365 days (`/metrics?days=365`), to its first chart: the console alone (no baseline page draws charts). */
  metrics: { cold: number; runs: number[] };
  firstScreen: FirstScreenBytes & { wire_bytes: number };
  /** With BENCH_TRACE: one more warm navigation of each console screen, what it fetched and when. */
  timelines?: { queue: string[]; case: string[] };
}

/**
 * The runs of one backend in a context carrying the signed-in session: one cold round, then `runs`
 * rounds, each navigation in a fresh page; console and baseline alternate (which goes first
 * changes every round), so background load on a shared machine weighs on both alike.
 */
export async function measure(browser: Browser, stack: Stack, sides: number, runs: number): Promise<BrowserFigures> {
  const session = await signIn(browser, stack);
  const context = await browser.newContext({ storageState: session });
  await context.addInitScript({ content: MARKS_SCRIPT(sides) });
  try {
    const targets = {
      queue: { console: `${stack.consoleUrl}/queue`, baseline: `${stack.baselineUrl}/queue.html` },
      case: { console: `${stack.consoleUrl}/tasks/${stack.taskId}`, baseline: `${stack.baselineUrl}/case.html?task=${encodeURIComponent(stack.taskId)}` },
    };
    const marks = { queue: 'row', case: 'caseReady' } as const;
    let recorder: BrowserFirstScreen | null = null;
    const cold = {
      queue: {
        console: await once(context, targets.queue.console, 'row', (page) => (recorder = new BrowserFirstScreen(page, stack.consoleUrl))),
        baseline: await once(context, targets.queue.baseline, 'row'),
      },
      case: { console: await once(context, targets.case.console, 'caseReady'), baseline: await once(context, targets.case.baseline, 'caseReady') },
    };
    const firstScreen = await recorder!.result();
    const samples = { queue: { console: [] as number[], baseline: [] as number[] }, case: { console: [] as number[], baseline: [] as number[] } };
    for (let i = 0; i < runs; i++) {
      for (const screen of ['queue', 'case'] as const) {
        const order = i % 2 === 0 ? (['console', 'baseline'] as const) : (['baseline', 'console'] as const);
        for (const who of order) samples[screen][who].push(await once(context, targets[screen][who], marks[screen]));
      }
    }
    const metricsUrl = `${stack.consoleUrl}/metrics?days=365`;
    const metrics = { cold: await once(context, metricsUrl, 'chart'), runs: [] as number[] };
    for (let i = 0; i < runs; i++) metrics.runs.push(await once(context, metricsUrl, 'chart'));
    const timelines = process.env.BENCH_TRACE ? { queue: await timeline(context, targets.queue.console, 'row'), case: await timeline(context, targets.case.console, 'caseReady') } : undefined;
    return { cold, queue: samples.queue, case: samples.case, metrics, firstScreen, timelines };
  } finally {
    await context.close();
  }
}

/** One navigation, then the page's own resource timing: each request's start and end (ms from the navigation's start). */
async function timeline(context: BrowserContext, url: string, mark: Mark): Promise<string[]> {
  let lines: string[] = [];
  const at = await once(context, url, mark, undefined, async (page) => {
    lines = await page.evaluate(() =>
      (performance.getEntriesByType('navigation') as PerformanceResourceTiming[])
        .concat(performance.getEntriesByType('resource') as PerformanceResourceTiming[])
        .map((e) => `${Math.round(e.startTime)}-${Math.round(e.responseEnd)} ms ${new URL(e.name).pathname} (${e.initiatorType}, ${e.transferSize} B)`),
    );
  });
  return [...lines, `${at} ms: ${mark}`];
}

/** One navigation in a fresh page: milliseconds from its start to the mark. */
async function once(context: BrowserContext, url: string, mark: Mark, onPage?: (page: Page) => void, after?: (page: Page) => Promise<void>): Promise<number> {
  const page = await context.newPage();
  onPage?.(page);
  try {
    await page.goto(url, { waitUntil: 'commit' });
    // Polled by the page itself (a function evaluated through the DevTools protocol: the console's CSP forbids eval).
    const value = page.evaluate(
      (m) =>
        new Promise<number>((resolve) => {
          const id = setInterval(() => {
            const v = (window as unknown as { __bench?: Record<string, number> }).__bench?.[m];
            if (v) {
              clearInterval(id);
              resolve(v);
            }
          }, 50);
        }),
      mark,
    );
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('no mark after 60 s')), 60_000)));
    try {
      const ms = Math.round((await Promise.race([value, timeout])) * 10) / 10;
      await after?.(page);
      return ms;
    } finally {
      clearTimeout(timer);
    }
  } catch (err) {
    throw new Error(`${url}: the ${mark} mark never came (the page is at ${page.url()}): ${(err as Error).message}`);
  } finally {
    await page.close();
  }
}
