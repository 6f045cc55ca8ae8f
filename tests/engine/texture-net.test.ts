import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { withTextureScores } from '../../bench/checks/pad-set.ts';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { analyseFaces, judgeImageMedium } from '../../packages/engine/src/faces/index.ts';
import { cameraControl, loadSource, printAttack, screenAttack } from '../../packages/engine/src/generator/attacks/index.ts';
import { gridOffsets, TEXTURE_NET_MODEL, texturePatches } from '../../packages/engine/src/faces/medium/texture-net.ts';
import { TEXTURE_PATCH, TEXTURE_WINDOW_MAX, textureWindow } from '../../packages/engine/src/faces/medium/texture-window.ts';

/** An image whose every pixel says where it is: red = x, green = y, blue = x + y (mod 256). */
function coordinates(width: number, height: number) {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([x % 256, y % 256, (x + y) % 256], (y * width + x) * 3);
  return { data, width, height };
}

test('the texture window is the middle of the face at the image\'s own resolution, 80% of its smaller side, at most 256 pixels, kept inside the image', () => {
  const image = coordinates(400, 300);
  const w = textureWindow(image, { x: 100, y: 50, width: 100, height: 120 })!;
  assert.equal(w.width, 80);
  assert.equal(w.height, 80);
  // Centred on x = 150 and y = 50 + 0.55 × 120 = 116: its corner at (110, 76), pixels copied, not resampled.
  assert.deepEqual([...w.data.subarray(0, 3)], [110, 76, 186]);
  assert.deepEqual([...w.data.subarray((79 * 80 + 79) * 3, (79 * 80 + 79) * 3 + 3)], [189, 155, 344 % 256]);
  // A large face: capped at TEXTURE_WINDOW_MAX. At the image's edge: shifted inside it.
  assert.equal(textureWindow(coordinates(1000, 1000), { x: 0, y: 0, width: 900, height: 900 })!.width, TEXTURE_WINDOW_MAX);
  const edge = textureWindow(image, { x: 350, y: 250, width: 100, height: 100 })!;
  assert.deepEqual([...edge.data.subarray(0, 2)], [320, 220].map((v) => v % 256));
  // Too small for one patch: no window (the measure is then left out, and the model reads 0, undecided).
  assert.equal(textureWindow(image, { x: 10, y: 10, width: 39, height: 39 }), null);
  assert.equal(textureWindow(image, { x: 10, y: 10, width: 40, height: 40 })!.width, TEXTURE_PATCH);
});

test('the network reads a 4×4 grid of 32×32 patches from edge to edge of the window, as planes red, green, blue of raw values', () => {
  assert.deepEqual(gridOffsets(32), [0, 0, 0, 0]);
  assert.deepEqual(gridOffsets(128), [0, 32, 64, 96]);
  assert.deepEqual(gridOffsets(80), [0, 16, 32, 48]);
  const window = coordinates(80, 80);
  const input = texturePatches(window);
  const P = TEXTURE_PATCH;
  assert.equal(input.length, 16 * 3 * P * P);
  // Patch 6 is row 1, column 2 of the grid: its top-left pixel is the window's (32, 16).
  const base = 6 * 3 * P * P;
  assert.deepEqual([input[base], input[base + P * P], input[base + 2 * P * P]], [32, 16, 48]);
  // And its pixel (x 5, y 7): the window's (37, 23).
  const at = base + 7 * P + 5;
  assert.deepEqual([input[at], input[at + P * P], input[at + 2 * P * P]], [37, 23, 60]);
});

test('the committed texture network is the file its README names', () => {
  const readme = readFileSync(new URL('../../packages/engine/models/texture-net/README.md', import.meta.url), 'utf8');
  const sha = createHash('sha256').update(readFileSync(TEXTURE_NET_MODEL)).digest('hex');
  assert.ok(readme.includes(sha), `README names SHA-256 ${sha}`);
});

test('the texture network puts an inkjet print and a screen of a real photo above the plain photo and above the same photo filmed by the simulated camera', async () => {
  const path = join(FIXTURES_DIR, 'faces/face_recognition/examples/obama2.jpg');
  if (!existsSync(path)) throw new Error(`face fixtures not found at ${path}`);
  const photo = readFileSync(path);
  const logitOf = async (image: Uint8Array) => {
    const [face] = await analyseFaces(image);
    assert.ok(face, 'one face found');
    return (await judgeImageMedium(image, face)).measures.medium_texture_net!;
  };
  const [big] = await analyseFaces(photo, { maxSide: 4096 });
  const source = await loadSource(photo, big!.box);
  // Seed 5 draws an inkjet print: the species the hand-made measures missed most (docs/liveness.md).
  const print = await printAttack(source, 5);
  assert.equal(print.params.mode, 'inkjet');
  const plain = await logitOf(photo);
  const filmed = await logitOf((await cameraControl(source, 5)).image);
  for (const [name, image] of [['inkjet print', print.image], ['screen', (await screenAttack(source, 5)).image]] as const) {
    const logit = await logitOf(image);
    assert.ok(logit > plain + 3 && logit > filmed + 3, `${name}: ${logit} against the photo's ${plain} and the filmed photo's ${filmed}`);
  }
});

test('the fit takes each still\'s texture logit from the training script\'s scores by id; a still it did not score reads 0, as the engine gives it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'texture-scores-'));
  try {
    const path = join(dir, 'scores.json');
    writeFileSync(path, JSON.stringify([{ id: 'a', logit: 2.5 }, { id: 'c', logit: -1 }]));
    const features = { texture_net: 9, grain: 1 } as never;
    const set = withTextureScores({ portraitPairs: [], rows: [
      { id: 'a', species: 'generated_print', attack: true, half: 0, person: 'p', face: true, features },
      { id: 'b', species: 'bona_fide_photos', attack: false, half: 0, person: 'p', face: true, features },
      { id: 'c', species: 'bona_fide_photos', attack: false, half: 1, person: 'q', face: false },
    ] }, path);
    assert.deepEqual(set.rows.map((r) => r.features?.texture_net), [2.5, 0, undefined]);
    assert.equal(set.rows[0]!.features!.grain, 1, 'the other features are kept');
    assert.equal((features as { texture_net: number }).texture_net, 9, 'the set read is not changed');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
