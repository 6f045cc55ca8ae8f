import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { mrzName } from '@idv/domain';
import { chooseCut, cutPage, MIN_SHARE } from '../../packages/engine/src/document/page-cut.ts';
import { firstOcrPass, ocrText, straightenForOcr, type OcrPass } from '../../packages/engine/src/document/printed-zone.ts';
import { agreementWithMrz, type PrintedField } from '../../packages/engine/src/document/printed-zone-match.ts';
import type { Box } from '../../packages/engine/src/document/printed-zone-reread.ts';
import { localThreshold } from '../../packages/engine/src/document/threshold.ts';
import { dropHairlines } from '../../packages/engine/src/document/hairlines.ts';
import { closeOcrReaders } from '../../packages/engine/src/document/ocr-worker.ts';
import { generateDocument } from '../../packages/engine/src/generator/generate.ts';
import { randomIdentity } from '../../packages/engine/src/generator/identity.ts';
import { FIXTURES_DIR, portraitFixtures } from '../../packages/engine/src/generator/fixtures.ts';
import type { DocumentFields } from '../../packages/engine/src/types.ts';

after(closeOcrReaders);

const line = (y0: number, y1: number, x0 = 0, x1 = 300): Box => ({ x0, y0, x1, y1 });
const cost = (b: Box) => (b.x1 - b.x0) / (b.y1 - b.y0);

describe('where a page is cut (pure)', () => {
  test('between two lines of equal cost, in the middle of the gap', () => {
    assert.equal(chooseCut([line(10, 30), line(70, 90)], 100), 50);
  });

  test('at the gap that shares the lines most evenly, not the first or the widest', () => {
    // Four equal lines: the cut falls between the second and third, though the gap after the first is wider.
    assert.equal(chooseCut([line(0, 20), line(100, 120), line(130, 150), line(160, 180)], 200), 125);
    // A wide line (the MRZ) weighs more than a short label.
    assert.equal(chooseCut([line(0, 20, 0, 100), line(30, 50, 0, 100), line(60, 80, 0, 100), line(90, 110, 0, 600)], 120), 85);
  });

  test('no cut when a side would hold too little, or there is nothing to read', () => {
    assert.equal(chooseCut([line(10, 30)], 100), null);
    assert.equal(chooseCut([line(10, 30, 0, 1000), line(60, 80, 0, 100)], 100), null);
    assert.equal(chooseCut([], 100), null);
    // Lines touching one another: no row runs between them.
    assert.equal(chooseCut([line(0, 52), line(50, 100)], 100), null);
  });

  test('any cut runs clear of every line and leaves each side its share', () => {
    const box = fc.record({ y0: fc.integer({ min: 0, max: 380 }), h: fc.integer({ min: 8, max: 60 }), x0: fc.integer({ min: 0, max: 500 }), w: fc.integer({ min: 10, max: 500 }) }).map(({ y0, h, x0, w }) => line(y0, Math.min(400, y0 + h), x0, x0 + w));
    fc.assert(
      fc.property(fc.array(box, { maxLength: 30 }), (boxes) => {
        const cut = chooseCut(boxes, 400);
        if (cut === null) return;
        for (const b of boxes) assert.ok(cut < b.y0 - 2 || cut >= b.y1 + 2, `cut ${cut} through ${JSON.stringify(b)}`);
        const total = boxes.reduce((s, b) => s + cost(b), 0);
        const above = boxes.filter((b) => b.y1 <= cut).reduce((s, b) => s + cost(b), 0);
        assert.ok(Math.min(above, total - above) >= MIN_SHARE * total - 1e-9);
      }),
    );
  });
});

/** The lines of a reading that show a decisive field's value, by field. */
function valueLines(pass: OcrPass, mrz: DocumentFields): Map<PrintedField, Box[]> {
  const found = new Map<PrintedField, Box[]>();
  for (const l of pass.lines) {
    const agreement = agreementWithMrz(l.text, mrz);
    for (const f of ['surname', 'given_names', 'birth_date', 'document_number', 'expiry_date'] as const) {
      if (agreement[f] === 'agree') found.set(f, [...(found.get(f) ?? []), l.box]);
    }
  }
  return found;
}

type Page = () => Promise<{ image: Uint8Array; mrz: DocumentFields }>;

describe('a page read in two halves at once', () => {
  // Seeds 2012 and 2023 are pages a cut once ran through: their expiry and birth dates, which a
  // guilloche's dash joined to the portrait. The ICAO specimen has a frame round the whole page.
  const portraits = portraitFixtures();
  const generated = (seed: number): Page => async () => {
    const fields = randomIdentity(seed);
    const doc = await generateDocument({ format: seed % 2 ? 'TD1' : 'TD3', fields, portrait: readFileSync(portraits[seed % portraits.length]!), seed });
    return { image: doc.image, mrz: { ...fields, surname: mrzName(fields.surname!), given_names: mrzName(fields.given_names!) } };
  };
  const specimen: Page = async () => ({
    image: readFileSync(join(FIXTURES_DIR, 'documents/passporteye/passport-td3.jpg')),
    mrz: { surname: 'ERIKSSON', given_names: 'ANNA MARIA', document_number: 'L898902C3', birth_date: '1974-08-12', expiry_date: '2012-04-15' },
  });
  const pages: [string, Page][] = [...[2012, 2023, 2001, 2004].map((seed): [string, Page] => [`generated ${seed}`, generated(seed)]), ['ICAO specimen', specimen]];

  for (const [name, make] of pages) {
    test(`${name}: the cut runs between the lines of values, and each half's lines are placed on the page`, async () => {
      const { image, mrz } = await make();
      const page = await straightenForOcr(image);
      const binary = await dropHairlines(await localThreshold(page));
      const pieces = await cutPage(binary);
      assert.equal(pieces.length, 2, 'the page is cut');
      const cut = pieces[1]!.top;
      assert.deepEqual([pieces[0]!.top, pieces[0]!.image.height + pieces[1]!.image.height], [0, binary.height]);

      // Where the whole page, read in one piece, shows each value: no such line is cut through.
      const whole = valueLines(await ocrText(binary, { lines: true }), mrz);
      assert.ok(whole.size >= 3, `the whole page shows ${[...whole.keys()].join(', ')}`);
      for (const [field, boxes] of whole) for (const b of boxes) assert.ok(b.y1 <= cut || b.y0 >= cut, `${field} at rows ${b.y0}-${b.y1}, cut at ${cut}`);
      // Both halves hold some of them.
      const all = [...whole.values()].flat();
      assert.ok(all.some((b) => b.y1 <= cut) && all.some((b) => b.y0 >= cut), 'values on both sides of the cut');

      // The first pass reads the halves: each value line it finds overlaps where the whole reading
      // found it (tesseract may join a label or a speck into a line's box, so boxes differ by a
      // few rows; the lower half's, left in its own rows, would be off by the cut).
      const halves = valueLines(await firstOcrPass(page), mrz);
      const placed: Box[] = [];
      for (const [field, boxes] of halves) {
        const expected = whole.get(field);
        if (!expected) continue;
        for (const b of boxes) assert.ok(expected.some((e) => e.y0 < b.y1 && b.y0 < e.y1), `${field} at ${b.y0}-${b.y1}, whole page ${JSON.stringify(expected)}`);
        placed.push(...boxes);
      }
      assert.ok(placed.some((b) => b.y0 < cut) && placed.some((b) => b.y0 >= cut), `values placed: ${JSON.stringify(placed)}`);
    });
  }
});
