/**
 * bench:docs — the documentation site's weight and build time. Builds the site the way
 * `npm run docs:build` does (in memory, then written to a temporary folder), and reports:
 *   - the API reference page as a browser loads it, gzip: the page, its stylesheet, its scripts
 *     (Redoc's standalone bundle, the reference and search scripts) and the OpenAPI document
 *     Redoc fetches; target under 1 MB;
 *   - the search index, gzip (fetched by the search page only);
 *   - the build's time, rendering to written files; target under 60 s.
 * Ends with one line of JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { buildDocsSite, writeDocsSite } from '../apps/docs/src/build.ts';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const dir = mkdtempSync(join(tmpdir(), 'idv-bench-docs-'));
const times: number[] = [];
let site = await buildDocsSite();
try {
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    site = await buildDocsSite();
    writeDocsSite(site, join(dir, 'site'));
    times.push(performance.now() - started);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const gz = (path: string) => {
  const f = site.files.get(path);
  if (!f) throw new Error(`${path} is not in the built site`);
  return { raw: f.body.length, gzip: gzipSync(f.body, { level: 9 }).length };
};
const page = gz(site.reference.page);
const html = site.files.get(site.reference.page)!.body.toString('utf8');
const css = /href="(\/assets\/site-[0-9a-f]+\.css)"/.exec(html)![1];
const parts = [
  ['page', site.reference.page],
  ['stylesheet', css],
  ...site.reference.scripts.map((s) => ['script', s]),
  ['OpenAPI document', '/openapi.json'],
].map(([what, path]) => ({ what, path, ...gz(path) }));
const referenceGzip = parts.reduce((n, p) => n + p.gzip, 0);
const index = gz(site.searchIndex);
const median = [...times].sort((a, b) => a - b)[Math.floor(times.length / 2)];

console.log('API reference page, as loaded:');
for (const p of parts) console.log(`  ${p.what.padEnd(17)} ${p.path.padEnd(46)} ${String(p.raw).padStart(9)} B  gzip ${String(p.gzip).padStart(8)} B`);
console.log(`  total gzip ${(referenceGzip / 1024).toFixed(1)} KiB (target < 1 MB)`);
console.log(`search index ${site.searchIndex}: ${index.raw} B, gzip ${index.gzip} B (${(index.gzip / 1024).toFixed(1)} KiB)`);
console.log(`build: ${site.files.size} files, median ${(median / 1000).toFixed(2)} s over ${runs} runs (${times.map((t) => (t / 1000).toFixed(2)).join(', ')} s; target < 60 s)`);
console.log(
  JSON.stringify({
    bench: 'docs',
    reference_page_gzip_bytes: referenceGzip,
    reference_page_html_gzip_bytes: page.gzip,
    search_index_gzip_bytes: index.gzip,
    build_ms_median: Math.round(median),
    build_runs: runs,
    files: site.files.size,
    targets_met: referenceGzip < 1_000_000 && median < 60_000,
  }),
);
