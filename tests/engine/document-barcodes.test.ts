import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { readBarcodes, readBarcodesDetailed } from '../../packages/engine/src/document/barcodes.ts';
import { aamvaDate, parseAamva } from '../../packages/engine/src/document/aamva.ts';
import { barcodePresenceReport, compareBarcode } from '../../packages/engine/src/document/barcode-compare.ts';
import { loadZxingWriter } from '../../packages/engine/src/document/zxing.ts';
import { FIXTURES_DIR } from '../../packages/engine/src/generator/fixtures.ts';

const SAMPLES = join(FIXTURES_DIR, 'barcodes/zxing-cpp');
if (!existsSync(SAMPLES)) throw new Error(`barcode fixtures not found at ${SAMPLES}`);

/** Every sample image with its expected text (images with only a binary `.bin` are left out). */
function samples(): { path: string; expected: string }[] {
  const out: { path: string; expected: string }[] = [];
  for (const dir of readdirSync(SAMPLES).sort()) {
    for (const f of readdirSync(join(SAMPLES, dir)).sort()) {
      if (!/\.(png|jpe?g|webp|gif)$/i.test(f)) continue;
      const txt = join(SAMPLES, dir, f.replace(/\.[^.]+$/, '.txt'));
      if (existsSync(txt)) out.push({ path: join(dir, f), expected: readFileSync(txt, 'utf8') });
    }
  }
  return out;
}

// A synthetic AAMVA (version 09) driving licence payload: fictitious person and numbers.
const US_PAYLOAD = [
  '@\n\x1e\rANSI 636014090102DL00410288ZC03290012DLDAQD1234562',
  'DCSMUSTERMANN-SMITH',
  'DDEN',
  'DACJANE',
  'DDFN',
  'DADANN',
  'DDGN',
  'DCAC',
  'DCBNONE',
  'DCDNONE',
  'DBD08152021',
  'DBB02291984',
  'DBA02282029',
  'DBC2',
  'DAU065 IN',
  'DAYBRO',
  'DAG123 MAIN STREET',
  'DAISACRAMENTO',
  'DAJCA',
  'DAK958190000  ',
  'DCF00/00/0000NNNAN/ANFD/YY',
  'DCGUSA',
  'DDAF',
  'DDB08292017',
  'DDK1\r',
  'ZCZCAY\r',
].join('\n');

const CA_PAYLOAD = ['@\n\x1e\rANSI 636012080002ID00410150ZO01910008IDDAQX12345678', 'DCSTREMBLAY', 'DACÉLODIE', 'DADNONE', 'DBB19910704', 'DBA20310704', 'DBC9', 'DCGCAN', 'DAJQC\r'].join('\n');

async function pdf417Photo(payload: string): Promise<Buffer> {
  const writer = await loadZxingWriter();
  const written = await writer.writeBarcode(payload, { format: 'PDF417', scale: 3 });
  assert.equal(written.error, '');
  const code = Buffer.from(await written.image!.arrayBuffer());
  // The back of a card on a table: the code printed on a tinted card, slightly turned, soft, JPEG.
  const card = await sharp(code).extend({ top: 120, bottom: 60, left: 60, right: 60, background: '#e8eef4' }).png().toBuffer();
  return sharp(card)
    .rotate(7, { background: '#6b5a4a' })
    .extend({ top: 80, bottom: 80, left: 80, right: 80, background: '#6b5a4a' })
    .blur(0.8)
    .jpeg({ quality: 80 })
    .toBuffer();
}

