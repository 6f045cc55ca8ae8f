/**
 * Reads the real MRZ line crops of fixtures/documents/mrz-lines with tesseract.js and a Tesseract
 * model (default: packages/engine/models/mrz-ocrb-lstm.traineddata, from train-mrz-lstm.ts), as
 * bench/checks/mrz.ts reads them with the reference model: psm 7, the MRZ whitelist, anything else
 * stripped. Prints characters right (by edit distance, as the bench counts: char-accuracy.ts),
 * lines fully right, lines read at the wrong length and ms per line. Measures only: nothing here
 * trains or tunes.
 *
 *   npx tsx packages/engine/scripts/eval-mrz-lstm.ts [--model path.traineddata] [--step 5] [--show 10]
 *   (the reference: --model ../shared/fixtures/reference/mrz.traineddata)
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createWorker } from 'tesseract.js';
import { charsRight } from './char-accuracy.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
function arg(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1]! : fallback;
}
const MODEL = resolve(arg('model', join(HERE, '..', 'models', 'mrz-ocrb-lstm.traineddata')));
const LINES_DIR = resolve(arg('lines', join(HERE, '..', '..', '..', '..', 'shared', 'fixtures', 'documents', 'mrz-lines')));
const STEP = Math.max(1, Number(arg('step', '1')));
const SHOW = Number(arg('show', '0'));

const labels = JSON.parse(readFileSync(join(LINES_DIR, 'labels.json'), 'utf8')) as { image: string; text: string }[];
const take = labels.filter((_, i) => i % STEP === 0);

const worker = await createWorker(basename(MODEL, '.traineddata'), 1, {
  langPath: dirname(MODEL),
  cacheMethod: 'none',
  gzip: false,
  logger: () => {},
  errorHandler: () => {},
});
await worker.setParameters({
  tessedit_char_whitelist: '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<',
  user_defined_dpi: '300',
  tessedit_pageseg_mode: '7' as never,
});

let chars = 0;
let right = 0;
let lines = 0;
let wrongLength = 0;
let ms = 0;
const shown: string[] = [];
for (const { image, text } of take) {
  // Decoded to grey and handed over as PNG, as the bench hands its crops.
  const { data, info } = await sharp(join(LINES_DIR, image)).greyscale().raw().toBuffer({ resolveWithObject: true });
  const png = await sharp(data, { raw: { width: info.width, height: info.height, channels: 1 } }).png().toBuffer();
  const t0 = performance.now();
  const read = (await worker.recognize(png)).data.text.replace(/[^0-9A-Z<]/g, '');
  ms += performance.now() - t0;
  chars += text.length;
  right += charsRight([text], [read]);
  if (read.length !== text.length) wrongLength++;
  if (read === text) lines++;
  else if (shown.length < SHOW) shown.push(`${image}\n  want ${text}\n  read ${read}`);
}
await worker.terminate();
for (const s of shown) console.log(s);
console.log(
  JSON.stringify({
    model: MODEL,
    lines_measured: take.length,
    char_accuracy: Number((right / chars).toFixed(4)),
    lines_fully_correct: Number((lines / take.length).toFixed(4)),
    wrong_length: wrongLength,
    ms_per_line: Math.round(ms / take.length),
  }),
);
