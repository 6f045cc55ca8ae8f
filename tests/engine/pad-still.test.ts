import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR } from '../../packages/engine/src/index.ts';
import { analyseFaces, judgeFaceMatch, judgeImageMedium, judgeStillMedium, type FaceFinding } from '../../packages/engine/src/faces/index.ts';
import { powerSpectrum } from '../../packages/engine/src/fft.ts';
import { MEDIUM_MODEL, mediumScore, SELFIE_IS_PORTRAIT_MAX_DISTANCE, type MediumFeature } from '../../packages/engine/src/faces/medium/index.ts';
import { Z_LIMIT } from '../../packages/engine/src/faces/medium/model.ts';
import { spectrumMeasures } from '../../packages/engine/src/faces/medium/spectrum.ts';
import { cameraControl, loadSource, printAttack, screenAttack } from '../../packages/engine/src/generator/attacks/index.ts';

// Real photos from ../shared/fixtures/faces; attacks generated from them by seed (never written).
const FACES = join(FIXTURES_DIR, 'faces');
if (!existsSync(join(FACES, 'manifest.json'))) throw new Error(`face fixtures not found at ${FACES}`);
const ASTRONAUT = readFileSync(join(FACES, 'debian/astronaut.png'));
const OBAMA2 = readFileSync(join(FACES, 'face_recognition/examples/obama2.jpg'));

test('the still model scores its features and their products, each feature held within ±Z_LIMIT standard deviations', () => {
  // One feature (mean 1, scale 2) and its square (mean 1, scale 0.5): by hand, z = (x − 1) / 2,
  // logit = 0.1 + 0.5·z + 2·(z² − 1) / 0.5.
  const model = { features: [{ name: 'grain' as const, mean: 1, scale: 2, weight: 0.5 }], pairs: [{ a: 'grain' as const, b: 'grain' as const, mean: 1, scale: 0.5, weight: 2 }], bias: 0.1 };
  const features = (grain: number) => ({ grain }) as Record<MediumFeature, number>;
  const logit = (z: number) => 0.1 + 0.5 * z + (2 * (z * z - 1)) / 0.5;
  const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));
  for (const x of [1, 3, -2]) assert.ok(Math.abs(mediumScore(features(x), model) - sigmoid(logit((x - 1) / 2))) < 1e-12, `x = ${x}`);
  // Far out, the feature counts as if it were Z_LIMIT standard deviations away, no more.
  assert.equal(mediumScore(features(1 + 2 * Z_LIMIT * 10), model), mediumScore(features(1 + 2 * Z_LIMIT), model));
  assert.equal(mediumScore(features(1 - 2 * Z_LIMIT * 10), model), sigmoid(logit(-Z_LIMIT)));
  // The committed model names only features the engine measures, and its pairs only its own features.
  const names = new Set(MEDIUM_MODEL.features.map((f) => f.name));
  for (const p of MEDIUM_MODEL.pairs) assert.ok(names.has(p.a) && names.has(p.b), `${p.a} × ${p.b}`);
});

test('the power spectrum puts a pure wave at its frequency, and an isolated wave is a spectrum peak', () => {
  const n = 64;
  const wave = new Float64Array(n * n);
  for (let y = 0; y < n; y++) for (let x = 0; x < n; x++) wave[y * n + x] = Math.cos((2 * Math.PI * 20 * x) / n + (2 * Math.PI * 11 * y) / n);
  const power = powerSpectrum(wave, n);
  let best = 0;
  for (let i = 1; i < power.length; i++) if (power[i]! > power[best]!) best = i;
  // The wave's frequency, or its mirror at −f (a real image's spectrum is symmetric).
  assert.ok([[20, 11], [n - 20, n - 11]].some(([kx, ky]) => best % n === kx && Math.floor(best / n) === ky), `peak at ${best % n}, ${Math.floor(best / n)}`);
  // A smooth random texture with and without the wave: the wave is a peak, ten times over its ring at least.
  const noise = new Float64Array(n * n);
  let s = 1;
  for (let i = 0; i < noise.length; i++) noise[i] = 128 + 20 * (((s = (s * 16807) % 2147483647) / 2147483647) - 0.5);
  const withWave = noise.map((v, i) => v + 15 * wave[i]!);
  const plain = spectrumMeasures(noise, n).peaks;
  const peaked = spectrumMeasures(withWave, n).peaks;
  assert.ok(peaked > plain + 1, `a wave rises over the spectrum: ${peaked} against ${plain}`);
});

