import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { findAppearanceLogo, findEmbedding } from '@idv/db';
import { buildJourneyAssets, createJourneyServer, type JourneyAssets } from '@idv/journey';
import { startJourneyApp, type JourneyTestApp } from '../helpers/journey.ts';

/** The journey's own HTTP server (pages, assets, the integrator script) with its security headers. */

let t: JourneyTestApp;
let assets: JourneyAssets;
let server: Server;
let base: string;
const API = 'http://api.test';

before(async () => {
  t = await startJourneyApp();
  assets = await buildJourneyAssets();
  server = createJourneyServer({
    assets,
    apiBaseUrl: API,
    embeddingOrigins: async (clientId, environment) => (await findEmbedding(t.database.db, { clientId, environment }))?.origins ?? [],
    logo: (clientId, environment, sha256) => findAppearanceLogo(t.database.db, { clientId, environment }, sha256),
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise((r) => server.close(r));
  await t.close();
});

const cspOf = (res: Response) => Object.fromEntries((res.headers.get('content-security-policy') ?? '').split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]));

describe('journey pages', () => {
  test('the journey page: never framed, scripts only from itself (WebAssembly compiled, no eval), calls only to the API and itself, no referrer', async () => {
    const res = await fetch(`${base}/`);
    assert.equal(res.status, 200);
    assert.match(res.headers.get('content-type')!, /text\/html/);
    const csp = cspOf(res);
    assert.equal(csp['frame-ancestors'], "'none'");
    // The face step compiles tfjs's WebAssembly ('wasm-unsafe-eval' allows that and no JavaScript eval)
    // and fetches it and the detector's weights from the journey itself.
    assert.equal(csp['script-src'], "'self' 'wasm-unsafe-eval'");
    assert.equal(csp['default-src'], "'none'");
    assert.equal(csp['connect-src'], `'self' ${API}`);
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    assert.match(res.headers.get('permissions-policy')!, /camera=\(self\)/);
    const html = await res.text();
    assert.match(html, /data-mode="page"/);
    assert.ok(html.includes(`src="${assets.app}"`));
    assert.equal(/<script>|\son[a-z]+=/.test(html), false, 'no inline script or handler');
    assert.equal(html.includes('data-pseudo-locale'), false, 'no pseudo-locale unless configured');
  });

  test('the pseudo-locale of the layout tests is offered only by a server started with it (JOURNEY_PSEUDO_LOCALE)', async () => {
    const pseudo = createJourneyServer({ assets, apiBaseUrl: API, embeddingOrigins: async () => [], logo: async () => null, pseudoLocale: true });
    await new Promise<void>((r) => pseudo.listen(0, '127.0.0.1', r));
    try {
      const html = await (await fetch(`http://127.0.0.1:${(pseudo.address() as AddressInfo).port}/?locale=en-XA`)).text();
      assert.match(html, /<html [^>]*data-pseudo-locale="on"/);
    } finally {
      await new Promise((r) => pseudo.close(r));
    }
  });

  test('a handoff short link /p/<code> is the journey page itself (never framed); anything else under /p/ is not found', async () => {
    const res = await fetch(`${base}/p/K7M2Q-X9RTB`);
    assert.equal(res.status, 200);
    assert.equal(cspOf(res)['frame-ancestors'], "'none'");
    assert.equal(res.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const html = await res.text();
    assert.match(html, /data-mode="page"/);
    assert.ok(html.includes(`src="${assets.app}"`));
    for (const path of ['/p/', '/p/a/b', `/p/${'A'.repeat(33)}`, '/p/%3Cscript%3E']) assert.equal((await fetch(base + path)).status, 404, path);
  });

  test('/embed (the loader) may be framed by any page; a client frame gets frame-ancestors from that client only', async () => {
    const loader = await fetch(`${base}/embed`);
    assert.equal(cspOf(loader)['frame-ancestors'], '*');
    assert.ok((await loader.text()).includes(assets.loader));

    const framePath = `/embed/${t.demo.client_id}/sandbox`;
    let res = await fetch(base + framePath);
    assert.equal(cspOf(res)['frame-ancestors'], "'none'", 'no origin set: none');
    assert.equal(res.headers.get('x-frame-options'), 'DENY');
    const set = await t.request('POST', '/v1/journey-embedding', { signed: true, body: { origins: ['https://shop.example.com', 'http://127.0.0.1:5173'] } });
    assert.equal(set.statusCode, 200);
    res = await fetch(base + framePath);
    assert.equal(cspOf(res)['frame-ancestors'], 'https://shop.example.com http://127.0.0.1:5173');
    assert.equal(res.headers.get('x-frame-options'), null);
    assert.match(await res.text(), /data-mode="embed"/);
    assert.equal(cspOf(await fetch(`${base}/embed/${t.demo.client_id}/prod`))['frame-ancestors'], "'none'", 'per environment');
    assert.equal((await fetch(`${base}/embed/cli_nope/sandbox`)).status, 404);
  });

  test('assets: compressed as the browser accepts, cached for good; unknown paths 404; only GET and HEAD', async () => {
    const raw = assets.files.get(assets.app)!.body;
    const br = await fetch(base + assets.app, { headers: { 'accept-encoding': 'br' } });
    assert.equal(br.headers.get('content-encoding'), 'br');
    assert.equal(br.headers.get('cache-control'), 'public, max-age=31536000, immutable');
    assert.match(br.headers.get('content-type')!, /text\/javascript/);
    // fetch decodes br itself; compare with the source bytes.
    assert.deepEqual(Buffer.from(await br.arrayBuffer()), raw);
    const asset = assets.files.get(assets.app)!;
    assert.deepEqual(brotliDecompressSync(asset.br), raw);
    assert.deepEqual(gunzipSync(asset.gzip), raw);
    const script = await fetch(`${base}/embed.js`);
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('cross-origin-resource-policy'), 'cross-origin');
    assert.match(await script.text(), /IdvJourney/);
    assert.equal((await fetch(`${base}/assets/nope.js`)).status, 404);
    assert.equal((await fetch(`${base}/admin`)).status, 404);
    assert.equal((await fetch(`${base}/`, { method: 'POST' })).status, 405);
    const head = await fetch(`${base}/`, { method: 'HEAD' });
    assert.equal(head.status, 200);
  });

  test('the first screen loads under 100 KB of compressed JavaScript', () => {
    const firstScreen = [assets.app, ...assets.appImports];
    // The message file of one language is loaded too: count the largest chunk not already counted.
    const others = [...assets.files.values()].filter((a) => a.path.endsWith('.js') && !firstScreen.includes(a.path) && !assets.faceStep.includes(a.path) && a.path.startsWith('/assets/c-'));
    const largestOther = Math.max(...others.map((a) => a.gzip.length));
    const total = firstScreen.reduce((n, p) => n + assets.files.get(p)!.gzip.length, 0) + largestOther;
    assert.ok(total < 100 * 1024, `first screen JavaScript is ${total} bytes gzip`);
  });

  test('the face step downloads under 600 KB compressed, from the journey itself, cached for good', async () => {
    const wasm = assets.faceStep.filter((p) => p.endsWith('.wasm'));
    const rest = assets.faceStep.filter((p) => !p.endsWith('.wasm'));
    assert.equal(wasm.length, 3, 'the three builds of tfjs\'s WebAssembly backend (plain, SIMD, threaded)');
    assert.ok(rest.some((p) => p.includes('tiny_face_detector')) && rest.some((p) => p.includes('face_landmark_68_tiny')), 'the two networks\' weights');
    // The browser fetches one WebAssembly build: count the largest.
    const total = rest.reduce((n, p) => n + assets.files.get(p)!.gzip.length, 0) + Math.max(...wasm.map((p) => assets.files.get(p)!.gzip.length));
    assert.ok(total < 600 * 1024, `the face step is ${total} bytes gzip`);
    for (const path of [wasm[0], rest.find((p) => p.endsWith('.bin'))!]) {
      const res = await fetch(base + path, { headers: { 'accept-encoding': 'gzip' } });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      assert.equal(res.headers.get('content-type'), path.endsWith('.wasm') ? 'application/wasm' : 'application/octet-stream', 'instantiateStreaming needs application/wasm');
      assert.deepEqual(Buffer.from(await res.arrayBuffer()), assets.files.get(path)!.body);
    }
    assert.equal(assets.faceStep.some((p) => [assets.app, ...assets.appImports].includes(p)), false, 'nothing of it on the first screen');
  });
});
