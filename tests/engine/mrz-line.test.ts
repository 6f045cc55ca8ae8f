import assert from 'node:assert/strict';
import { test } from 'node:test';
import sharp from 'sharp';
import { bestCharacters, classifyCells, classifyCellsOnRuntime, loadMrzClassifier } from '../../packages/engine/src/mrz/classifier.ts';
import { alignCount, type LineScan } from '../../packages/engine/src/mrz/align.ts';
import { readMrzLineCrop } from '../../packages/engine/src/mrz/read-line.ts';
import { findLineGrid, windowFeatures, type GreyImage } from '../../packages/engine/src/mrz/segment.ts';

/** An SVG drawing rasterised to grey, as line crops are handed to the reader. */
async function greyOf(svg: string): Promise<GreyImage> {
  const { data, info } = await sharp(Buffer.from(svg)).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height };
}

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
  return greyOf(svg);
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

/** A line seen at a slant: glyphs and their spacing grow steadily from `1 - s` to `1 + s` times the mean. */
async function slantedLine(text: string, s: number, capHeight = 26): Promise<GreyImage> {
  const n = text.length;
  const scale = (k: number) => 1 + s * ((2 * k) / (n - 1) - 1);
  const cell = 0.95 * capHeight;
  const height = Math.round(capHeight * (1 + Math.abs(s)) * 1.3);
  let x = 3;
  let glyphs = '';
  for (let k = 0; k < n; k++) {
    const g = scale(k);
    const c = text[k]!;
    glyphs += `<text x="${(x + (g * cell) / 2).toFixed(1)}" y="${(height / 2 + (g * capHeight) / 2).toFixed(1)}" font-size="${((g * capHeight) / 0.71).toFixed(1)}" text-anchor="middle">${c === '<' ? '&lt;' : c}</text>`;
    x += g * cell;
  }
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${Math.round(x + 3)}" height="${height}"><rect width="100%" height="100%" fill="#f4f1ea"/><g font-family="OCR B" fill="#222">${glyphs}</g></svg>`;
  return greyOf(svg);
}

/** Equal up to O and 0 (the classifier's known confusion on small glyphs, not this test's subject). */
const roundFolded = (t: string | null) => t?.replace(/O/g, '0') ?? null;

test('a line seen at a slant (glyphs and pitch shrinking towards one end) is read at its length, every glyph in its place', async () => {
  // With one pitch for the whole line, a quarter's growth end to end loses or shifts glyphs.
  for (const text of ['P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<', 'TKACHENKO<<MARIANA<<<<<<<<<<<<']) {
    for (const slant of [0.25, -0.25]) {
      assert.equal(roundFolded(await readMrzLineCrop(await slantedLine(text, slant))), roundFolded(text), `slant ${slant}`);
    }
  }
});

test('the classifier on onnxruntime gives the JavaScript reference its probabilities', async () => {
  // The reader runs the classifier on the runtime; classifyCells (training's) is the reference.
  const classifier = await loadMrzClassifier();
  const line = await lineImage('P<UTOERIKSSON<<ANNA<MARIA<<<<<<<<<<<<<<<<<<<');
  const grid = findLineGrid(line, 44, { curved: false });
  assert.ok(grid, 'a grid is found on the rendered line');
  // Cells on the grid and windows between them: glyphs, fillers, straddling cells.
  const features = windowFeatures(line, grid, Array.from({ length: 150 }, (_, k) => grid.inkStart + (k * (grid.inkEnd - grid.inkStart)) / 149));
  const glyphJs = new Float32Array(150);
  const glyphRuntime = new Float32Array(150);
  const js = classifyCells(classifier.weights, features, 150, glyphJs);
  const runtime = await classifyCellsOnRuntime(classifier, features, 150, glyphRuntime);
  let worst = 0;
  for (let i = 0; i < js.length; i++) worst = Math.max(worst, Math.abs(js[i]! - runtime[i]!));
  for (let k = 0; k < 150; k++) worst = Math.max(worst, Math.abs(glyphJs[k]! - glyphRuntime[k]!));
  assert.ok(worst < 1e-4, `largest difference ${worst}`);
  assert.equal(bestCharacters(runtime, 150).text, bestCharacters(js, 150).text);
});

/** Point-by-point sampling, as windowFeatures once did it: each of the 3×3 bilinear samples of each output pixel on its own. */
function windowFeaturesReference(line: GreyImage, band: { centreA: number; centreB: number; bandHeight: number; ink: number; paper: number }, centres: number[]): Float32Array {
  const { data, width, height } = line;
  const out = new Float32Array(centres.length * 16 * 24);
  const range = Math.max(8, band.paper - band.ink);
  const cw = band.bandHeight * 0.95;
  const ch = band.bandHeight * 1.3;
  const sample = (x: number, y: number): number => {
    if (x < 0 || y < 0 || x > width - 1 || y > height - 1) return band.paper;
    const xi = Math.min(width - 2, Math.floor(x));
    const yi = Math.min(height - 2, Math.floor(y));
    const fx = x - xi;
    const fy = y - yi;
    const p = yi * width + xi;
    return (data[p]! * (1 - fx) + data[p + 1]! * fx) * (1 - fy) + (data[p + width]! * (1 - fx) + data[p + width + 1]! * fx) * fy;
  };
  centres.forEach((cx, k) => {
    const left = cx - cw / 2;
    const top = band.centreA + band.centreB * cx - ch / 2;
    for (let oy = 0; oy < 24; oy++) {
      for (let ox = 0; ox < 16; ox++) {
        let sum = 0;
        for (let j = 0; j < 3; j++) for (let i = 0; i < 3; i++) sum += sample(left + (ox + (i + 0.5) / 3) * (cw / 16) - 0.5, top + (oy + (j + 0.5) / 3) * (ch / 24) - 0.5);
        const v = (band.paper - sum / 9) / range;
        out[k * 384 + oy * 16 + ox] = Math.min(1.2, Math.max(0, v));
      }
    }
  });
  return out;
}

