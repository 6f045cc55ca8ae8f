import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, normalize, sep } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { findAppearanceLogo, findEmbedding } from '@idv/db';
import { buildJourneyAssets, createJourneyServer } from '@idv/journey';
import { IdvClient } from '@idv/sdk';
import en from '../../apps/journey/src/app/messages/en.ts';
import { startTestApp, type TestApp } from '../helpers/app.ts';
import { launchChromium } from '../helpers/browser.ts';
import { packAndInstall, typeErrors, type InstalledPackage } from '../helpers/packed.ts';
import { ROOT, freePort } from '../helpers/processes.ts';

/**
 * @idv/embed as an integrator gets it: built, packed with npm, installed from the tarball into an
 * empty project outside the repository, and used for real: examples/embed-page.html (the ES
 * module through an import map) and a page with the classic script (embed.js), both served with
 * the installed files from an origin of their own, embed a real journey of the service (API and
 * journey server on real ports) in Chromium and receive its typed events. One service, one browser.
 */
let t: TestApp;
let journeyServer: Server;
let pageServer: Server;
let browser: Browser;
let scratch: string;
let pkg: InstalledPackage;
let idv: IdvClient;
/** The integrator's page origin: localhost, another origin than the journey's 127.0.0.1. */
let pageOrigin: string;
/** The typed page scripts compiled against the installed declarations, started as soon as they are installed. */
let compiling: ReturnType<typeof typeErrors>;

