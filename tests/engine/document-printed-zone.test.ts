import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { gunzipSync } from 'node:zlib';
import { mrzName } from '@idv/domain';
import type { DocumentFields, MrzReading } from '../../packages/engine/src/types.ts';
import { linesOfTsv, printedZoneReport, readPrintedZone } from '../../packages/engine/src/document/printed-zone.ts';
import { cropImage } from '../../packages/engine/src/document/crop.ts';
import { lineDistance, linesToReread, substringDistance } from '../../packages/engine/src/document/printed-zone-reread.ts';
import { closeOcrReaders, englishModelPath } from '../../packages/engine/src/document/ocr-worker.ts';
import { agreementWithMrz, containsWithinOneEdit, isMrzLike, unconfused, withinOneEdit } from '../../packages/engine/src/document/printed-zone-match.ts';
import { findDate, normaliseOcrText } from '../../packages/engine/src/document/printed-dates.ts';
import { dropHairlines } from '../../packages/engine/src/document/hairlines.ts';
import { framedPgm } from '../../packages/engine/src/document/pgm.ts';
import { toSharp } from '../../packages/engine/src/document/decode.ts';
import { generateDocument } from '../../packages/engine/src/generator/generate.ts';
import { randomIdentity } from '../../packages/engine/src/generator/identity.ts';
import { FIXTURES_DIR, portraitFixtures } from '../../packages/engine/src/generator/fixtures.ts';

const DOCS = join(FIXTURES_DIR, 'documents');
if (!existsSync(DOCS)) throw new Error(`document fixtures not found at ${DOCS}`);

const reading = (fields: DocumentFields): MrzReading => ({
  format: 'TD3',
  lines: [],
  fields,
  checkDigitsValid: true,
  failedCheckDigits: [],
  corrections: 0,
  codesValid: true,
  specimen: true,
  confidence: 1,
});
// What the MRZ of the ICAO specimens holds (../shared/fixtures/documents/expected.json).
const ERIKSSON: DocumentFields = { surname: 'ERIKSSON', given_names: 'ANNA MARIA', birth_date: '1974-08-12', expiry_date: '2012-04-15', nationality: 'UTO', sex: 'F' };

after(closeOcrReaders);

