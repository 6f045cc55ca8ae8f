/**
 * `npm run docs:det`: draws docs/figures/face-det.png, the face match's DET curve (false non-match
 * rate against false match rate, both on log scales), from docs/figures/face-det.json, which
 * `FACES_DET_OUT=docs/figures/face-det.json npm run bench:checks` (section faces_lfw) writes.
 * uPlot draws it in Debian's Chromium, driven by playwright-core, as the console's charts are.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

interface Point { fmr: number; fnmr: number }
interface DetFile {
  measured: string;
  genuine_pairs: number;
  impostor_pairs: number;
  floor: number;
  every_pair: Point[];
  quality_floor: Point[];
  /** The same model judged by the distance alone (before the quality-corrected score), above the floor. */
  distance_alone?: { label: string; points: Point[] };
  /** The engine before this model (face-api + faceres fusion), on the same photos. */
  before?: { label: string; points: Point[] };
}

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const figures = join(root, 'docs', 'figures');
const det = JSON.parse(readFileSync(join(figures, 'face-det.json'), 'utf8')) as DetFile;
const uplotDir = dirname(createRequire(import.meta.url).resolve('uplot/dist/uPlot.iife.min.js'));

const fmrs = det.every_pair.map((p) => p.fmr);
const series = [
  { label: `now (quality-corrected score), every pair`, points: det.every_pair, colour: '#1f5fbf' },
  { label: `now (quality-corrected score), faces above the quality floor ${det.floor}`, points: det.quality_floor, colour: '#0a7d3b' },
  ...(det.distance_alone ? [{ label: det.distance_alone.label, points: det.distance_alone.points, colour: '#c77c00' }] : []),
  ...(det.before ? [{ label: det.before.label, points: det.before.points, colour: '#b3261e' }] : []),
];
// FNMR 0 cannot sit on a log scale: drawn at the axis's floor.
const y = (v: number) => Math.max(v, 1e-3);
const data = [fmrs, ...series.map((s) => fmrs.map((f) => y(s.points.find((p) => p.fmr === f)?.fnmr ?? Number.NaN))), fmrs.map((f) => (f === 1e-4 ? 0.01 : null))];

const html = `<!doctype html><html><head><meta charset="utf-8"><style>${readFileSync(join(uplotDir, 'uPlot.min.css'), 'utf8')}
body { font: 14px sans-serif; margin: 16px; background: #fff; width: 900px; } h1 { font-size: 16px; margin: 0 0 4px; } p { margin: 0 0 8px; color: #444; }</style></head>
<body><h1>Face match on lfw-dev: false non-match rate against false match rate</h1>
<p>${det.genuine_pairs.toLocaleString('en')} same-person and ${det.impostor_pairs.toLocaleString('en')} different-person pairs above the quality floor; measured ${det.measured}. The black dot: NIST SP 800-63A-4's requirement (FNMR ≤ 1% at FMR ≤ 1e-4).</p>
<div id="chart"></div>
<script>${readFileSync(join(uplotDir, 'uPlot.iife.min.js'), 'utf8')}</script>
<script>
const data = ${JSON.stringify(data)};
const series = ${JSON.stringify(series.map((s) => ({ label: s.label, colour: s.colour })))};
new uPlot({
  width: 900, height: 520, legend: { live: false },
  scales: { x: { time: false, distr: 3 }, y: { distr: 3, range: [1e-3, 1] } },
  axes: [{ label: 'false match rate (FMR)', values: (u, v) => v.map((x) => (x == null ? '' : x.toExponential(0))) }, { label: 'false non-match rate (FNMR)', values: (u, v) => v.map((x) => (x == null ? '' : +(x * 100).toPrecision(2) + '%')) }],
  series: [{ label: 'FMR' }, ...series.map((s) => ({ label: s.label, stroke: s.colour, width: 2, points: { show: true } })),
    { label: 'NIST SP 800-63A-4', stroke: '#000', width: 0, points: { show: true, size: 12, fill: '#000' } }],
}, data, document.getElementById('chart'));
</script></body></html>`;

const browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
try {
  const page = await browser.newPage({ viewport: { width: 940, height: 680 } });
  page.on('pageerror', (e) => console.error('page error:', e.message));
  await page.setContent(html);
  await page.locator('.uplot').waitFor();
  await page.screenshot({ path: join(figures, 'face-det.png'), fullPage: true });
  console.log(`wrote ${join('docs', 'figures', 'face-det.png')}`);
} finally {
  await browser.close();
}
