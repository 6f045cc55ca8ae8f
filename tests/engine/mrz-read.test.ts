import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { FIXTURES_DIR, portraitFixtures } from '../../packages/engine/src/generator/fixtures.ts';
import { generateDocument } from '../../packages/engine/src/generator/generate.ts';
import { randomIdentity } from '../../packages/engine/src/generator/identity.ts';
import { MRZ_ACCEPT_CONFIDENCE, readMrz, readMrzDetailed } from '../../packages/engine/src/mrz/read.ts';

const DOCUMENTS = join(FIXTURES_DIR, 'documents');
if (!existsSync(join(DOCUMENTS, 'expected.json'))) throw new Error(`document fixtures not found in ${DOCUMENTS}`);
const expected = JSON.parse(readFileSync(join(DOCUMENTS, 'expected.json'), 'utf8')) as Record<string, string[]>;
const fixture = (name: string) => readFileSync(join(DOCUMENTS, name));

/** The specimens with known lines that this reader reads (see bench/checks/mrz.ts for all). */
const READ_EXACTLY = [
  'passporteye/passport-td3.png',
  'passporteye/passport-td3.jpg',
  'passporteye/passport-td2.png',
  'passporteye/passport-td2.jpg',
  'image-js/id1.jpg',
  'image-js/id2.jpg',
];

for (const name of READ_EXACTLY) {
  test(`specimen ${name} reads exactly its expected lines, every check digit valid`, async () => {
    const detail = await readMrzDetailed(fixture(name), { allowSpecimen: true });
    const r = detail.reading;
    assert.ok(r, 'no MRZ read');
    assert.deepEqual(r.lines, expected[name]);
    assert.equal(r.checkDigitsValid, true);
    assert.equal(r.codesValid, true);
    assert.deepEqual(detail.uncertain, []);
    assert.ok(r.confidence >= MRZ_ACCEPT_CONFIDENCE, `confidence ${r.confidence}`);
  });
}

test('a specimen code is refused outside the sandbox', async () => {
  const r = await readMrz(fixture('passporteye/passport-td3.png'), { allowSpecimen: false });
  assert.ok(r);
  assert.equal(r.specimen, true);
  assert.equal(r.codesValid, false);
});

test('a document photographed a quarter turn (and upside down) still reads', async () => {
  const name = 'image-js/id2.jpg';
  for (const angle of [90, 180]) {
    const turned = await sharp(fixture(name)).rotate(angle).jpeg({ quality: 92 }).toBuffer();
    const detail = await readMrzDetailed(turned, { allowSpecimen: true });
    assert.ok(detail.reading, `nothing read at ${angle}°`);
    assert.deepEqual(detail.reading.lines, expected[name], `at ${angle}°`);
    assert.notEqual(detail.rotation, 0);
  }
});

test('a passport photographed sideways (the fixture) reads with every check digit valid', async () => {
  const detail = await readMrzDetailed(fixture('passporteye/0_pass-lva.jpg'), { allowSpecimen: true });
  assert.ok(detail.reading, 'nothing read');
  assert.ok(detail.rotation === 90 || detail.rotation === 270, `rotation ${detail.rotation}`);
  assert.equal(detail.reading.format, 'TD3');
  assert.equal(detail.reading.checkDigitsValid, true);
  assert.equal(detail.reading.codesValid, true);
  assert.equal(detail.reading.fields.issuing_country, 'LVA');
  // Read upside down first, it makes a zone of `<` whose empty fields pass their check digits by
  // chance, every character uncertain: that settles nothing, and the quarter turns are read.
  assert.ok(detail.reads > 2, `${detail.reads} reads`);
});

test('a textured margin before the first character does not shift the grid (the HRV specimen reads, every check valid)', async () => {
  // Its red "RH" print beside the second line looks like ink: the first grid takes it for a glyph
  // and every check fails; the retry on a grid with one extra cell at the start finds the line.
  const detail = await readMrzDetailed(fixture('passporteye/100_pass-hrv.jpg'), { allowSpecimen: true });
  const r = detail.reading;
  assert.ok(r, 'nothing read');
  assert.equal(r.checkDigitsValid, true);
  assert.equal(r.codesValid, true);
  assert.equal(r.fields.issuing_country, 'HRV');
  assert.equal(r.fields.document_number, '007007007');
});

test('a card whose composite check digit is misprinted reads as printed, never accepted, not replaced by a grid that passes by chance', async () => {
  // Transcribed from the image (bench/checks/specimen-mrz.json): every field passes its own check
  // digit, the composite does not, and CMW is no ICAO code.
  const transcription = JSON.parse(readFileSync(new URL('../../bench/checks/specimen-mrz.json', import.meta.url), 'utf8')) as Record<string, string[]>;
  const detail = await readMrzDetailed(fixture('passporteye/77_card-cmw.png'), { allowSpecimen: true });
  const r = detail.reading;
  assert.ok(r, 'no MRZ read');
  assert.deepEqual(r.lines, transcription['passporteye/77_card-cmw.png']);
  assert.deepEqual(r.failedCheckDigits, ['composite']);
  assert.equal(r.checkDigitsValid, false, 'a failing check digit is never accepted');
  // Its fields passing their check digits, read mostly sure, settle the orientation: the zone is
  // read once, not again upside down and then looked for at a quarter turn each way.
  assert.deepEqual([detail.rotation, detail.flipped, detail.reads], [0, false, 1]);
});

test('a photo without a document gives null', async () => {
  const face = readFileSync(join(FIXTURES_DIR, 'faces/debian/grace_hopper_512x512.jpg'));
  assert.equal(await readMrz(face, { allowSpecimen: true }), null);
});

test('generated documents (TD3 and TD1, degraded like phone photos) read right', async () => {
  const portraits = portraitFixtures();
  assert.ok(portraits.length > 0);
  for (const [seed, format] of [[101, 'TD3'], [102, 'TD1']] as const) {
    const doc = await generateDocument({ format, fields: randomIdentity(seed), portrait: readFileSync(portraits[0]!), seed });
    const detail = await readMrzDetailed(doc.image, { allowSpecimen: true });
    assert.ok(detail.reading, `${format}: nothing read`);
    assert.deepEqual(detail.reading.lines, doc.lines, format);
    assert.equal(detail.reading.checkDigitsValid, true);
  }
});