describe('printed dates and matching (pure)', () => {
  test('dates in the printed forms documents use', () => {
    const iso = '1974-08-12';
    for (const printed of ['12.08.1974', '12/08/1974', '12 08 1974', '1974-08-12', '12 AUG 1974', '12 AUGUST/AOUT 74', '12 août 1974', '12 AUG/AQUT 74', '08/12/1974', '12081974']) {
      assert.ok(findDate(normaliseOcrText(`Date of birth ${printed} Place`), iso), printed);
    }
    for (const other of ['13.08.1974', '12.09.1974', '12 SEP 1974', '12.08.1975', '112.08.1974']) {
      assert.ok(!findDate(normaliseOcrText(`Date of birth ${other}`), iso), other);
    }
  });

  test('MRZ lines read by tesseract are not the printed zone', () => {
    assert.ok(isMrzLike('P<UTOERIKSSON<<ANNA<KMARIA<K<LLLKLLLLLLLLLLKKLKLK'));
    assert.ok(isMrzLike('7409244M2309202UT0<<K<<LKLLLLKKK?'));
    assert.ok(isMrzLike('IDFRABERTHIER<K<KKLKKLLLLLLLLLLLLLLLLLLKL'));
    assert.ok(!isMrzLike('Date of expiry/ Date d’expiration Holder\'s signature'));
    // A value present only in the MRZ does not agree.
    const text = 'Surname\nERIKSSON\nP<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<\nL898902C36UTO7408122F1204159ZE184226B<<<<<10';
    const a = agreementWithMrz(text, { ...ERIKSSON, document_number: 'L898902C3' });
    assert.deepEqual([a.surname, a.given_names, a.document_number, a.birth_date], ['agree', 'differ', 'differ', 'differ']);
  });

  test('names through transliteration, numbers through OCR confusions', () => {
    const a = agreementWithMrz('Nom / Surname\nMÜLLER-LÜDENSCHEIDT\nPrénoms\nJÖRG PETER\nNo 0C5I8B', { surname: 'MUELLER<LUEDENSCHEIDT', given_names: 'JOERG PETER', document_number: 'OC518B' });
    assert.deepEqual([a.surname, a.given_names, a.document_number], ['agree', 'agree', 'agree']);
    assert.equal(unconfused('C0GKJLBB9'), unconfused('COGKJ1889'));
    assert.equal(agreementWithMrz('MANNIK', { surname: 'MAENNIK' }).surname, 'agree'); // Ä read as A
    assert.deepEqual(Object.values(agreementWithMrz('anything', null)), Array(7).fill('absent'));
  });

  test('one OCR slip is tolerated in long names and numbers, never in dates', () => {
    assert.ok(withinOneEdit('ZTURK', 'OZTURK') && withinOneEdit('JOHANSON', 'JOHANSSON') && withinOneEdit('KOWALSKA', 'KOWALSKI'));
    assert.ok(!withinOneEdit('ANDERSSON', 'ERIKSSON') && !withinOneEdit('KOWALSKI', 'KOWALCZYK'));
    assert.ok(containsWithinOneEdit('PASSPORTMK2864060', 'MK8864060'));
    assert.ok(containsWithinOneEdit('PASSPORTNOYM00597008', 'YM0597008')); // a round letter read twice
    assert.ok(containsWithinOneEdit('NO.YM059700', 'YM0597008')); // the last character lost
    assert.ok(!containsWithinOneEdit('PASSPORTMK2864000', 'MK8864060'));
    assert.ok(!containsWithinOneEdit('NO.YM00597108', 'YM0597008'));
    assert.ok(!containsWithinOneEdit('NO12345', '12346')); // short numbers stay exact
    // Ö read as 6 against the MRZ's OE: the digraph folded before the one edit.
    assert.equal(agreementWithMrz('Surname\n6ZTURK', { surname: 'OEZTUERK' }).surname, 'agree');
    assert.equal(agreementWithMrz('Surname\n6ZTORK', { surname: 'OEZTUERK' }).surname, 'differ');
    const a = agreementWithMrz('Surname\nJOHANSON\nGiven names\nOSKAR\nDate of birth 25.01.1955\nPassport No MK2864060', { surname: 'JOHANSSON', given_names: 'OSKAR', birth_date: '1954-01-25', document_number: 'MK8864060' });
    assert.deepEqual([a.surname, a.given_names, a.birth_date, a.document_number], ['agree', 'agree', 'differ', 'agree']);
  });
});

describe('the hairlines taken out before the first pass', () => {
  // A page at OCR_WIDTH's scale, ink 0 on paper 255, drawn pixel by pixel.
  const W = 200;
  const H = 100;
  const page = () => ({ data: Buffer.alloc(W * H, 255), width: W, height: H, channels: 1 as const });
  const ink = (img: ReturnType<typeof page>, x0: number, y0: number, x1: number, y1: number) => {
    for (let y = y0; y < y1; y++) for (let x = x0; x < x1; x++) img.data[y * W + x] = 0;
  };
  const inkAt = (img: { data: Buffer }, x: number, y: number) => img.data[y * W + x] === 0;

  test('a guilloche hairline and a speck go; a letter, a full stop and print a hairline runs through stay', async () => {
    const img = page();
    ink(img, 10, 5, 90, 6); // a hairline 80 px long, 1 px thick
    for (let x = 100; x < 140; x++) img.data[(5 + Math.floor((x - 100) / 4)) * W + x] = 0; // a slanted one
    ink(img, 150, 5, 151, 6); // a speck
    ink(img, 10, 30, 14, 55); // an "L": its upright, 4 px thick,
    ink(img, 10, 51, 26, 55); // and its foot
    ink(img, 30, 52, 33, 55); // a full stop, 3 × 3
    ink(img, 60, 30, 65, 60); // a stroke 5 px thick, 30 high,
    ink(img, 40, 45, 190, 46); // with a hairline 150 px long through it: one piece, a tangle
    const out = await dropHairlines(img);
    assert.equal(inkAt(out, 50, 5), false, 'the hairline');
    assert.equal(inkAt(out, 120, 10), false, 'the slanted hairline');
    assert.equal(inkAt(out, 150, 5), false, 'the speck');
    for (const [x, y] of [[10, 30], [13, 54], [25, 52], [31, 53]] as const) assert.equal(inkAt(out, x, y), true, `letter or full stop at ${x},${y}`);
    for (let y = 30; y < 60; y++) for (let x = 60; x < 65; x++) assert.equal(inkAt(out, x, y), true, `the stroke at ${x},${y}`);
    assert.equal(inkAt(out, 45, 45), false, 'the hairline off the stroke, left');
    assert.equal(inkAt(out, 150, 45), false, 'the hairline off the stroke, right');
    assert.deepEqual([img.width, img.height, img.channels], [out.width, out.height, out.channels]);
  });

  test('refuses an image that is not one channel', async () => {
    await assert.rejects(dropHairlines({ data: Buffer.alloc(12), width: 2, height: 2, channels: 3 }), /one-channel/);
  });
});