test('attacks are made the same from the same seed, and differ by seed', async () => {
  const [face] = await analyseFaces(ASTRONAUT, { maxSide: 4096 });
  const source = await loadSource(ASTRONAUT, face!.box);
  const a = await screenAttack(source, 7);
  const b = await screenAttack(source, 7);
  const c = await screenAttack(source, 8);
  assert.ok(a.image.equals(b.image));
  assert.ok(!a.image.equals(c.image));
  assert.notDeepEqual(a.params, c.params);
  // A print and its control report what their simulated camera drew (bench:pad's rates by lens
  // blur read them): the same draws from the same seed, within the ranges each draws from.
  const [p1, p2] = [await printAttack(source, 7), await printAttack(source, 7)];
  assert.ok(p1.image.equals(p2.image));
  assert.deepEqual(p1.camera, p2.camera);
  assert.ok(p1.camera.blur >= 0.3 && p1.camera.blur <= 1 && p1.camera.noise >= 1.5 && p1.camera.noise <= 5, JSON.stringify(p1.camera));
  assert.ok(Number.isInteger(p1.camera.jpegQuality) && p1.camera.jpegQuality >= 72 && p1.camera.jpegQuality <= 93);
  const controls = await Promise.all([7, 8].map((seed) => cameraControl(source, seed)));
  assert.notDeepEqual(controls[0]!.camera, controls[1]!.camera);
  for (const c of controls) assert.ok(c.camera.blur >= 0.3 && c.camera.blur <= 1.3, JSON.stringify(c.camera));
});

test('a face shown on a simulated screen or print scores above the plain photo and above the same photo filmed by the simulated camera, neither of which is an attack', async () => {
  const [face] = await analyseFaces(OBAMA2, { maxSide: 4096 });
  const source = await loadSource(OBAMA2, face!.box);
  const plainFace = (await analyseFaces(OBAMA2))[0]!;
  const plain = await judgeImageMedium(OBAMA2, plainFace);
  assert.equal(plain.attack, false, `the bona fide photo passes: score ${plain.score}`);
  for (const seed of [3, 4]) {
    const screen = await screenAttack(source, seed);
    const [sf] = await analyseFaces(screen.image);
    assert.ok(sf, `a face on the screen (seed ${seed})`);
    const judged = await judgeImageMedium(screen.image, sf);
    assert.ok(judged.measures.medium_spectrum_peaks > plain.measures.medium_spectrum_peaks, `screen ${seed}: peaks ${judged.measures.medium_spectrum_peaks} over ${plain.measures.medium_spectrum_peaks}`);
    assert.ok(judged.score > plain.score, `screen ${seed}: score ${judged.score} over ${plain.score}`);
    const print = await printAttack(source, seed);
    const [pf] = await analyseFaces(print.image);
    assert.ok(pf, `a face on the print (seed ${seed})`);
    const printed = await judgeImageMedium(print.image, pf);
    assert.ok(printed.score > plain.score, `print ${seed}: score ${printed.score} over ${plain.score}`);
    assert.ok(judged.attack && printed.attack, `both taken for attacks at the model's threshold (seed ${seed})`);
    // The same photo filmed by the same simulated camera, no medium between: what the camera adds
    // alone is not taken for an attack, and the print and the screen score above it.
    const control = await cameraControl(source, seed);
    const [cf] = await analyseFaces(control.image);
    assert.ok(cf, `a face on the control (seed ${seed})`);
    const filmed = await judgeImageMedium(control.image, cf);
    assert.equal(filmed.attack, false, `control ${seed}: score ${filmed.score}`);
    assert.ok(printed.score > filmed.score && judged.score > filmed.score, `control ${seed}: ${filmed.score} under print ${printed.score} and screen ${judged.score}`);
  }
});

