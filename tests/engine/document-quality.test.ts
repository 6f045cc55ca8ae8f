import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { assessDocumentQuality, qualityReasons, qualityReport, QUALITY_THRESHOLDS } from '../../packages/engine/src/document/quality.ts';
import { decodeImage, MAX_INPUT_PIXELS } from '../../packages/engine/src/document/decode.ts';
import { decodeGrey } from '../../packages/engine/src/mrz/read.ts';
import { decodeForFaces } from '../../packages/engine/src/faces/decode-image.ts';
import { generateDocument } from '../../packages/engine/src/generator/generate.ts';
import { randomIdentity } from '../../packages/engine/src/generator/identity.ts';
import { FIXTURES_DIR, portraitFixtures } from '../../packages/engine/src/generator/fixtures.ts';

const DOCS = join(FIXTURES_DIR, 'documents');
if (!existsSync(DOCS)) throw new Error(`document fixtures not found at ${DOCS}`);
const read = (rel: string) => readFileSync(join(DOCS, rel));
/** Identity documents among the fixtures (the folder also holds a landscape and two text pages). */
const specimens = [
  ...readdirSync(join(DOCS, 'passporteye')).filter((f) => !/^(pacman|tesseract-test)/.test(f)).map((f) => `passporteye/${f}`),
  ...readdirSync(join(DOCS, 'image-js')).map((f) => `image-js/${f}`),
];

/** The specimens with no colour at all (every pixel grey). */
const GREYSCALE = ['passporteye/100_id-usa.jpg', 'passporteye/77_card-cmw.png'];

async function glared(bytes: Buffer): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  const r = Math.round(Math.min(width, height) * 0.22);
  const spot = `<svg width="${width}" height="${height}"><defs><radialGradient id="g"><stop offset="0.55" stop-color="#fff"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><circle cx="${width * 0.45}" cy="${height * 0.45}" r="${r}" fill="url(#g)"/></svg>`;
  return sharp(bytes).composite([{ input: Buffer.from(spot) }]).jpeg().toBuffer();
}

async function generated(seed: number) {
  const portraits = portraitFixtures();
  return generateDocument({ format: seed % 2 ? 'TD1' : 'TD3', fields: randomIdentity(seed), portrait: readFileSync(portraits[seed % portraits.length]!), seed });
}

describe('document quality on real specimens', () => {
  test(`every specimen document passes (${specimens.length} images), but the two without any colour, taken for copies`, async () => {
    for (const rel of specimens) {
      const { report } = await assessDocumentQuality(read(rel));
      // A greyscale scan and a greyscale rendering: no colour at all, what a black-and-white copy
      // shows (the real BPCER of docs/liveness.md, "The document side"); a person looks at them.
      const expected = GREYSCALE.includes(rel) ? ['attention', ['document_photocopy_suspected']] : ['ok', []];
      assert.deepEqual([rel, report.status, report.reasons], [rel, ...expected]);
      assert.equal(report.type, 'document_quality');
    }
  });

  test('a photo without any document is not found', async () => {
    const { report } = await assessDocumentQuality(read('passporteye/pacman.jpg'));
    assert.deepEqual(report.reasons, ['document_not_found']);
    assert.equal(report.status, 'failed');
  });

  test('blurred variants fail as blurred', async () => {
    for (const rel of ['passporteye/passport-td3.jpg', 'image-js/id1.jpg', 'passporteye/100_pass-hrv.jpg']) {
      const bytes = read(rel);
      const { width = 0 } = await sharp(bytes).metadata();
      const { report } = await assessDocumentQuality(await sharp(bytes).blur(0.006 * width).jpeg().toBuffer());
      assert.ok(report.reasons.includes('image_blurred'), `${rel}: ${report.reasons}`);
      assert.ok(report.measures.sharpness! < QUALITY_THRESHOLDS.minSharpness);
    }
  });

  test('a glare spot on a tinted document fails as glare', async () => {
    for (const rel of ['image-js/id1.jpg', 'passporteye/100_pass-hrv.jpg', 'passporteye/100_pass-bdr.jpg']) {
      const { report } = await assessDocumentQuality(await glared(read(rel)));
      assert.deepEqual([rel, report.reasons], [rel, ['image_glare']]);
    }
  });

  test('a shrunk document fails on resolution', async () => {
    const { report } = await assessDocumentQuality(await sharp(read('image-js/id1.jpg')).resize(200).png().toBuffer());
    assert.ok(report.reasons.includes('resolution_too_low'), String(report.reasons));
    assert.ok(report.measures.document_long_side_px! < QUALITY_THRESHOLDS.minDocumentLongSide);
  });
});