describe('the page handed to the OCR', () => {
  test('a PGM file with the same pixels and frame as sharp makes them, white or its edges repeated', async () => {
    const width = 7;
    const height = 5;
    const data = Buffer.from(Array.from({ length: width * height }, (_, i) => (i * 37) % 251));
    const image = { data, width, height, channels: 1 as const };
    for (const frame of ['white', 'copy'] as const) {
      const pgm = framedPgm(image, 3, frame);
      const header = 'P5\n13 11\n255\n';
      assert.equal(pgm.subarray(0, header.length).toString('ascii'), header);
      const extend = frame === 'copy' ? { extendWith: 'copy' as const } : { background: { r: 255, g: 255, b: 255 } };
      // (sharp's white frame makes the image RGB, grey in each channel: its first is compared)
      const expected = await toSharp(image).extend({ top: 3, bottom: 3, left: 3, right: 3, ...extend }).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
      assert.deepEqual([expected.info.width, expected.info.height, expected.info.channels], [13, 11, 1]);
      assert.deepEqual(pgm.subarray(header.length), expected.data, frame);
    }
    assert.throws(() => framedPgm({ data: Buffer.alloc(12), width: 2, height: 2, channels: 3 }, 1, 'white'), /grey/);
  });
});

describe('the second reading: which lines again (pure)', () => {
  const page = { width: 1000, height: 630 };
  const line = (text: string, y: number, x0 = 100, x1 = 300) => ({ text, box: { x0, y0: y, x1, y1: y + 24 } });
  const lines = [
    line('Surname / Nom', 100),
    line('PORSSON-JAGER', 130),
    line('Date of birth / Date de naissance', 170),
    line('14.01.1987', 200),
    line('Date of expiry / Date d expiration', 230),
    line('— 06.0', 260, 100, 170),
    line('8.2031', 260, 180, 260),
    line('Passport No.', 290),
    line('SAiUsBG =', 320),
    line('P<ITATHORSSON<JAEGER<<OLAFUR<MARIE<CLAIRE<<<<', 500, 40, 960),
  ];

  test('how far a line is from holding a value: approximate substring matching, per kind of field', () => {
    assert.equal(substringDistance('JAEGER', 'THORSSONJAEGERX'), 0);
    assert.equal(substringDistance('THORSSON', 'PORSSONJAGER'), 2);
    assert.equal(substringDistance('THORSSON', ''), 8);
    assert.equal(substringDistance('', 'ANY'), 0);
    assert.equal(lineDistance({ field: 'birth_date', value: '1987-01-14' }, '-- 14.01.1987'), 0);
    assert.equal(lineDistance({ field: 'birth_date', value: '1959-11-04' }, ': ~ oa. 11.1959'), 1 / 8); // o read for 0, a for 4
    assert.equal(lineDistance({ field: 'document_number', value: '6AIJUSUBG' }, 'SAiUsBG ='), 3 / 9); // folded: 6A1JU5U8G against 5A1U58G
    assert.equal(lineDistance({ field: 'surname', value: 'THORSSON<JAEGER' }, 'PORSSON-JAGER'), 3 / 14);
    assert.equal(lineDistance({ field: 'surname', value: 'THORSSON' }, ''), 1);
  });

  test('the closest lines to each missed value, joined with their row, grown by a margin, never the MRZ', () => {
    // The expiry date split in two on its row: both halves in one box.
    assert.deepEqual(linesToReread(lines, [{ field: 'expiry_date', value: '2031-08-06' }], page), [{ x0: 92, y0: 250, x1: 268, y1: 294 }]);
    // A date whose middle the first pass did not find (`06` … `1965`): its pieces, up to three
    // line heights apart on the row, are read again together; a line further away is not.
    const pieces = [line('Born', 400, 100, 160), line('06', 400, 240, 280), line('1965', 400, 340, 420)];
    assert.deepEqual(linesToReread(pieces, [{ field: 'birth_date', value: '1965-12-06' }], page), [{ x0: 232, y0: 390, x1: 428, y1: 434 }]);
    // The name's line, not the MRZ that holds it exactly; at most two lines a field.
    const name = linesToReread(lines, [{ field: 'surname', value: 'THORSSON<JAEGER' }], page)!;
    assert.deepEqual(name[0], { x0: 92, y0: 120, x1: 308, y1: 164 });
    assert.ok(name.length <= 2 && name.every((b) => b.y0 < 480));
    assert.deepEqual(linesToReread(lines, [{ field: 'document_number', value: '6AIJUSUBG' }], page)?.[0], { x0: 92, y0: 310, x1: 308, y1: 354 });
    // Boxes stay inside the page.
    assert.deepEqual(linesToReread([{ text: '12.03.1990', box: { x0: 2, y0: 1, x1: 998, y1: 30 } }], [{ field: 'birth_date', value: '1990-03-12' }], page), [{ x0: 0, y0: 0, x1: 1000, y1: 42 }]);
  });

  test('no line close to the value: the page is read instead', () => {
    assert.equal(linesToReread(lines, [], page), null);
    assert.equal(linesToReread([line('Date of birth', 100), line('NLD', 130)], [{ field: 'birth_date', value: '1975-01-22' }], page), null);
    assert.equal(linesToReread([], [{ field: 'surname', value: 'SMITH' }], page), null);
  });

  test("tesseract's TSV as lines, the OCR margin taken off; a crop is the box's pixels", () => {
    const tsv = ['level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext', '4\t1\t1\t1\t1\t0\t66\t116\t200\t30\t-1\t', '5\t1\t1\t1\t1\t1\t66\t116\t90\t30\t91\t19.12.2030', '5\t1\t1\t1\t1\t2\t170\t116\t96\t30\t60\tNLD', '4\t1\t2\t1\t1\t0\t10\t10\t5\t5\t-1\t'].join('\n');
    assert.deepEqual(linesOfTsv(tsv, page), [{ text: '19.12.2030 NLD', box: { x0: 50, y0: 100, x1: 250, y1: 130 } }]);
    const image = { data: Buffer.from(Array.from({ length: 12 }, (_, i) => i)), width: 4, height: 3, channels: 1 as const };
    assert.deepEqual([...cropImage(image, { x0: 1, y0: 1, x1: 3, y1: 3 }).data], [5, 6, 9, 10]);
  });
});