test('the medium judgement is pure: the same pixels give the same measures, and its score is in 0..1', () => {
  const width = 128, height = 128;
  const data = new Uint8Array(width * height * 3);
  for (let i = 0; i < data.length; i++) data[i] = (i * 37) % 251;
  const image = { data, width, height };
  const a = judgeStillMedium(image, { box: { x: 20, y: 20, width: 90, height: 90 } });
  const b = judgeStillMedium(image, { box: { x: 20, y: 20, width: 90, height: 90 } });
  assert.deepEqual(a, b);
  assert.ok(a.score >= 0 && a.score <= 1);
  assert.equal(a.attack, a.score >= MEDIUM_MODEL.threshold);
});

const face = (descriptor: number[]): FaceFinding => ({
  box: { x: 100, y: 100, width: 300, height: 300 },
  relativeSize: 0.4,
  yaw: 0,
  pitch: 0,
  roll: 0,
  descriptor,
  quality: 3.5,
  score: 1,
  antispoof: 0.9,
  liveness: 0.9,
  frame: { width: 640, height: 640 },
  landmarks: [],
});
const THRESHOLDS = { face_match_max_distance: 1.067, face_review_max_distance: 1.148 };
const unit = (k: number, angle: number) => Array.from({ length: 512 }, (_, i) => (i === 0 ? Math.cos(angle) : i === k ? Math.sin(angle) : 0));

test('the face check raises presentation_attack_suspected (attention) when the medium is an attack, and keeps the measures', () => {
  const doc = face(unit(1, 0));
  const selfie = face(unit(1, 0.6)); // distance about 0.59: the same person, another photo
  const measures = { medium_spectrum_peaks: 2, medium_high_frequency: -1, medium_saturation: 0.2, medium_dynamic_range: 0.6, medium_glare: 0, medium_straight_edges: 0.3, medium_grain: 0.4, medium_grain_to_detail: -0.2, medium_lbp_edges: 0.3, medium_lbp_irregular: 0.07, medium_attack_score: 0.97 };
  const attacked = judgeFaceMatch([doc], [selfie], THRESHOLDS, { measures, score: 0.97, attack: true }).report;
  assert.equal(attacked.status, 'attention');
  assert.deepEqual(attacked.reasons, ['presentation_attack_suspected']);
  assert.equal(attacked.measures.medium_attack_score, 0.97);
  const live = judgeFaceMatch([doc], [selfie], THRESHOLDS, { measures: { ...measures, medium_attack_score: 0.1 }, score: 0.1, attack: false }).report;
  assert.equal(live.status, 'ok');
  assert.deepEqual(live.reasons, []);
});

test('a selfie nearer the portrait than two photos of one person is the portrait itself: selfie_is_document_portrait, failed', () => {
  assert.ok(SELFIE_IS_PORTRAIT_MAX_DISTANCE > 0.1 && SELFIE_IS_PORTRAIT_MAX_DISTANCE < 0.6, `chosen distance ${SELFIE_IS_PORTRAIT_MAX_DISTANCE}`);
  const doc = face(unit(1, 0));
  const same = judgeFaceMatch([doc], [face(unit(1, SELFIE_IS_PORTRAIT_MAX_DISTANCE / 2))], THRESHOLDS).report;
  assert.equal(same.status, 'failed');
  assert.ok(same.reasons.includes('selfie_is_document_portrait'));
  const other = judgeFaceMatch([doc], [face(unit(1, 0.7))], THRESHOLDS).report;
  assert.ok(!other.reasons.includes('selfie_is_document_portrait'));
  assert.equal(other.status, 'ok');
});