describe('barcodes', () => {
  test('zxing-cpp samples decode to their expected text', async () => {
    const all = samples();
    const missed: string[] = [];
    for (const s of all) {
      const found = await readBarcodes(readFileSync(join(SAMPLES, s.path)));
      if (found.length === 0) {
        missed.push(s.path);
        continue;
      }
      // Whatever decodes must decode right: a wrong text is worse than none.
      assert.ok(found.some((b) => b.text === s.expected), `${s.path}: decoded text differs`);
    }
    assert.ok(all.length >= 110, `only ${all.length} samples`);
    assert.deepEqual(missed, [], `not decoded: ${missed.join(', ')}`);
  });

  test('a synthetic AAMVA PDF417 photographed on a card decodes and parses', async () => {
    const found = await readBarcodes(await pdf417Photo(US_PAYLOAD));
    assert.deepEqual(found.map((b) => [b.format, b.text === US_PAYLOAD]), [['PDF417', true]]);
    assert.deepEqual(parseAamva(found[0]!.text), {
      document_code: 'DL',
      issuing_country: 'USA',
      document_number: 'D1234562',
      surname: 'MUSTERMANN-SMITH',
      given_names: 'JANE ANN',
      birth_date: '1984-02-29',
      expiry_date: '2029-02-28',
      sex: 'F',
    });
  });

  test('a Canadian ID card payload: dates CCYYMMDD, unspecified sex, no middle name', async () => {
    const found = await readBarcodes(await pdf417Photo(CA_PAYLOAD));
    assert.equal(found[0]?.text, CA_PAYLOAD);
    assert.deepEqual(parseAamva(CA_PAYLOAD), {
      document_code: 'ID',
      issuing_country: 'CAN',
      document_number: 'X12345678',
      surname: 'TREMBLAY',
      given_names: 'ÉLODIE',
      birth_date: '1991-07-04',
      expiry_date: '2031-07-04',
      sex: 'X',
    });
  });

  test('a damaged PDF417 is seen but unreadable; a passport photo holds no barcode at all', async () => {
    const code = readFileSync(join(SAMPLES, 'pdf417-1/02.png'));
    const { width = 0, height = 0 } = await sharp(code).metadata();
    const band = `<svg width="${width}" height="${height}"><rect x="${width * 0.3}" y="0" width="${width * 0.25}" height="${height}" fill="#fff"/></svg>`;
    const damaged = await sharp(code).composite([{ input: Buffer.from(band) }]).png().toBuffer();
    const reading = await readBarcodesDetailed(damaged);
    assert.deepEqual(reading.barcodes, []);
    assert.ok(reading.undecodable > 0);
    assert.deepEqual(barcodePresenceReport(0, true, reading.undecodable).reasons, ['barcode_unreadable']);
    const passport = await readBarcodesDetailed(readFileSync(join(FIXTURES_DIR, 'documents/passporteye/passport-td3.jpg')));
    assert.deepEqual(passport, { barcodes: [], undecodable: 0 });
  });

  test('AAMVA dates are strict', () => {
    assert.equal(aamvaDate('02301990', false), null); // no 30 February
    assert.equal(aamvaDate('13011990', false), null);
    assert.equal(aamvaDate('19900704', false), '1990-07-04'); // US issuer writing the Canadian form
    assert.equal(parseAamva('just some QR text'), null);
  });

  test('comparison with the MRZ or printed zone names differing fields only', () => {
    const barcode = parseAamva(US_PAYLOAD)!;
    const same = { surname: 'MUSTERMANN<SMITH', given_names: 'JANE<ANN', birth_date: '1984-02-29', document_number: 'D1234562<', sex: 'F' as const };
    const ok = compareBarcode(barcode, same);
    assert.deepEqual([ok.type, ok.status, ok.reasons, ok.measures.fields_compared, ok.measures.fields_differing], ['barcode', 'ok', [], 5, 0]);
    const other = compareBarcode(barcode, { ...same, birth_date: '1984-03-01' });
    assert.deepEqual([other.status, other.reasons, other.measures.birth_date_agrees, other.measures.surname_agrees], ['failed', ['barcode_differs'], 0, 1]);
    assert.equal(compareBarcode(barcode, { ...same, document_number: 'D1234563' }, 'printed_zone').status, 'attention');
    assert.ok(!JSON.stringify(other).includes('1984'));
    assert.deepEqual(barcodePresenceReport(0, true).reasons, ['barcode_not_found']);
    assert.equal(barcodePresenceReport(0, false).status, 'ok');
  });
});