test('windows are sampled as point-by-point bilinear sampling samples them, inside the crop and across its edges', async () => {
  const line = await lineImage('L898902C36UTO7408122F1204159ZE184226B<<<<<10');
  const grid = findLineGrid(line, 44, { curved: false });
  assert.ok(grid);
  for (const band of [grid, { ...grid, centreB: 0.03, bandHeight: grid.bandHeight * 0.6 }, { ...grid, centreA: 2, bandHeight: grid.bandHeight * 1.7 }]) {
    // Centres along the line and past both ends (windows partly outside the crop).
    const centres = Array.from({ length: 97 }, (_, k) => -20 + (k * (line.width + 40)) / 96);
    const fast = windowFeatures(line, band, centres);
    const reference = windowFeaturesReference(line, band, centres);
    let worst = 0;
    for (let i = 0; i < fast.length; i++) worst = Math.max(worst, Math.abs(fast[i]! - reference[i]!));
    assert.ok(worst < 1e-6, `largest difference ${worst}`);
  }
});

/** The alignment's dynamic programme over every cell (what alignCount computed before it kept to the cells a chain can use). */
function alignEveryCell(scan: LineScan, count: number, slope: number): { at: number[]; fit: number } | null {
  const { positions, logGlyph, step } = scan;
  const mean = (scan.inkEnd - scan.inkStart) / (count - 0.35) / step;
  if (count < 2 || mean * (1 - Math.abs(slope)) < 2) return null;
  const pitchAt = (j: number) => mean * (1 + slope * ((2 * j) / Math.max(1, positions - 1) - 1));
  const reach = Math.ceil(mean * 0.62);
  const score = new Float64Array(count * positions).fill(-Infinity);
  const from = new Int32Array(count * positions).fill(-1);
  for (let j = 0; j <= Math.min(reach, positions - 1); j++) score[j] = logGlyph[j]!;
  for (let k = 1; k < count; k++) {
    for (let j = 0; j < positions; j++) {
      const pitch = pitchAt(j);
      let best = -Infinity;
      let arg = -1;
      for (let d = Math.max(1, Math.floor(pitch * 0.78)); d <= Math.ceil(pitch * 1.22) && j - d >= 0; d++) {
        const s = score[(k - 1) * positions + j - d]!;
        if (s === -Infinity) continue;
        const dev = (d - pitch) / pitch;
        const v = s - 10 * dev * dev;
        if (v > best) {
          best = v;
          arg = j - d;
        }
      }
      if (arg >= 0) {
        score[k * positions + j] = best + logGlyph[j]!;
        from[k * positions + j] = arg;
      }
    }
  }
  let end = -1;
  for (let j = Math.max(0, positions - 1 - reach); j < positions; j++) {
    if (score[(count - 1) * positions + j]! > (end < 0 ? -Infinity : score[(count - 1) * positions + end]!)) end = j;
  }
  if (end < 0) return null;
  const at: number[] = [];
  for (let k = count - 1, j = end; k >= 0; j = from[k * positions + j]!, k--) at.unshift(j);
  return { at, fit: score[(count - 1) * positions + end]! / count };
}

test('the alignment of centres is the one the dynamic programme over every cell finds, flat and slanted', () => {
  let seed = 17;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
  let compared = 0;
  for (let t = 0; t < 150; t++) {
    const positions = 5 + Math.floor(random() * 600);
    // Glyph centres likely here and there, unlikely elsewhere.
    const logGlyph = Float32Array.from({ length: positions }, () => Math.log(random() < 0.3 ? 0.5 + random() * 0.5 : 1e-6 + random() * 0.2));
    const scan: LineScan = { step: 1, positions, logGlyph, probs: new Float32Array(0), inkStart: 0, inkEnd: positions - 1 + (random() - 0.5) * 4 };
    for (const count of [2, 8, 30, 44, 60]) {
      for (const slope of [0, -0.15, 0.3]) {
        const fast = alignCount(scan, count, slope);
        const every = alignEveryCell(scan, count, slope);
        assert.deepEqual(fast ? { at: [...fast.at], fit: fast.fit } : null, every, `${positions} positions, ${count} centres, slope ${slope}`);
        if (every) compared++;
      }
    }
  }
  assert.ok(compared > 1000, `${compared} alignments compared`);
});