describe('printed zone OCR (tesseract.js, local English model)', () => {
  test("the English model read is tessdata_fast's, from the repository, the file its README names", () => {
    const dir = englishModelPath();
    assert.ok(dir.endsWith(join('packages', 'engine', 'models', 'tessdata-fast')), dir);
    const model = gunzipSync(readFileSync(join(dir, 'eng.traineddata.gz')));
    const sha256 = createHash('sha256').update(model).digest('hex');
    assert.ok(readFileSync(join(dir, 'README.md'), 'utf8').includes(sha256), `README.md names ${sha256}`);
    assert.equal(sha256, '7d4322bd2a7749724879683fc3912cb542f19906c83bcc1a52132556427170b2');
  });

  test('the ICAO specimen passport agrees with its MRZ on every decisive field and nationality', async () => {
    const bytes = readFileSync(join(DOCS, 'passporteye/passport-td3.jpg'));
    const { agreement, report, scopes } = await readPrintedZone(bytes, reading({ ...ERIKSSON, document_number: 'L898902C3' }));
    // The first pass misses the birth date (`12 AUGUST/AOUT 74` broken by the threshold); its line,
    // cropped from the grey page and read alone, shows it: the page is not read a second time. (With
    // a white frame around the grey crop, tesseract's threshold took the tinted background for ink.)
    assert.deepEqual(scopes, ['page', 'lines']);
    const { sex, ...others } = agreement;
    assert.deepEqual(others, { surname: 'agree', given_names: 'agree', birth_date: 'agree', document_number: 'agree', expiry_date: 'agree', nationality: 'agree' });
    assert.notEqual(sex, 'differ'); // a lone letter among labels: found or not, never a difference
    assert.deepEqual([report.type, report.status, report.reasons], ['printed_zone', 'ok', []]);
    assert.ok(report.measures.characters_read! > 100);
    assert.ok(!JSON.stringify(report).includes('ERIKSSON'));

    // The same photo against an MRZ saying something else: those fields differ.
    const forged = await readPrintedZone(bytes, reading({ ...ERIKSSON, document_number: 'L898902C3', surname: 'ANDERSSON', birth_date: '1975-08-12' }));
    assert.deepEqual([forged.agreement.surname, forged.agreement.birth_date, forged.agreement.given_names], ['differ', 'differ', 'agree']);
    assert.deepEqual([forged.report.status, forged.report.reasons], ['attention', ['printed_zone_differs']]);
  });

  test('generated TD1 and TD3 documents agree on their decisive fields', async () => {
    const portraits = portraitFixtures();
    for (const seed of [24, 25, 27]) {
      const fields = randomIdentity(seed);
      const doc = await generateDocument({ format: seed % 2 ? 'TD1' : 'TD3', fields, portrait: readFileSync(portraits[seed % portraits.length]!), seed });
      // The MRZ holds names transliterated, words joined by `<`.
      const mrz = { ...fields, surname: mrzName(fields.surname!), given_names: mrzName(fields.given_names!) };
      const { agreement, report } = await readPrintedZone(doc.image, reading(mrz));
      for (const f of ['surname', 'given_names', 'birth_date', 'document_number', 'expiry_date'] as const) assert.equal(agreement[f], 'agree', `seed ${seed} ${f}`);
      assert.equal(report.status, 'ok');
    }
  });

  test('a misread field is found by reading its line again alone; a page whose lines are not enough is read whole again', async () => {
    const portraits = portraitFixtures();
    // Seed 2026: the first pass reads the document number L4SQD4WAS as "{SL ~ HASQDAWAS".
    const fields = randomIdentity(2026);
    const doc = await generateDocument({ format: 'TD3', fields, portrait: readFileSync(portraits[2026 % portraits.length]!), seed: 2026 });
    const generated = await readPrintedZone(doc.image, reading({ ...fields, surname: mrzName(fields.surname!), given_names: mrzName(fields.given_names!) }));
    assert.deepEqual(generated.scopes, ['page', 'lines']);
    assert.equal(generated.agreement.document_number, 'agree');
    assert.equal(generated.report.status, 'ok');
    // A worn specimen: the first pass found its birth date's day and year, not the month between
    // them; the row read again whole shows it.
    const specimen = await readPrintedZone(readFileSync(join(DOCS, 'image-js/id1.jpg')), reading({ surname: 'BERTHIER', given_names: 'CORINNE', document_number: '940992310285', birth_date: '1965-12-06' }));
    assert.deepEqual(specimen.scopes, ['page', 'lines']);
    assert.deepEqual([specimen.agreement.surname, specimen.agreement.birth_date, specimen.agreement.document_number], ['agree', 'agree', 'agree']);
    // Seed 68: the first pass found no line of the expiry date (its label's block swallowed it);
    // the closest line is the birth date's, which does not show it, so the grey page is read too.
    const hidden = randomIdentity(68);
    const worn = await generateDocument({ format: 'TD3', fields: hidden, portrait: readFileSync(portraits[68 % portraits.length]!), seed: 68 });
    const read = await readPrintedZone(worn.image, reading({ ...hidden, surname: mrzName(hidden.surname!), given_names: mrzName(hidden.given_names!) }));
    assert.deepEqual(read.scopes, ['page', 'lines', 'page']);
    assert.equal(read.agreement.expiry_date, 'agree');
  });

  test('a photo without print is unreadable, and nothing differs', async () => {
    const { agreement, report } = await readPrintedZone(readFileSync(join(DOCS, 'passporteye/pacman.jpg')), reading(ERIKSSON));
    assert.deepEqual(report.reasons, ['printed_zone_unreadable']);
    assert.ok(Object.values(agreement).every((a) => a === 'absent'));
  });

  test('a legible zone where the MRZ gave nothing to look for compares nothing, and nothing compared is not a pass', () => {
    const page = { text: 'REPUBLIQUE FRANCAISE\nCARTE NATIONALE D IDENTITE\nNom Prenoms Sexe Ne le', confidence: 80, lines: [], scope: 'page' as const };
    const { agreement, report } = printedZoneReport([page], reading({}));
    assert.ok(Object.values(agreement).every((a) => a === 'absent'));
    assert.deepEqual([report.status, report.reasons, report.measures.fields_agree], ['attention', ['printed_zone_not_compared'], 0]);
  });
});
