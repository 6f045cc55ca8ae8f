import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { analyseFaces, judgeImageMedium } from '../../packages/engine/src/faces/index.ts';
import { ANTI_SPOOF_MODEL, ANTI_SPOOF_SIDE, antiSpoofInput, loadAntiSpoofNet } from '../../packages/engine/src/faces/medium/anti-spoof-net.ts';

// The trained anti-spoofing network of the still's medium (faces/medium/anti-spoof-net.ts): the
// file, its crop on made images whose pixels are known, the model's shape, and what it says of
// real NUAA frames read in place from ../shared/fixtures/pad-dev (never copied).

const image = (width: number, height: number, pixel: (x: number, y: number) => [number, number, number]) => {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set(pixel(x, y), (y * width + x) * 3);
  return { data, width, height };
};
const at = (input: Float32Array, channel: number, x: number, y: number) => input[channel * ANTI_SPOOF_SIDE * ANTI_SPOOF_SIDE + y * ANTI_SPOOF_SIDE + x]!;

test('the anti-spoofing model in the repository is the file its README names', () => {
  const sha = createHash('sha256').update(readFileSync(ANTI_SPOOF_MODEL)).digest('hex');
  assert.equal(sha, 'afa783b7e902fdfcf323a7240cac2a1c580c25314ea4161129dc1b0d100dc32d');
});

test('the crop is the face box grown 2.7 times about its centre, blue, green and red planes, values 0..255 unscaled', () => {
  // 1000×1000: red left of x = 500, blue right of it, a green band for y < 365. Box 100×100 centred
  // on (500, 500): the crop spans 270 px, from 365 to 635, so its left half red, right half blue,
  // no green (the band ends where the crop starts).
  const img = image(1000, 1000, (x, y) => (y < 365 ? [0, 255, 0] : x < 500 ? [255, 0, 0] : [0, 0, 255]));
  const input = antiSpoofInput(img, { x: 450, y: 450, width: 100, height: 100 });
  assert.equal(input.length, 3 * ANTI_SPOOF_SIDE * ANTI_SPOOF_SIDE);
  // Planes blue, green, red: a red pixel reads 0, 0, 255.
  assert.deepEqual([at(input, 0, 10, 2), at(input, 1, 10, 2), at(input, 2, 10, 2)], [0, 0, 255]);
  assert.deepEqual([at(input, 0, 120, 125), at(input, 1, 120, 125), at(input, 2, 120, 125)], [255, 0, 0]);
});

test('near the border the grown box is shifted inside the image, and shrunk when the image is too small', () => {
  // A box in the top-left corner: the 270-px crop starts at 0, 0, whose corner is marked white
  // (3×3 px: the crop's first pixel samples the source at 0.55, between its first two).
  const img = image(600, 600, (x, y) => (x < 3 && y < 3 ? [255, 255, 255] : x < 270 && y < 270 ? [10, 20, 30] : [200, 200, 200]));
  const input = antiSpoofInput(img, { x: 0, y: 0, width: 100, height: 100 });
  assert.deepEqual([at(input, 0, 0, 0), at(input, 1, 0, 0), at(input, 2, 0, 0)], [255, 255, 255]);
  assert.deepEqual([at(input, 0, 64, 64), at(input, 1, 64, 64), at(input, 2, 64, 64)], [30, 20, 10]);
  // The face fills most of a small image: the crop is the whole image less its last pixel, not more.
  const small = image(120, 120, (x) => (x < 60 ? [0, 0, 0] : [255, 255, 255]));
  const whole = antiSpoofInput(small, { x: 10, y: 10, width: 100, height: 100 });
  assert.equal(at(whole, 0, 0, 64), 0);
  assert.equal(at(whole, 0, 127, 64), 255);
});

test('the network takes one 128×128 RGB crop and gives three classes', async () => {
  const session = await loadAntiSpoofNet();
  assert.equal(session, await loadAntiSpoofNet(), 'one load per thread');
  const meta = session as unknown as { inputMetadata: { shape: number[] }[]; outputMetadata: { shape: number[] }[] };
  assert.deepEqual(meta.inputMetadata[0]!.shape, [1, 3, ANTI_SPOOF_SIDE, ANTI_SPOOF_SIDE]);
  assert.deepEqual(meta.outputMetadata[0]!.shape, [1, 3]);
});

test('pad-dev (NUAA, subject 0010 of the reported half): the network calls its live frames live and its prints not', async () => {
  const PAD = join(FIXTURES_DIR, 'pad-dev');
  if (!existsSync(join(PAD, 'manifest.csv'))) throw new Error(`pad-dev fixtures not found at ${PAD}`);
  const live = async (label: 'live' | 'spoof') => {
    const out: number[] = [];
    for (const f of readdirSync(join(PAD, label, '0010')).sort().slice(0, 4)) {
      const bytes = readFileSync(join(PAD, label, '0010', f));
      const faces = await analyseFaces(bytes);
      assert.equal(faces.length, 1, `one face on ${label}/${f}`);
      const judged = await judgeImageMedium(bytes, faces[0]!);
      assert.equal(judged.measures.medium_network_live, Math.round(judged.networkClasses[0]! * 10000) / 10000, 'the measure is the first class');
      out.push(judged.measures.medium_network_live!);
    }
    return out;
  };
  // Read red plane first, as the package's demo feeds it, the live frames' probabilities drop
  // (0.47 to 0.93 at the 10th and 50th percentiles of the reported half): the order matters.
  for (const p of await live('live')) assert.ok(p > 0.9, `live frame: ${p}`);
  for (const p of await live('spoof')) assert.ok(p < 0.1, `print: ${p}`);
});
