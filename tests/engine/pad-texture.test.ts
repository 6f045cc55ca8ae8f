import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { analyseFaces, judgeImageMedium } from '../../packages/engine/src/faces/index.ts';
import { grainMeasures } from '../../packages/engine/src/faces/medium/grain.ts';
import { cropGrey, faceCrop, lbpHistogram, textureMeasures, CROP } from '../../packages/engine/src/faces/medium/texture.ts';

// The micro-texture measures of the still's medium (faces/medium/texture.ts): on made images
// whose local binary patterns are known by hand, then on real NUAA frames read in place from
// ../shared/fixtures/pad-dev (never copied).

const image = (width: number, height: number, pixel: (x: number, y: number) => [number, number, number]) => {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 3);
  return { data, width, height };
};

test('the face crop averages the box made square to 64×64, whatever the source resolution', () => {
  const half = image(400, 300, (x) => (x < 200 ? [0, 0, 0] : [200, 100, 50]));
  // A box 200 wide and 100 high centred on x = 200: the square is 200×200, its left half black.
  const crop = faceCrop(half, { x: 100, y: 100, width: 200, height: 100 });
  assert.equal(crop.length, CROP * CROP * 3);
  assert.deepEqual([crop[0], crop[1], crop[2]], [0, 0, 0]);
  const right = (10 * CROP + CROP - 1) * 3;
  assert.deepEqual([crop[right], crop[right + 1], crop[right + 2]], [200, 100, 50]);
  assert.ok(Math.abs(cropGrey(crop)[CROP - 1]! - (0.299 * 200 + 0.587 * 100 + 0.114 * 50)) < 1e-9);
});

test('LBP(8,1): a flat patch is all "every neighbour as bright", a checkerboard spots, a step edges', () => {
  const size = 16;
  const flat = new Float64Array(size * size).fill(90);
  const h = lbpHistogram(flat, size, 8, 1);
  assert.equal(h.length, 10);
  assert.equal(h[8], 1);
  // A one-pixel checkerboard: the circle's diagonal points fall between pixels (interpolated, a mix
  // of black and white), so a white centre has all eight neighbours darker (a bright spot, bin 0)
  // and a black centre all eight brighter (bin 8).
  const board = Float64Array.from({ length: size * size }, (_, i) => ((i % size) + Math.floor(i / size)) % 2 ? 255 : 0);
  const b = lbpHistogram(board, size, 8, 1);
  assert.ok(Math.abs(b[0]! - 0.5) < 1e-9 && Math.abs(b[8]! - 0.5) < 1e-9, `checkerboard ${Array.from(b)}`);
  // A vertical step: on the step, the patterns are straight edges (3 to 5 neighbours brighter).
  const step = Float64Array.from({ length: size * size }, (_, i) => (i % size < size / 2 ? 0 : 255));
  const s = lbpHistogram(step, size, 8, 1);
  assert.ok(s[3]! + s[4]! + s[5]! > 0.05 && s[9] === 0, `step ${Array.from(s)}`);
  assert.ok(Math.abs(s.reduce((t, v) => t + v, 0) - 1) < 1e-9);
});

test('the texture measures: grain raises the irregular share, and they are pure', () => {
  let seed = 7;
  const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 80;
  const smooth = image(256, 256, (x, y) => {
    const v = 120 + 60 * Math.sin(x / 20) * Math.cos(y / 25);
    return [v + 40, v, v - 20];
  });
  const grainy = image(256, 256, (x, y) => {
    const v = 120 + 60 * Math.sin(x / 20) * Math.cos(y / 25) + noise();
    return [v + 40, v, v - 20];
  });
  const box = { x: 32, y: 32, width: 64, height: 64 };
  const a = textureMeasures(smooth, box);
  const b = textureMeasures(grainy, box);
  assert.ok(b.irregular > a.irregular + 0.1, `grain ${b.irregular} against ${a.irregular}`);
  assert.deepEqual(textureMeasures(smooth, box), a);
});

test('pad-dev (NUAA, subject 0010 of the reported half): its prints carry more straight-edge and fewer irregular patterns than its live frames', async () => {
  const PAD = join(FIXTURES_DIR, 'pad-dev');
  if (!existsSync(join(PAD, 'manifest.csv'))) throw new Error(`pad-dev fixtures not found at ${PAD}`);
  const read = async (label: 'live' | 'spoof') => {
    const files = readdirSync(join(PAD, label, '0010')).sort().slice(0, 5);
    const out = [];
    for (const f of files) {
      const bytes = readFileSync(join(PAD, label, '0010', f));
      const faces = await analyseFaces(bytes);
      assert.equal(faces.length, 1, `one face on ${label}/${f}`);
      out.push(await judgeImageMedium(bytes, faces[0]!));
    }
    return out;
  };
  const live = await read('live');
  const prints = await read('spoof');
  const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)]!;
  const edges = (j: typeof live) => median(j.map((x) => x.measures.medium_lbp_edges));
  const irregular = (j: typeof live) => median(j.map((x) => x.measures.medium_lbp_irregular));
  // One webcam, one subject: the print's texture is smoother (docs/liveness.md: across cameras it is not).
  assert.ok(edges(prints) > edges(live) + 0.03, `edges: prints ${edges(prints)}, live ${edges(live)}`);
  assert.ok(irregular(prints) < irregular(live) - 0.01, `irregular: prints ${irregular(prints)}, live ${irregular(live)}`);
});

test('grain against detail: grain on a soft picture stands out, a sharp picture with the same grain does not, and the measures are pure', () => {
  let seed = 11;
  const noise = () => ((seed = (seed * 16807) % 2147483647) / 2147483647 - 0.5) * 24;
  const n = 128;
  const window = (detail: (x: number, y: number) => number, grain: boolean) => Float64Array.from({ length: n * n }, (_, i) => detail(i % n, Math.floor(i / n)) + (grain ? noise() : 0));
  const soft = (x: number, y: number) => 120 + 50 * Math.sin(x / 18) * Math.cos(y / 22);
  const sharp = (x: number, y: number) => 120 + 50 * Math.sin(x / 2.5) * Math.cos(y / 3);
  const plain = grainMeasures(window(soft, false), n);
  const grainy = grainMeasures(window(soft, true), n);
  const detailed = grainMeasures(window(sharp, true), n);
  assert.ok(grainy.grain > plain.grain + 0.5, `grain ${grainy.grain} against ${plain.grain}`);
  assert.ok(grainy.grainToDetail > plain.grainToDetail + 0.5, `grain to detail ${grainy.grainToDetail} against ${plain.grainToDetail}`);
  assert.ok(grainy.grainToDetail > detailed.grainToDetail + 0.3, `on a soft picture ${grainy.grainToDetail}, on a sharp one ${detailed.grainToDetail}`);
  const again = window(soft, false);
  assert.deepEqual(grainMeasures(again, n), grainMeasures(again, n));
});
