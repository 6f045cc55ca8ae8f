import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { screenAudits } from '../helpers/axe.ts';
import { DESKTOP, PHONE, launchChromium } from '../helpers/browser.ts';
import { serveBuiltDocs, type ServedDocs } from '../helpers/docs-site.ts';
import { ROOT } from '../helpers/processes.ts';

/**
 * The site's templates in Chromium (home, a guide, the API reference, an error page, the search
 * with results), on a phone and a desktop: the axe audit of each, screenshots in artifacts/docs/,
 * every request on the site's own origin and no CSP violation (nothing is fetched elsewhere, and
 * Redoc runs under the reference page's policy). Touches no database.
 */

let docs: ServedDocs;
let browser: Browser;
const shots = screenAudits(join(ROOT, 'artifacts', 'docs'));

before(async () => {
  [docs, browser] = await Promise.all([serveBuiltDocs(), launchChromium()]);
});
after(async () => {
  await browser?.close();
  await docs?.close();
});

/** Opens a page, recording every request and every CSP violation it causes. */
async function open(page: Page, path: string, record: { requests: string[]; violations: string[] }): Promise<void> {
  page.on('request', (r) => record.requests.push(r.url()));
  page.on('console', (m) => {
    if (/Content Security Policy|Refused to/i.test(m.text())) record.violations.push(`${path}: ${m.text()}`);
  });
  await page.goto(`${docs.url}${path}`, { waitUntil: 'networkidle' });
}

/**
 * The code of a page that is cut off at its box's edge: a block (a guide's `pre`, Redoc's JSON
 * samples and code, an operation's path) wider than its box that neither wraps nor scrolls
 * (with overflow auto and focusable, so a keyboard scrolls it too).
 */
