import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { CheckReason } from '@idv/domain';
import { fftRadix2 } from '../../packages/engine/src/fft.ts';
import { windowedSpectrum } from '../../packages/engine/src/document/medium/windowed-spectrum.ts';
import { mediumReasons, MEDIUM_THRESHOLDS, type MediumMeasures } from '../../packages/engine/src/document/medium/medium.ts';
import { assessDocumentQuality } from '../../packages/engine/src/document/quality.ts';
import { generateDocumentAttack, type DocumentAttackSpecies } from '../../packages/engine/src/generator/attacks/species.ts';
import { generateDocument } from '../../packages/engine/src/generator/generate.ts';
import { documentHalf, documentOptions } from '../../bench/checks/pad-documents.ts';

/**
 * The document's medium (screen, copy, or the document itself) on GENERATED images: the
 * generator's ordinary phone photos against the same identities shown on a screen and
 * photocopied (packages/engine/src/generator/attacks). Seeds of the test half's kind (seed % 4
 * ≥ 2: no network was trained on them) beyond the bench's identities (5000–5079, whose test half
 * chose the network's thresholds): nothing was chosen on them.
 */

describe('radix-2 FFT', () => {
  test('agrees with a direct DFT', () => {
    const n = 16;
    const re = Float64Array.from({ length: n }, (_, i) => Math.sin(i * 1.3) + (i % 3));
    const im = new Float64Array(n);
    const [dr, di] = [new Float64Array(n), new Float64Array(n)];
    for (let k = 0; k < n; k++) {
      for (let t = 0; t < n; t++) {
        dr[k]! += re[t]! * Math.cos((-2 * Math.PI * k * t) / n);
        di[k]! += re[t]! * Math.sin((-2 * Math.PI * k * t) / n);
      }
    }
    fftRadix2(re, im);
    for (let k = 0; k < n; k++) {
      assert.ok(Math.abs(re[k]! - dr[k]!) < 1e-9 && Math.abs(im[k]! - di[k]!) < 1e-9, `bin ${k}`);
    }
    assert.throws(() => fftRadix2(new Float64Array(12), new Float64Array(12)), /power-of-two/);
  });

  test('a diagonal grating puts its power at its frequency', () => {
    const n = 64;
    const tile = Float64Array.from({ length: n * n }, (_, i) => 128 + 60 * Math.cos((2 * Math.PI * (5 * (i % n) + 9 * Math.floor(i / n))) / n));
    const power = windowedSpectrum(tile, n);
    let best = 0;
    for (let i = 1; i < n * n; i++) if (power[i]! > power[best]!) best = i;
    // (u, v) = (5, 9), or its mirror (-5, -9).
    assert.ok(best === 9 * n + 5 || best === (n - 9) * n + (n - 5), `peak at ${best % n},${Math.floor(best / n)}`);
  });
});

describe('medium reasons (pure)', () => {
  const m = (o: Partial<MediumMeasures>): MediumMeasures => ({ colour_spread: 5, pixel_grid_peak: 1.5, colour_moire_peak: 1.5, screen_network: -5, copy_network: -5, network_patches: 24, ...o });
  test('a peak at the threshold is a screen; a screen is not also a copy', () => {
    assert.deepEqual(mediumReasons(m({})), []);
    assert.deepEqual(mediumReasons(m({ colour_moire_peak: MEDIUM_THRESHOLDS.minScreenPeak })), ['document_screen_replay_suspected']);
    assert.deepEqual(mediumReasons(m({ pixel_grid_peak: 4, colour_spread: 0 })), ['document_screen_replay_suspected']);
    assert.deepEqual(mediumReasons(m({ colour_spread: MEDIUM_THRESHOLDS.maxCopyColourSpread - 0.01 })), ['document_photocopy_suspected']);
    assert.deepEqual(mediumReasons(m({ colour_spread: MEDIUM_THRESHOLDS.maxCopyColourSpread })), []);
  });
  test('the network raises either reason on its own, a screen first; silent when it read no patch', () => {
    assert.deepEqual(mediumReasons(m({ screen_network: MEDIUM_THRESHOLDS.minScreenNet })), ['document_screen_replay_suspected']);
    assert.deepEqual(mediumReasons(m({ screen_network: MEDIUM_THRESHOLDS.minScreenNet - 0.01 })), []);
    assert.deepEqual(mediumReasons(m({ copy_network: MEDIUM_THRESHOLDS.minCopyNet })), ['document_photocopy_suspected']);
    assert.deepEqual(mediumReasons(m({ copy_network: MEDIUM_THRESHOLDS.minCopyNet - 0.01 })), []);
    assert.deepEqual(mediumReasons(m({ screen_network: 9, copy_network: 9 })), ['document_screen_replay_suspected']);
    assert.deepEqual(mediumReasons(m({ screen_network: 9, copy_network: 9, network_patches: 0 })), []);
  });
});

describe('generated documents: bona fide photos pass, screens and copies are flagged', { timeout: 300_000 }, () => {
  const SEEDS = [6002, 6003, 6006, 6007, 6010, 6011];
  test('the seeds are of the test half', () => assert.ok(SEEDS.every((s) => documentHalf(s) === 'test')));
  const flagged = async (bytes: Buffer) => (await assessDocumentQuality(bytes)).report;

  test('the same seed gives the same attack', async () => {
    const a = await generateDocumentAttack('photocopy_grey', documentOptions(SEEDS[0]!));
    const b = await generateDocumentAttack('photocopy_grey', documentOptions(SEEDS[0]!));
    assert.ok(a.image.equals(b.image));
  });

  test('ordinary phone photos: no presentation-attack reason', async () => {
    for (const seed of SEEDS) {
      const report = await flagged((await generateDocument(documentOptions(seed))).image);
      assert.deepEqual([seed, report.status, report.reasons], [seed, 'ok', []], JSON.stringify(report.measures));
    }
  });

  const expectations: [DocumentAttackSpecies, CheckReason][] = [
    ['screen_replay', 'document_screen_replay_suspected'],
    ['photocopy_grey', 'document_photocopy_suspected'],
    ['photocopy_colour', 'document_photocopy_suspected'],
  ];
  for (const [species, reason] of expectations) {
    test(`${species}: flagged with ${reason}, as attention (a person looks, no retake)`, async () => {
      let caught = 0;
      for (const seed of SEEDS) {
        const report = await flagged((await generateDocumentAttack(species, documentOptions(seed))).image);
        if (report.reasons.includes(reason)) caught++;
        if (report.reasons.every((r) => r === reason) && report.reasons.length) assert.equal(report.status, 'attention');
      }
      assert.equal(caught, SEEDS.length, `${species}: ${caught}/${SEEDS.length} caught`);
    });
  }
});
