// bench:journey — what the person's phone downloads before the first screen of the journey, and
// how long that first screen takes on a poor connection: Chromium's network emulation (CDP
// Network.emulateNetworkConditions) at 1.6 Mbps down, 750 kbps up, 150 ms latency, with a cold
// cache each run. The service (API on an in-memory PGlite, journey server) runs in this process
// over real HTTP; the browser is Debian's Chromium driven by playwright-core. Then what the
// handoff screen (a computer without a camera shows a QR code) adds, and that none of it is in
// the first screen. Then the automatic capture (bench/journey-autocapture.ts): the fixtures'
// documents and faces played through the fake camera, and what the face step downloads.
import type { AddressInfo } from 'node:net';
import { createServer, type Server } from 'node:http';
import { chromium } from 'playwright-core';
import { build } from '@idv/api';
import { findAppearanceLogo, findEmbedding, openDatabase } from '@idv/db';
import { buildJourneyAssets, createJourneyServer } from '@idv/journey';
import { IdvClient } from '@idv/sdk';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import { loadConfig } from '@idv/config';
import { bootstrapDemoClient } from '../apps/api/src/bootstrap.ts';
import { journeyToDocumentPhoto } from '../tests/helpers/journey.ts';
import { measureAutoCapture } from './journey-autocapture.ts';

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const NETWORK = { downKbps: 1600, upKbps: 750, latencyMs: 150 };
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as AddressInfo;
      s.close(() => resolve(port));
    });
  });
const listen = (server: Server, port: number) => new Promise<void>((r) => server.listen(port, '127.0.0.1', () => r()));

const [apiPort, journeyPort] = [await freePort(), await freePort()];
const apiBase = `http://127.0.0.1:${apiPort}`;
const journeyUrl = `http://127.0.0.1:${journeyPort}`;
const database = await openDatabase({ kind: 'pglite', memory: true });
// The benchmark measures the service, not its rate limiter (docs/rate-limits.md): limits off.
const config = loadConfig({ LOG_LEVEL: 'silent', RATE_LIMIT_ENABLED: 'false', MASTER_KEY: generateMasterKey(), PORT: String(apiPort), API_BASE_URL: apiBase, JOURNEY_URL: journeyUrl, DATA_DIR: '.tmp/bench-journey' });
const keyring = new MasterKeyring(config.masterKey!);
const demo = (await bootstrapDemoClient(database.db, keyring, new Date()))!;
const { app } = await build({ config, db: database.db, keyring, logger: false });
await app.listen({ port: apiPort, host: '127.0.0.1' });
const assets = await buildJourneyAssets();
const journey = createJourneyServer({
  assets,
  apiBaseUrl: apiBase,
  embeddingOrigins: async (clientId, environment) => (await findEmbedding(database.db, { clientId, environment }))?.origins ?? [],
  logo: (clientId, environment, sha256) => findAppearanceLogo(database.db, { clientId, environment }, sha256),
});
await listen(journey, journeyPort);
const client = new IdvClient({ baseUrl: apiBase, apiKey: demo.api_key.secret, signingSecret: demo.api_key.signing_secret });

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
});

interface Run {
  firstRenderMs: number;
  fcpMs: number | null;
  scripts: string[];
  styles: string[];
}

/** One cold load of a fresh session link: until the consent screen's title is in the page. */
async function run(): Promise<Run> {
  const { id } = await client.createCase({ flow_name: 'standard', country: 'FR' });
  const { url } = await client.createSession({ case_id: id, locale: 'en' });
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true });
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: NETWORK.latencyMs,
    downloadThroughput: (NETWORK.downKbps * 1000) / 8,
    uploadThroughput: (NETWORK.upKbps * 1000) / 8,
  });
  // The moment the first real screen (a heading) is in the document, from the navigation's start.
  await page.addInitScript(() => {
    new MutationObserver((_, observer) => {
      if (document.querySelector('main h1')) {
        (window as unknown as { __firstRender: number }).__firstRender = performance.now();
        observer.disconnect();
      }
    }).observe(document, { childList: true, subtree: true });
  });
  await page.goto(url);
  await page.waitForFunction(() => (window as unknown as { __firstRender?: number }).__firstRender !== undefined, undefined, { timeout: 60_000 });
  // The paint entry comes a frame after the DOM change; headless Chromium may not report one.
  await page.waitForFunction(() => performance.getEntriesByName('first-contentful-paint').length > 0, undefined, { timeout: 5000 }).catch(() => {});
  // What the first screen needed: files whose download started before it was in the page (the
  // screens fetched afterwards in the background are not part of it).
  const measured = await page.evaluate(() => {
    const firstRender = (window as unknown as { __firstRender: number }).__firstRender;
    // (No named inner function here: tsx would wrap it in a helper the page does not have.)
    const before = (performance.getEntriesByType('resource') as PerformanceResourceTiming[])
      .filter((e) => e.startTime < firstRender)
      .map((e) => new URL(e.name).pathname);
    return {
      firstRender,
      fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? null,
      scripts: before.filter((p) => p.endsWith('.js')),
      styles: before.filter((p) => p.endsWith('.css')),
    };
  });
  await context.close();
  return { firstRenderMs: measured.firstRender, fcpMs: measured.fcp, scripts: measured.scripts, styles: measured.styles };
}

