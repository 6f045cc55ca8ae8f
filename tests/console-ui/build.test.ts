import { test } from 'node:test';
import assert from 'node:assert/strict';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import Fastify from 'fastify';
import { buildConsole, firstScreenGzipBytes, loadConsoleAssets, writeConsoleAssets } from '../../apps/console/src/build.ts';
import { loadAssets } from '../../apps/console/src/load-assets.ts';
import { withTempDir } from '../helpers/temp-dir.ts';
import { installAssets } from '../../apps/console/src/server/assets.ts';

/** The console's web app as the console server serves it: built in memory, hashed, no inline code. */
test('loadConsoleAssets builds the app: hashed immutable assets, an index.html without inline script or style', async () => {
  const assets = await loadConsoleAssets();
  const index = assets.get('/index.html');
  assert.ok(index, 'index.html is built');
  assert.equal(index.immutable, false);
  assert.match(index.contentType, /^text\/html/);
  const html = index.body.toString('utf8');
  // Every script has a src (none inline), no style element, no style or on* attribute: the CSP allows none.
  const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
  assert.ok(scripts.length >= 1);
  for (const [, attrs, body] of scripts) {
    assert.match(attrs, /\bsrc="\/assets\/app-[A-Z0-9]+\.js"/);
    assert.equal(body.trim(), '');
  }
  assert.doesNotMatch(html, /<style\b/);
  assert.doesNotMatch(html, /\sstyle=/);
  assert.doesNotMatch(html, /\son[a-z]+=/);
  // What index.html names exists, with a hashed name, served as immutable.
  for (const [, ref] of html.matchAll(/(?:src|href)="(?!data:)([^"]+)"/g)) {
    const a = assets.get(ref);
    assert.ok(a, `${ref} is built`);
    assert.equal(a.immutable, true);
    assert.match(ref, /^\/assets\/[a-z]+-[A-Z0-9]{8}\.(js|css)$/);
  }
  for (const [path, a] of assets) {
    if (path === '/index.html') continue;
    assert.match(path, /^\/assets\/[a-z]+-[A-Z0-9]{8}\.(js|css)$/);
    assert.match(a.contentType, path.endsWith('.js') ? /^text\/javascript/ : /^text\/css/);
  }
});

test('the first screen stays small: the case screen and the other screens are chunks of their own', async () => {
  const report = await buildConsole();
  const sizes = firstScreenGzipBytes(report);
  console.log(`console first screen, gzip: JS ${sizes.js} B, CSS ${sizes.css} B`);
  // Preact (React's API through preact/compat), the router and the query cache are ~65 kB gzip together; the screens reached later are not in it.
  assert.ok(sizes.js < 160_000, `first-screen JS ${sizes.js} B gzip`);
  assert.ok(sizes.css < 10_000);
  const lazy = [...report.assets.keys()].filter((p) => p.endsWith('.js') && !report.firstScreen.includes(p));
  assert.ok(lazy.length >= 3, 'search, support, case screen and record are fetched when reached');
  const firstText = report.firstScreen.map((p) => report.assets.get(p)!.body.toString('utf8')).join('\n');
  // Calls only the case screen makes are not in the first screen's code, but in a chunk of their own.
  for (const route of ['/v1/reviews/{task_id}/corrections', '/v1/reviews/{task_id}/decision', '/v1/cases/{case_id}/journey-link']) {
    assert.ok(!firstText.includes(route), `${route} is not in the first screen`);
    assert.ok(lazy.some((p) => report.assets.get(p)!.body.toString('utf8').includes(route)), `${route} is in a lazy chunk`);
  }
});

test('assets go out compressed at build: brotli or gzip from Accept-Encoding, Vary set; /favicon.ico is not the app', async () => {
  const assets = await loadConsoleAssets();
  const app = Fastify();
  installAssets(app, assets, (_req, reply) => reply.code(404).send({ error: 'route_not_found' }));
  await app.ready();
  try {
    const html = assets.get('/index.html')!.body.toString('utf8');
    const entry = html.match(/src="(\/assets\/app-[A-Z0-9]+\.js)"/)![1];
    const original = assets.get(entry)!.body;
    const br = await app.inject({ url: entry, headers: { 'accept-encoding': 'gzip, deflate, br, zstd' } });
    assert.equal(br.headers['content-encoding'], 'br');
    assert.equal(br.headers.vary, 'Accept-Encoding');
    assert.ok(br.rawPayload.length < original.length / 2, `brotli ${br.rawPayload.length} B of ${original.length} B`);
    assert.deepEqual(brotliDecompressSync(br.rawPayload), original);
    const gz = await app.inject({ url: entry, headers: { 'accept-encoding': 'gzip' } });
    assert.equal(gz.headers['content-encoding'], 'gzip');
    assert.deepEqual(gunzipSync(gz.rawPayload), original);
    // A refused encoding is not sent; without Accept-Encoding the bytes go as they are.
    const refused = await app.inject({ url: entry, headers: { 'accept-encoding': 'br;q=0, gzip' } });
    assert.equal(refused.headers['content-encoding'], 'gzip');
    const plain = await app.inject({ url: entry, headers: { 'accept-encoding': '' } });
    assert.equal(plain.headers['content-encoding'], undefined);
    assert.deepEqual(plain.rawPayload, original);
    // The browser needs no icon request (index.html carries its icon inline), and one asked for is a 404, not the app.
    assert.match(html, /<link rel="icon" href="data:image\/svg\+xml,%3Csvg%20xmlns%3D%22http%3A%2F%2Fwww\.w3\.org%2F2000%2Fsvg%22[^"]*%3C%2Fsvg%3E">/);
    assert.equal((await app.inject({ url: '/favicon.ico' })).statusCode, 404);
    assert.match((await app.inject({ url: '/tasks/rt_123' })).body, /<div id="root">/);
  } finally {
    await app.close();
  }
});

test('npm run build:console writes the build that loadAssets() serves, byte for byte with its encodings', () =>
  withTempDir('idv-console-dist-', async (dir) => {
    const built = await loadConsoleAssets();
    writeConsoleAssets(built, dir);
    const read = await loadAssets(dir);
    assert.deepEqual([...read.keys()].sort(), [...built.keys()].sort());
    for (const [path, a] of built) assert.deepEqual(read.get(path), a, path);
  }));