describe('document quality on generated phone photos', () => {
  test('whole documents pass, cut ones fail as cut off', async () => {
    for (const seed of [11, 12, 13]) {
      const doc = await generated(seed);
      const whole = await assessDocumentQuality(doc.image);
      assert.deepEqual([seed, whole.report.reasons], [seed, []]);
      const box = whole.location!.corners;
      // The found corners are where the generator put the card (within 3 % of its width).
      const err = Math.max(...box.map((c, i) => Math.hypot(c[0] - doc.documentCorners[i]![0], c[1] - doc.documentCorners[i]![1])));
      assert.ok(err < 0.03 * doc.documentBox.width, `corner error ${err}`);

      const b = doc.documentBox;
      const right = await sharp(doc.image).extract({ left: 0, top: 0, width: Math.round(b.x + b.width * 0.7), height: doc.height }).jpeg().toBuffer();
      const cx = Math.round(b.x + b.width * 0.25);
      const cy = Math.round(b.y + b.height * 0.25);
      const corner = await sharp(doc.image).extract({ left: cx, top: cy, width: doc.width - cx, height: doc.height - cy }).jpeg().toBuffer();
      for (const [name, bytes] of [['right', right], ['corner', corner]] as const) {
        const { report } = await assessDocumentQuality(bytes);
        assert.deepEqual([seed, name, report.reasons], [seed, name, ['document_cut_off']]);
      }
    }
  });
});

describe('decoding', () => {
  test('bytes that are no image are unreadable', async () => {
    const { report, decoded } = await assessDocumentQuality(Buffer.from('not an image at all'));
    assert.deepEqual([report.status, report.reasons, decoded], ['failed', ['image_unreadable'], null]);
  });

  test('images over the pixel limit are refused before decoding', async () => {
    const side = Math.ceil(Math.sqrt(MAX_INPUT_PIXELS)) + 10;
    const huge = await sharp({ create: { width: side, height: side, channels: 3, background: '#fff' } }).png().toBuffer();
    const { report } = await assessDocumentQuality(huge);
    assert.deepEqual(report.reasons, ['image_unreadable']);
    // The MRZ reader and the face models open their bytes through the same limit.
    await assert.rejects(decodeGrey(huge), /pixel limit/i);
    await assert.rejects(decodeForFaces(huge), /pixel limit/i);
  });

  test('EXIF orientation is applied', async () => {
    const upright = read('image-js/id1.jpg');
    // Stored sideways with the tag saying "rotate 90° clockwise to view" (orientation 6).
    const sideways = await sharp(upright).rotate(-90).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const a = await decodeImage(upright);
    const b = await decodeImage(sideways);
    assert.deepEqual([b.width, b.height], [a.width, a.height]);
    const { report } = await assessDocumentQuality(sideways);
    assert.equal(report.status, 'ok');
  });

  test('reasons follow the thresholds', () => {
    const base = { document_found: 1, document_long_side_px: 800, document_area_fraction: 0.5, borders_touched: 0, sharpness: 1000, saturated_share: 0, glare_blob_share: 0, glare_halo_luminance: 0, text_density: 0.05, colour_spread: 5, pixel_grid_peak: 1.5, colour_moire_peak: 1.5, screen_network: -5, copy_network: -5, network_patches: 24 };
    assert.deepEqual(qualityReasons(base, false), []);
    assert.deepEqual(qualityReasons(base, true), ['document_cut_off']);
    assert.deepEqual(qualityReasons({ ...base, glare_blob_share: 0.5, glare_halo_luminance: 200 }, false), []);
    assert.deepEqual(qualityReasons({ ...base, glare_blob_share: 0.05, glare_halo_luminance: 246 }, false), ['image_glare']);
    assert.deepEqual(qualityReasons({ ...base, document_found: 0, sharpness: 20 }, false), ['document_not_found', 'image_blurred']);
    // The medium: a screen or a copy asks for attention; on a blurred photo it is not judged (blur erases moiré).
    const screen = { ...base, colour_moire_peak: 4 };
    assert.deepEqual(qualityReasons(screen, false), ['document_screen_replay_suspected']);
    assert.deepEqual(qualityReasons({ ...screen, sharpness: 20 }, false), ['image_blurred']);
    assert.deepEqual(qualityReasons({ ...base, colour_spread: 0 }, false), ['document_photocopy_suspected']);
    assert.deepEqual(qualityReasons({ ...base, colour_spread: 0, document_found: 0 }, false), ['document_not_found']);
    // A card's back may have no colour at all: only the front is judged for a copy.
    assert.deepEqual(qualityReasons({ ...base, colour_spread: 0 }, false, 'back'), []);
    assert.deepEqual(qualityReasons(screen, false, 'back'), ['document_screen_replay_suspected']);
    assert.deepEqual([qualityReport(screen, false).status, qualityReport({ ...screen, glare_blob_share: 0.05, glare_halo_luminance: 246 }, false).status], ['attention', 'failed']);
  });
});
