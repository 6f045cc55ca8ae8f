import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { readMrzLineCrop } from '../../packages/engine/src/mrz/read-line.ts';
import type { GreyImage } from '../../packages/engine/src/mrz/segment.ts';

/** One line in OCR-B as a tight crop (a line dataset's shape), at `pitch` cap heights. */
async function lineImage(text: string, pitch = 0.95, capHeight = 28): Promise<GreyImage> {
  const font = capHeight / 0.71;
  const cell = pitch * capHeight;
  const width = Math.round(text.length * cell + 6);
  const height = Math.round(capHeight * 1.25);
  const glyphs = [...text]
    .map((c, k) => `<text x="${(3 + (k + 0.5) * cell).toFixed(1)}" y="${(height / 2 + capHeight / 2).toFixed(1)}" text-anchor="middle">${c === '<' ? '&lt;' : c}</text>`)
    .join('');
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}"><rect width="100%" height="100%" fill="#f4f1ea"/><g font-family="OCR B" font-size="${font.toFixed(1)}" fill="#222">${glyphs}</g></svg>`;
  const { data, info } = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

test('a line crop is read at its own length, standard or not', async () => {
  for (const text of [
    'P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<',
    'L898902C36UTO7408122F1204159ZE184226B<<<<<10',
    'I<UTOD231458907<<<<<<<<<<<<<<<',
    '7408122F1204159UTO<<<<<<<<<<<6',
    // Partial lines, as datasets and bad crops hold: no MRZ length.
    'SMITH<<JOHN<<<<<<<<<<',
    '<<<<<<<<<<<<<<02',
  ]) {
    assert.equal(await readMrzLineCrop(await lineImage(text)), text);
  }
});

test('condensed and wide prints are read at their length (the length is not taken from the pitch)', async () => {
  const text = 'TKACHENKO<<MARIANA<<<<<<<<<<<';
  assert.equal(await readMrzLineCrop(await lineImage(text, 0.78)), text);
  assert.equal(await readMrzLineCrop(await lineImage(text, 1.2)), text);
});

test('a crop without a text line gives null', async () => {
  assert.equal(await readMrzLineCrop({ data: new Uint8Array(400 * 40).fill(240), width: 400, height: 40 }), null);
});