/**
 * The scripts a device has loaded once the journey stands at the document photo, through the
 * journey's own routes up to there: a phone (its camera screen), or a computer, which this
 * headless Chromium without a camera turns into the handoff screen (QR code). What the computer
 * loads beyond the phone is what the handoff screen adds.
 */
async function scriptsAtDocumentPhoto(device: 'phone' | 'computer'): Promise<string[]> {
  const { id } = await client.createCase({ flow_name: 'standard', country: 'FR' });
  const { url } = await client.createSession({ case_id: id, locale: 'en' });
  await journeyToDocumentPhoto(apiBase, new URL(url).hash.slice(1));
  const context = await browser.newContext(
    device === 'phone' ? { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true } : { viewport: { width: 1440, height: 900 } },
  );
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector(device === 'phone' ? 'main .viewfinder' : 'main svg.qr', { state: 'attached', timeout: 60_000 });
  await page.waitForLoadState('networkidle');
  const scripts = await page.evaluate(() => (performance.getEntriesByType('resource') as PerformanceResourceTiming[]).map((e) => new URL(e.name).pathname));
  await context.close();
  return scripts.filter((p) => p.endsWith('.js'));
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const r = (x: number) => Math.round(x);
  return { median: r(s[Math.floor(s.length / 2)]), min: r(s[0]), max: r(s[s.length - 1]) };
};

/** The first screen: what it downloads and how long it takes, cold, on the emulated network. */
async function measureFirstScreen(): Promise<Record<string, unknown>> {
  await run(); // warm-up (JIT of the service, not the browser cache: each run has its own context)
  const runs: Run[] = [];
  for (let i = 0; i < RUNS; i++) runs.push(await run());
  const firstScreenScripts = [...new Set(runs[0].scripts)];
  const sizes = (paths: string[]) =>
    paths.reduce(
      (acc, p) => {
        const a = assets.files.get(p);
        if (!a) throw new Error(`the page loaded ${p}, which is not a built asset`);
        return { raw: acc.raw + a.body.length, gzip: acc.gzip + a.gzip.length, brotli: acc.brotli + a.br.length };
      },
      { raw: 0, gzip: 0, brotli: 0 },
    );
  const js = sizes(firstScreenScripts);
  const css = sizes([...new Set(runs[0].styles)]);
  const atPhoto = new Set(await scriptsAtDocumentPhoto('phone'));
  const handoffScripts = [...new Set(await scriptsAtDocumentPhoto('computer'))].filter((p) => !atPhoto.has(p));
  const handoff = sizes(handoffScripts);
  const handoffInFirstScreen = handoffScripts.filter((p) => firstScreenScripts.includes(p));
  const firstRender = stats(runs.map((r) => r.firstRenderMs));
  const fcpValues = runs.map((r) => r.fcpMs).filter((x): x is number => x !== null);
  console.log(`first screen JavaScript: ${firstScreenScripts.length} files, ${js.raw} B raw, ${js.gzip} B gzip, ${js.brotli} B brotli (${firstScreenScripts.join(', ')})`);
  console.log(`first screen CSS: ${css.raw} B raw, ${css.gzip} B gzip, ${css.brotli} B brotli`);
  console.log(
    `handoff screen (a computer without a camera, beyond what a phone loads at the same step): ${handoffScripts.length} files, ${handoff.raw} B raw, ${handoff.gzip} B gzip, ${handoff.brotli} B brotli (${handoffScripts.join(', ')}); in the first screen: ${handoffInFirstScreen.length ? handoffInFirstScreen.join(', ') : 'none'}`,
  );
  console.log(`network: ${NETWORK.downKbps} kbps down, ${NETWORK.upKbps} kbps up, ${NETWORK.latencyMs} ms latency; cold cache; ${RUNS} runs`);
  console.log(`time to first screen (consent title in the page, from navigation start): median ${firstRender.median} ms (min ${firstRender.min}, max ${firstRender.max})`);
  if (fcpValues.length) console.log(`first contentful paint: median ${stats(fcpValues).median} ms`);
  return {
    first_screen_js: { files: firstScreenScripts.length, raw_bytes: js.raw, gzip_bytes: js.gzip, brotli_bytes: js.brotli },
    first_screen_css: { raw_bytes: css.raw, gzip_bytes: css.gzip, brotli_bytes: css.brotli },
    handoff_screen_js: { files: handoffScripts.length, raw_bytes: handoff.raw, gzip_bytes: handoff.gzip, brotli_bytes: handoff.brotli, in_first_screen: handoffInFirstScreen.length },
    network: { down_kbps: NETWORK.downKbps, up_kbps: NETWORK.upKbps, latency_ms: NETWORK.latencyMs },
    runs: RUNS,
    first_render_ms: firstRender,
    fcp_ms: fcpValues.length ? stats(fcpValues) : null,
  };
}

try {
  // BENCH_AUTOCAPTURE_ONLY=1: the automatic capture section alone (its thresholds are tuned with it).
  const firstScreen = process.env.BENCH_AUTOCAPTURE_ONLY ? {} : await measureFirstScreen();
  console.log('automatic capture: fixtures played through the fake camera into the capture screens');
  const autocapture = await measureAutoCapture({ apiBase, client, assets });
  console.log(JSON.stringify({ bench: 'journey', ...firstScreen, autocapture }));
} finally {
  await browser.close();
  await new Promise((r) => journey.close(r));
  await app.close();
  await database.close();
}
