import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import sharp from 'sharp';
import { composeMrz, generateDocument, parseMrz, portraitFixtures, randomIdentity, toMrzName } from '../../packages/engine/src/index.ts';

const portraits = portraitFixtures();
const photo = (seed: number) => readFileSync(portraits[seed % portraits.length]!);
const NOW = new Date('2026-01-01T00:00:00Z');

test('the same seed gives the same bytes; another seed gives another document', async () => {
  const opts = { format: 'TD3' as const, fields: randomIdentity(11), portrait: photo(11), seed: 11 };
  const a = await generateDocument(opts);
  const b = await generateDocument(opts);
  assert.ok(a.image.equals(b.image));
  const c = await generateDocument({ ...opts, seed: 12 });
  assert.ok(!a.image.equals(c.image));
  assert.deepEqual(randomIdentity(5), randomIdentity(5));
  assert.notDeepEqual(randomIdentity(5), randomIdentity(6));
});

test('200 identities are distinct and their MRZ parses with every check digit and valid codes', () => {
  const numbers = new Set<string>();
  for (let seed = 1; seed <= 200; seed++) {
    const fields = randomIdentity(seed);
    numbers.add(fields.document_number!);
    for (const format of ['TD1', 'TD3'] as const) {
      const reading = parseMrz(composeMrz(format, fields), { allowSpecimen: true, now: NOW });
      assert.ok(reading, `seed ${seed} ${format}`);
      assert.equal(reading.checkDigitsValid, true, `seed ${seed} ${format}`);
      assert.equal(reading.codesValid, true);
      assert.equal(reading.fields.birth_date, fields.birth_date);
      assert.equal(reading.fields.expiry_date, fields.expiry_date);
      assert.equal(reading.fields.document_number, fields.document_number);
      // The MRZ carries the transliterated surname (truncated at worst, never altered).
      assert.ok(toMrzName(fields.surname!).replace(/</g, ' ').startsWith(reading.fields.surname!));
    }
  }
  assert.ok(numbers.size >= 199);
});

for (const format of ['TD1', 'TD3'] as const) {
  test(`${format}: a degraded photo of ${format === 'TD1' ? 'an ID card' : 'a passport page'}, its lines and its box`, async () => {
    const doc = await generateDocument({ format, fields: randomIdentity(3), portrait: photo(3), seed: 3 });
    const meta = await sharp(doc.image).metadata();
    assert.equal(meta.format, 'jpeg');
    assert.equal(meta.width, 1600);
    assert.equal(meta.height, 1200);
    assert.equal(doc.width, 1600);
    assert.equal(doc.lines.length, format === 'TD1' ? 3 : 2);
    assert.equal(doc.lines[0]!.length, format === 'TD1' ? 30 : 44);
    const reading = parseMrz(doc.lines, { allowSpecimen: true, now: NOW });
    assert.equal(reading?.format, format);
    assert.equal(reading?.checkDigitsValid, true);
    // The card fills most of the photo and stays inside it.
    const { x, y, width, height } = doc.documentBox;
    assert.ok(x >= 0 && y >= 0 && x + width <= 1600 && y + height <= 1200);
    assert.ok(width > 1600 * 0.65 && width < 1600 * 0.95);
    // Inside the box the image is a card (bright), not the background alone: compare mean luminance.
    const stats = await sharp(doc.image).extract({ left: x + 20, top: y + 20, width: width - 40, height: height - 40 }).greyscale().stats();
    assert.ok(stats.channels[0]!.mean > 120);
  });
}

test('degrade: false gives the flat card at its print resolution', async () => {
  const td1 = await generateDocument({ format: 'TD1', fields: randomIdentity(4), portrait: photo(4), seed: 4, degrade: false });
  assert.deepEqual([td1.width, td1.height], [Math.round(85.6 * 16), 54 * 16]);
  assert.deepEqual(td1.documentBox, { x: 0, y: 0, width: td1.width, height: td1.height });
  const td3 = await generateDocument({ format: 'TD3', fields: randomIdentity(4), portrait: photo(4), seed: 4, degrade: false });
  assert.deepEqual([td3.width, td3.height], [Math.round(125 * 11.2), Math.round(88 * 11.2)]);
  // The MRZ band at the bottom is darker where the OCR-B characters are printed than its margins.
  const band = await sharp(td3.image).extract({ left: 0, top: td3.height - 120, width: td3.width, height: 100 }).greyscale().raw().toBuffer();
  const dark = band.filter((v) => v < 90).length / band.length;
  assert.ok(dark > 0.03 && dark < 0.4, `share of ink in the MRZ band: ${dark}`);
  // The characters sit on ICAO's 2.54 mm grid: the composite digit, last of line 2, is inked at
  // the right end of the MRZ box, and nothing is printed right of the box.
  const [, topRight, bottomRight] = td3.mrzCorners;
  const pitch = 2.54 * 11.2;
  const ink = async (left: number) => {
    const px = await sharp(td3.image).extract({ left: Math.round(left), top: Math.round((topRight![1] + bottomRight![1]) / 2), width: Math.round(pitch), height: Math.round((bottomRight![1] - topRight![1]) / 2) }).greyscale().raw().toBuffer();
    return px.filter((v) => v < 90).length;
  };
  assert.ok((await ink(bottomRight![0] - pitch)) > 20, 'the last character is inside the box');
  assert.equal(await ink(bottomRight![0] + 2), 0, 'nothing right of the box');
});

test('the portrait crop frames the skin-coloured blob, not the skin-toned band along the edge', async () => {
  const { faceCropBox } = await import('../../packages/engine/src/generator/face-crop.ts');
  const [w, h] = [120, 160];
  const rgb = new Uint8Array(w * h * 3);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = (y * w + x) * 3;
      // A face-like ellipse centred at (70, 60), 30 wide and 40 tall; a wooden band down the left edge.
      const face = ((x - 70) / 15) ** 2 + ((y - 60) / 20) ** 2 <= 1;
      const band = x < 12;
      const [r, g, b] = face || band ? [200, 150, 120] : [40, 60, 140];
      rgb.set([r, g, b], i);
    }
  }
  const box = faceCropBox(rgb, w, h)!;
  assert.ok(box);
  assert.ok(Math.abs(box.width / box.height - 0.75) < 0.03);
  assert.ok(Math.abs(box.left + box.width / 2 - 70) <= 2, `centre x ${box.left + box.width / 2}`);
  assert.ok(box.top < 40 && box.top + box.height > 80);
  // A photo without skin tones gives no box (the caller then uses a saliency crop).
  assert.equal(faceCropBox(new Uint8Array(w * h * 3).fill(90), w, h), null);
});