function cutOffCode(page: Page): Promise<string[]> {
  return page.evaluate(() =>
    [...document.querySelectorAll<HTMLElement>('pre, .redoc-json, #redoc .http-verb + span')]
      .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
      .filter((e) => !(['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.tabIndex >= 0))
      .map((e) => `${e.tagName.toLowerCase()}.${e.className} ${e.scrollWidth}/${e.clientWidth}: ${(e.textContent ?? '').slice(0, 60)}`),
  );
}

/**
 * The reference's 74 operations repeat one template: its audit covers the page's frame, Redoc's
 * menu, the introduction and the first operations with their request and response panels
 * (auditing all 33,000 elements costs about a minute per viewport and finds nothing more), and its
 * screenshot is the first screen.
 */
const REFERENCE_AUDIT = { fullPage: false, exclude: ['.api-content > div:nth-child(n+8)'] };

const TEMPLATES: [name: string, path: string, ready: string][] = [
  ['home', '/', 'main h1'],
  ['quickstart', '/quickstart', 'main h1'],
  ['guide', '/guides/webhooks', 'main h1'],
  ['reference', '/reference', '.api-content h2'],
  ['error', '/errors/signature_invalid', 'main h1'],
  ['events', '/webhooks/events', 'main h1'],
  ['search', '/search?q=webhook%20signature', '#search-results li'],
];

// The phone at one device pixel per CSS pixel: full-page shots of the long guides stay quick to take and to look at.
for (const [viewportName, viewport] of [['phone', { ...PHONE, deviceScaleFactor: 1 }], ['desktop', DESKTOP]] as const) {
  test(`every template on a ${viewportName}: no serious axe violation, nothing fetched elsewhere, no CSP violation`, async () => {
    const context = await browser.newContext({ ...viewport, locale: 'en-GB' });
    const record = { requests: [] as string[], violations: [] as string[] };
    try {
      for (const [name, path, ready] of TEMPLATES) {
        const page = await context.newPage();
        await open(page, path, record);
        // Redoc renders the reference from the whole OpenAPI document: seconds of CPU, more on a machine
        // running other suites beside this one.
        await page.waitForSelector(ready, { timeout: 60_000 });
        if (viewportName === 'phone') {
          const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
          assert.ok(overflow <= 1, `${path} is no wider than the phone (${overflow} px more)`);
        }
        const blocks = await page.locator('pre, .redoc-json').count();
        assert.ok(name !== 'reference' || blocks > 50, `the reference's samples are rendered (${blocks})`);
        assert.deepEqual(await cutOffCode(page), [], `${path}: code wraps or scrolls, never cut off`);
        await shots.capture(page, name, viewportName, name === 'reference' ? REFERENCE_AUDIT : {});
        await page.close();
      }
    } finally {
      await context.close();
    }
    const origin = new URL(docs.url).origin;
    const elsewhere = record.requests.filter((u) => !u.startsWith(`${origin}/`) && !u.startsWith('data:') && !u.startsWith('blob:'));
    assert.deepEqual(elsewhere, []);
    assert.deepEqual(record.violations, []);
    assert.ok(record.requests.some((u) => /\/assets\/redoc\.standalone-[0-9a-f]+\.js$/.test(u)), 'Redoc came from the site');
  });
}

test('the search finds a section by words from its text, and the header form leads to it', async () => {
  const context = await browser.newContext(DESKTOP);
  try {
    const page = await context.newPage();
    await page.goto(`${docs.url}/guides/sandbox`);
    await page.fill('#site-search', 'resubmission reason face_unclear');
    await Promise.all([page.waitForURL(/\/search\?q=/), page.press('#site-search', 'Enter')]);
    await page.waitForSelector('#search-results li');
    const found = await page.locator('#search-results li a').evaluateAll((links) => links.slice(0, 5).map((a) => a.getAttribute('href')));
    assert.ok(found.some((href) => href?.startsWith('/guides/sandbox')), found.join(' '));
    // Typing refines the results in place.
    await page.fill('#search-q', 'idempotency_key_reused');
    await page.waitForFunction(() => document.querySelector('#search-results li a')?.getAttribute('href') === '/errors/idempotency_key_reused');
    assert.match((await page.textContent('#search-status')) ?? '', /results? for/);
  } finally {
    await context.close();
  }
});

test('no template had a serious or critical accessibility violation', () => {
  const failing = Object.entries(shots.audits).filter(([, v]) => v.length > 0);
  assert.deepEqual(failing, []);
  assert.equal(Object.keys(shots.audits).length, TEMPLATES.length * 2);
});

test("the reference's menu: short operation names, grouped by resource in the order an integrator meets them, the hosted journey's and the console's last", async () => {
  const context = await browser.newContext(DESKTOP);
  try {
    const page = await context.newPage();
    await page.goto(`${docs.url}/reference`, { waitUntil: 'networkidle' });
    await page.waitForSelector('.api-content h2', { timeout: 60_000 });
    // Redoc's menu: an entry per tag (resource) and per operation, named by aria-label.
    const items = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('.menu-content li[data-item-id]')].map((li) => ({ id: li.dataset.itemId ?? '', name: li.getAttribute('aria-label') ?? '' })),
    );
    const named = (pattern: RegExp) => items.filter((i) => pattern.test(i.id)).map((i) => i.name);
    assert.deepEqual(named(/^tag\/[^/]+$/), [
      'Cases', 'Journey links', 'Webhook endpoints', 'Webhook events', 'Journey embedding and appearance', 'Flows', 'Digital identity wallets', 'API keys', 'Usage and contract',
      'Hosted journey', 'Identity wallet (OpenID4VP)',
      'Console: reviews', 'Console: operators', 'Console: support access',
    ]);
    const operations = named(/\/operation\//);
    assert.ok(operations.length >= 70, `${operations.length} operations`);
    assert.deepEqual(operations.slice(0, 3), ['Open a case', 'List cases', 'Get a case']);
    const long = operations.filter((o) => o.length > 40 || /[;:]/.test(o));
    assert.deepEqual(long, [], 'every operation has a short name');
  } finally {
    await context.close();
  }
});