const CLASSIC_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Classic script</title></head>
<body><div id="journey"></div>
<script src="/node_modules/@idv/embed/embed.js"></script>
<script>
window.events = [];
fetch('/session', { method: 'POST' }).then((r) => r.text()).then((url) => {
  IdvJourney.mount({ container: document.getElementById('journey'), url, onEvent: (e) => window.events.push(e) });
});
</script></body></html>`;

/** A TypeScript page script compiles against the published declarations (DOM types); a wrong event does not. */
const TYPED_PAGE = `
import { mountJourney, JOURNEY_STEPS, type JourneyEvent, type JourneyStep, type EndReason } from '@idv/embed';
const seen: JourneyStep[] = [];
const mounted = mountJourney({
  container: document.body,
  url: 'https://journey.example.com/#' + 'a'.repeat(43),
  onEvent: (e: JourneyEvent) => {
    if (e.type === 'step') seen.push(e.step);
    if (e.type === 'ended') { const why: EndReason = e.reason; void why; }
    if (e.type === 'resize') { const h: number = e.height; void h; }
  },
  renewUrl: async () => 'https://journey.example.com/#' + 'b'.repeat(43),
});
mounted.iframe.title = String(JOURNEY_STEPS.length);
mounted.destroy();
`;
const MISTYPED_PAGE = `
import { mountJourney } from '@idv/embed';
mountJourney({ container: document.body, url: 'x', onEvent: (e) => { if (e.type === 'step') { const r: 'declined' = e.step; void r; } } });
`;

const sessionFor = async (caseId: string) => (await idv.createSession({ case_id: caseId, locale: 'en' })).url;

before(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'idv-embed-consumer-'));
  const journeyPort = await freePort();
  const journeyUrl = `http://127.0.0.1:${journeyPort}`;
  // The browser and the bundles are made while the package builds and installs.
  let assets;
  [t, assets, browser, pkg] = await Promise.all([
    startTestApp({ JOURNEY_URL: journeyUrl }),
    buildJourneyAssets(),
    launchChromium(),
    packAndInstall('embed', scratch).then(async (installed) => {
      await writeFile(join(installed.project, 'typed.ts'), TYPED_PAGE);
      await writeFile(join(installed.project, 'mistyped.ts'), MISTYPED_PAGE);
      compiling = typeErrors(installed.project, ['typed.ts', 'mistyped.ts'], 'dom');
      compiling.catch(() => {}); // awaited by its test
      return installed;
    }),
  ]);
  const apiBase = await t.app.listen({ port: 0, host: '127.0.0.1' });
  journeyServer = createJourneyServer({
    assets,
    apiBaseUrl: apiBase,
    embeddingOrigins: async (clientId, environment) => (await findEmbedding(t.database.db, { clientId, environment }))?.origins ?? [],
    logo: (clientId, environment, sha256) => findAppearanceLogo(t.database.db, { clientId, environment }, sha256),
  });
  await new Promise<void>((r) => journeyServer.listen(journeyPort, '127.0.0.1', r));
  idv = new IdvClient({ baseUrl: apiBase, apiKey: t.demoKey.secret, signingSecret: t.demoKey.signingSecret, maxAttempts: 1 });

  // The integrator's site: the example page, the classic page, the installed package's files
  // (nothing else of the project), and the server side that opens a case and its session.
  const modules = join(pkg.project, 'node_modules');
  const examplePage = await readFile(join(ROOT, 'examples', 'embed-page.html'), 'utf8');
  pageServer = createServer(async (req, res) => {
    const path = decodeURIComponent((req.url ?? '/').split('?')[0]);
    const send = (status: number, type: string, body: string | Buffer) => res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
    if (path === '/') return send(200, 'text/html; charset=utf-8', examplePage);
    if (path === '/classic') return send(200, 'text/html; charset=utf-8', CLASSIC_PAGE);
    if (path === '/session' && req.method === 'POST') {
      const created = await idv.createCase({ flow_name: 'standard', country: 'FR', external_ref: 'embed-page' });
      return send(200, 'text/plain', await sessionFor(created.id));
    }
    const file = normalize(join(modules, path.replace(/^\/node_modules\//, '')));
    if (path.startsWith('/node_modules/@idv/embed/') && file.startsWith(modules + sep) && file.endsWith('.js')) {
      return readFile(file).then(
        (body) => send(200, 'text/javascript; charset=utf-8', body),
        () => send(404, 'text/plain', 'not found'),
      );
    }
    return send(404, 'text/plain', 'not found');
  });
  await new Promise<void>((r) => pageServer.listen(0, '127.0.0.1', r));
  pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
  await idv.updateJourneyEmbedding({ origins: [pageOrigin] });
});

after(async () => {
  await browser?.close();
  if (pageServer) await new Promise((r) => pageServer.close(r));
  if (journeyServer) await new Promise((r) => journeyServer.close(r));
  await t?.close();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** Opens a page of the integrator's site and waits for the journey's consent screen in its frame. */
async function openEmbedded(path: string): Promise<Page> {
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  await page.goto(pageOrigin + path);
  await page.frameLocator('iframe').locator('h1').filter({ hasText: en.consent_title }).waitFor({ timeout: 15_000 }).catch((err) => {
    throw new Error(`${err}\npage errors: ${errors.join('\n')}`);
  });
  return page;
}

describe('the packed embed package', () => {
  test('installs from its tarball with its ES module, classic script and declarations, and nothing else', async () => {
    const manifest = JSON.parse(await readFile(join(pkg.installed, 'package.json'), 'utf8'));
    assert.equal(manifest.private, undefined);
    assert.equal(manifest.license, 'MIT');
    assert.equal(manifest.dependencies, undefined, 'no runtime dependency');
    assert.deepEqual((await readdir(pkg.installed)).sort(), ['LICENSE', 'README.md', 'embed.js', 'index.d.ts', 'index.js', 'package.json']);
    assert.deepEqual(await readdir(join(pkg.project, 'node_modules', '@idv')), ['embed'], 'nothing of the workspace came along');
    const types = await readFile(join(pkg.installed, 'index.d.ts'), 'utf8');
    assert.doesNotMatch(types, /from\s+['"]@idv\//, 'the declarations stand alone');
    assert.match(types, /export declare function mountJourney/);

    const compiled = await compiling;
    assert.deepEqual(compiled.errors, ['mistyped.ts TS2322'], compiled.output);
  });

  test('the example page embeds a real journey through the installed ES module and lists its typed events', async () => {
    const page = await openEmbedded('/');
    try {
      const frame = page.frameLocator('iframe');
      await frame.getByRole('button', { name: en.consent_accept }).click();
      await frame.locator('h1').filter({ hasText: en.applicant_title }).waitFor();
      await frame.getByRole('button', { name: en.help }).click();
      await frame.locator('h1').filter({ hasText: en.help_title }).waitFor();
      await frame.getByRole('button', { name: en.help_later }).click();
      await page.locator('#events li', { hasText: 'ended later' }).waitFor();
      assert.deepEqual(await page.locator('#events li').allTextContents(), ['ready', 'step consent', 'step applicant', 'step help', 'ended later']);
      assert.equal(await page.locator('#status').textContent(), 'You can come back to finish later.');
      const height = await page.locator('iframe').evaluate((el) => Number.parseInt((el as HTMLIFrameElement).style.height, 10));
      assert.ok(height > 0, 'the frame took the height the journey reported (resize)');
    } finally {
      await page.close();
    }
  });

  test('the classic script of the package (embed.js) mounts the journey and hands the same events', async () => {
    const page = await openEmbedded('/classic');
    try {
      await page.waitForFunction(() => (window as unknown as { events: { type: string }[] }).events.some((e) => e.type === 'step'));
      const events = (await page.evaluate(() => (window as unknown as { events: { type: string }[] }).events)).filter((e) => e.type !== 'resize');
      assert.deepEqual(events, [{ type: 'ready' }, { type: 'step', step: 'consent' }]);
    } finally {
      await page.close();
    }
  });
});
