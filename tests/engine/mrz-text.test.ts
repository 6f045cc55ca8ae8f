import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FIXTURES_DIR, composeMrz, correctMrz, mrzDateToIso, parseMrz, type DocumentFields, type MrzFormat } from '../../packages/engine/src/index.ts';

const NOW = new Date('2026-01-01T00:00:00Z');
const expectedPath = join(FIXTURES_DIR, 'documents/expected.json');
if (!existsSync(expectedPath)) throw new Error(`document fixtures not found at ${expectedPath}`);
const expected = Object.entries(JSON.parse(readFileSync(expectedPath, 'utf8')) as Record<string, string[]>).filter(([k]) => !k.startsWith('_'));

const TD3 = ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO7408122F1204159ZE184226B<<<<<10'];
const TD2 = ['I<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'D231458907UTO7408122F1204159<<<<<<<6'];
// ICAO Doc 9303 specimens: TD1 (part 5), MRV-A and MRV-B (part 7).
const TD1 = ['I<UTOD231458907<<<<<<<<<<<<<<<', '7408122F1204159UTO<<<<<<<<<<<6', 'ERIKSSON<<ANNA<MARIA<<<<<<<<<<'];
const MRVA = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L8988901C4XXX4009078F96121096ZE184226B<<<<<<'];
const MRVB = ['V<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<', 'L8988901C4XXX4009078F9612109<<<<<<<<'];

const parse = (lines: string[], allowSpecimen = true) => parseMrz(lines, { allowSpecimen, now: NOW });

test('every MRZ of expected.json parses with all check digits valid; UTO is a valid code only with allowSpecimen', () => {
  assert.ok(expected.length >= 6);
  for (const [name, lines] of expected) {
    const sandbox = parse(lines, true);
    assert.ok(sandbox, name);
    assert.equal(sandbox.checkDigitsValid, true, name);
    assert.deepEqual(sandbox.failedCheckDigits, []);
    assert.equal(sandbox.codesValid, true, name);
    const live = parse(lines, false)!;
    assert.equal(live.specimen, lines[0]!.slice(2, 5) === 'UTO', name);
    assert.equal(live.codesValid, !live.specimen, name);
  }
});

test('TD3 fields are normalised: names split on <<, dates with their century, sex, optional data', () => {
  const r = parse(TD3)!;
  assert.equal(r.format, 'TD3');
  assert.deepEqual(r.fields, {
    document_code: 'P', issuing_country: 'UTO', document_number: 'L898902C3', surname: 'ERIKSSON', given_names: 'ANNA MARIA',
    nationality: 'UTO', birth_date: '1974-08-12', sex: 'F', expiry_date: '2012-04-15', optional_data: 'ZE184226B',
  });
  assert.equal(r.specimen, true);
});

test('ICAO specimens of TD1 and of both visa formats parse with every check digit', () => {
  for (const [lines, format] of [[TD1, 'TD1'], [TD2, 'TD2'], [MRVA, 'MRVA'], [MRVB, 'MRVB']] as const) {
    const r = parse([...lines])!;
    assert.equal(r.format, format);
    assert.equal(r.checkDigitsValid, true, format);
    assert.equal(r.fields.surname, 'ERIKSSON');
    assert.equal(r.fields.given_names, 'ANNA MARIA');
  }
  const visa = parse(MRVA)!;
  assert.equal(visa.fields.nationality, 'XXX'); // stateless: an ICAO code, valid
  assert.equal(visa.codesValid, true);
  assert.equal(visa.fields.birth_date, '1940-09-07');
  assert.equal(visa.fields.expiry_date, '1996-12-10');
  // Visas have no composite check digit: a change in the optional data goes unseen by check digits.
  assert.equal(parse([MRVB[0]!, MRVB[1]!.slice(0, 28) + 'ABC<<<<<'])!.checkDigitsValid, true);
});

test('the French identity card (2×36, not ICAO) parses with its own check digits', () => {
  const r = parse(['IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<', '9409923102854CORINNE<<<<<<<6512068F4'])!;
  assert.equal(r.checkDigitsValid, true);
  assert.deepEqual([r.fields.surname, r.fields.given_names, r.fields.birth_date, r.fields.nationality], ['BERTHIER', 'CORINNE', '1965-12-06', 'FRA']);
  assert.deepEqual(parse(['IDFRABERTHIER<<<<<<<<<<<<<<<<<<<<<<<', '9409923102854CORINNE<<<<<<<6512068F5'])!.failedCheckDigits, ['composite']);
});

test('compose then parse gives back the fields, in every format, transliterating names', () => {
  const fields: DocumentFields = {
    issuing_country: 'D', document_number: 'C01X00T47', surname: 'Jäger-Ørsted', given_names: "Zoë D'Arcy", nationality: 'D',
    birth_date: '1964-08-12', sex: 'X', expiry_date: '2031-10-31', optional_data: 'AB12',
  };
  for (const format of ['TD1', 'TD2', 'TD3', 'MRVA', 'MRVB'] as MrzFormat[]) {
    const lines = composeMrz(format, fields);
    const r = parse(lines, false)!;
    assert.equal(r.format, format);
    assert.equal(r.checkDigitsValid, true, format);
    assert.equal(r.codesValid, true);
    assert.equal(r.fields.document_number, 'C01X00T47');
    assert.equal(r.fields.surname, 'JAEGER OERSTED');
    assert.equal(r.fields.given_names, 'ZOE DARCY');
    assert.equal(r.fields.sex, 'X');
    assert.equal(r.fields.birth_date, '1964-08-12');
    assert.equal(r.fields.expiry_date, '2031-10-31');
    assert.equal(r.fields.optional_data, 'AB12');
  }
  // Too long for the name field: given names are truncated first.
  const truncated = parse(composeMrz('TD1', { ...fields, surname: 'Müller-Lüdenscheidt' }))!;
  assert.deepEqual([truncated.fields.surname, truncated.fields.given_names], ['MUELLER LUEDENSCHEIDT', 'ZOE DAR']);
  // TD1 numbers longer than 9 characters continue in the optional data, check digit after them.
  const long = composeMrz('TD1', { ...fields, document_number: 'ABC1234567890' });
  assert.equal(long[0]![14], '<');
  const r = parse(long)!;
  assert.equal(r.checkDigitsValid, true);
  assert.equal(r.fields.document_number, 'ABC1234567890');
  assert.equal(r.fields.optional_data, 'AB12');
});

test('century rule: birth dates in the past, expiry dates up to 20 years ahead', () => {
  assert.equal(mrzDateToIso('740812', 'birth', NOW), '1974-08-12');
  assert.equal(mrzDateToIso('050101', 'birth', NOW), '2005-01-01');
  assert.equal(mrzDateToIso('270101', 'birth', NOW), '1927-01-01');
  assert.equal(mrzDateToIso('450101', 'expiry', NOW), '2045-01-01');
  assert.equal(mrzDateToIso('470101', 'expiry', NOW), '1947-01-01');
  assert.equal(mrzDateToIso('741312', 'birth', NOW), undefined);
  assert.equal(mrzDateToIso('7408<<', 'birth', NOW), undefined);
});

test('lines of no MRZ shape or outside the MRZ alphabet are refused', () => {
  assert.equal(parse([TD3[0]!, TD3[1]!.slice(1)]), null);
  assert.equal(parse([TD3[0]!.replace('A', 'a').toLowerCase().replace('<', ' ')]), null);
  assert.equal(parse(['P<UTO', 'L898']), null);
});

test('a single OCR confusion in the document number is corrected when only one correction fits', () => {
  const read = [TD3[0]!, TD3[1]!.replace('L898902C3', 'L8989O2C3')];
  const r = parse(read)!;
  assert.deepEqual(r.failedCheckDigits, ['document_number', 'composite']);
  const fixed = parseMrz(read, { allowSpecimen: true, correct: true, now: NOW })!;
  assert.equal(fixed.checkDigitsValid, true);
  assert.equal(fixed.corrections, 1);
  assert.deepEqual(fixed.lines, TD3);
  // TD1: a digit read as a letter in a number whose other characters have no look-alike.
  const lines = composeMrz('TD1', { issuing_country: 'EST', document_number: '347957749', surname: 'Tamm', nationality: 'EST', birth_date: '1990-03-04', sex: 'M', expiry_date: '2030-01-01' });
  const td1 = correctMrz([lines[0]!.replace('347957749', '3479S7749'), lines[1]!, lines[2]!]);
  assert.deepEqual([td1.lines, td1.corrections, td1.ambiguous], [lines, 1, false]);
  // The ICAO TD1 specimen's number D23145890 read with I for 1: B for 8 would satisfy the same
  // check digit (and the composite, which weighs the number the same way), so nothing is changed.
  const specimen = correctMrz([TD1[0]!.replace('D23145890', 'D23I45890'), TD1[1]!, TD1[2]!]);
  assert.deepEqual([specimen.corrections, specimen.ambiguous], [0, true]);
});

test('field types fix letters in dates and digits in codes and names without any check digit', () => {
  const read = ['P<UT0ERIKSS0N<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'L898902C36UTO74O8I22F12O4159ZE184226B<<<<<1O'];
  const r = correctMrz(read);
  assert.deepEqual(r.lines, TD3);
  assert.equal(r.corrections, 6);
});

test('ambiguous corrections are not applied: two confusions would satisfy the same check digits', () => {
  // Z and 2 sit at positions of equal weight: Z→2 at either one passes both the check and the composite.
  const read = [TD3[0]!, TD3[1]!.replace('ZE184226B', 'ZE1842Z6B')];
  const r = correctMrz(read);
  assert.equal(r.ambiguous, true);
  assert.equal(r.corrections, 0);
  assert.deepEqual(r.lines, read);
  assert.equal(parseMrz(read, { allowSpecimen: true, correct: true, now: NOW })!.checkDigitsValid, false);
});

test('a composite failure alone is detected, and left alone when no confusion explains it', () => {
  const read = [TD2[0]!, TD2[1]!.slice(0, 28) + 'AB<<<<<6'];
  const r = parse(read)!;
  assert.deepEqual(r.failedCheckDigits, ['composite']);
  assert.equal(r.checkDigitsValid, false);
  const c = correctMrz(read);
  assert.deepEqual([c.corrections, c.lines], [0, read]);
  // A confusion in the composite-only optional data of TD1 is corrected through the composite alone.
  const td1 = composeMrz('TD1', { issuing_country: 'FRA', document_number: 'X4RTBPFW4', surname: 'Martin', given_names: 'Maëlys', nationality: 'FRA', birth_date: '1995-07-13', sex: 'F', expiry_date: '2030-02-11', optional_data: '7753' });
  const misread = [td1[0]!.replace('7753', '77S3'), td1[1]!, td1[2]!];
  assert.deepEqual(parse(misread)!.failedCheckDigits, ['composite']);
  assert.deepEqual(correctMrz(misread).lines, td1);
});

test('check digits cannot see a swap of letters with the same value (C/M/W, E/O/Y…): it is the reader\'s job', () => {
  // C (12) read as M (22) in the document number, E (14) read as Y (34) in the optional data:
  // every check digit and the composite still pass, and correction has nothing to act on.
  const misread = [TD3[0]!, TD3[1]!.replace('L898902C3', 'L898902M3').replace('ZE184226B', 'ZY184226B')];
  const r = parseMrz(misread, { allowSpecimen: true, correct: true, now: NOW })!;
  assert.equal(r.checkDigitsValid, true);
  assert.equal(r.corrections, 0);
  assert.equal(r.fields.document_number, 'L898902M3'); // wrong, and undetectable here
  // Names carry no check digit at all (outside the French card): any letter swap passes.
  assert.equal(parse([TD3[0]!.replace('ERIKSSON', 'ERIKSSQN'), TD3[1]!])!.checkDigitsValid, true);
});

test('country codes: ICAO extras are valid, unknown codes are not, a misread digit is mended to the valid code', () => {
  const germany = composeMrz('TD3', { issuing_country: 'D', document_number: 'C01X00T47', surname: 'Mustermann', given_names: 'Erika', nationality: 'D', birth_date: '1964-08-12', sex: 'F', expiry_date: '2030-01-01' });
  assert.equal(germany[0]!.slice(2, 5), 'D<<');
  assert.equal(parse(germany, false)!.codesValid, true);
  for (const code of ['GBD', 'UNO', 'XXA', 'EUE', 'RKS']) {
    const lines = composeMrz('TD2', { issuing_country: code, document_number: '123456789', surname: 'A', nationality: code, birth_date: '1990-01-01', sex: 'M', expiry_date: '2030-01-01' });
    assert.equal(parse(lines, false)!.codesValid, true, code);
  }
  const unknown = [TD3[0]!.replace('UTO', 'ZZQ'), TD3[1]!];
  assert.equal(parse(unknown)!.codesValid, false);
  // '0' in a code could be O, D or Q: only O makes N0R a valid code.
  const nor = composeMrz('TD3', { issuing_country: 'NOR', document_number: '123456789', surname: 'Nordmann', given_names: 'Kari', nationality: 'NOR', birth_date: '1980-05-05', sex: 'F', expiry_date: '2029-01-01' });
  assert.deepEqual(correctMrz([nor[0]!.replace('NOR', 'N0R'), nor[1]!]).lines, nor);
});
