/**
 * Machine-readable zone figures, the project's reader beside the baseline (tesseract.js with the
 * reference MRZ model, measured in this same run on the same located crops):
 *   (a) the 1,500 real line crops of fixtures/documents/mrz-lines: characters and lines right;
 *   (b) the specimen documents of fixtures/documents: read right (every character of every line
 *       equal to its transcription), and accepted (every check digit, valid codes, nothing
 *       unsettled) and right; transcriptions: expected.json, else bench/checks/specimen-mrz.json;
 *   (c) generated documents (TD1 and TD3, degraded like phone photos, seeded): fully right,
 *       characters right;
 *   (d) reads accepted by their check digits but wrong (must be zero);
 *   and the time per document of both readers: wall time, and this process's CPU time (all its
 *   threads), which a loaded machine stretches far less.
 *
 * `tsx bench/checks/mrz.ts` runs it alone and prints one JSON line. Knobs: BENCH_MRZ_DOCS
 * (generated documents, default 200), BENCH_MRZ_LINES (line crops, default all),
 * BENCH_MRZ_BASELINE_LINES (line crops for the baseline, default 300), BENCH_MRZ_BASELINE=0 to
 * skip the baseline.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { createWorker, type Worker } from 'tesseract.js';
import { charsRight } from '../../packages/engine/scripts/char-accuracy.ts';
import { generateDocument } from '../../packages/engine/src/generator/generate.ts';
import { FIXTURES_DIR, portraitFixtures } from '../../packages/engine/src/generator/fixtures.ts';
import { randomIdentity } from '../../packages/engine/src/generator/identity.ts';
import { cropLine, type MrzCandidate } from '../../packages/engine/src/mrz/locate.ts';
import { parseMrz } from '../../packages/engine/src/mrz/parse.ts';
import { MRZ_ACCEPT_CONFIDENCE, decodeGrey, readMrzDetailed } from '../../packages/engine/src/mrz/read.ts';
import { readMrzLineCrop } from '../../packages/engine/src/mrz/read-line.ts';
import type { GreyImage } from '../../packages/engine/src/mrz/segment.ts';
import type { MrzReading } from '../../packages/engine/src/types.ts';

const DOCS = Number(process.env.BENCH_MRZ_DOCS ?? 200);
const LINES = process.env.BENCH_MRZ_LINES ? Number(process.env.BENCH_MRZ_LINES) : Infinity;
const BASELINE_LINES = Number(process.env.BENCH_MRZ_BASELINE_LINES ?? 300);
const BASELINE = process.env.BENCH_MRZ_BASELINE !== '0';
const DOCUMENTS = join(FIXTURES_DIR, 'documents');
const REFERENCE = join(FIXTURES_DIR, 'reference', 'mrz.traineddata');
const HERE = dirname(fileURLToPath(import.meta.url));
/** Images of the specimen folders that hold no document (a test pattern, pages of prose). */
const NOT_DOCUMENTS = new Set(['passporteye/pacman.jpg', 'passporteye/pacman.png', 'passporteye/tesseract-test1.jpg', 'passporteye/tesseract-test2.png']);

function need(path: string): void {
  if (!existsSync(path)) throw new Error(`fixture missing: ${path} (the fixtures live in ../shared/fixtures beside the checkout)`);
}

const round = (x: number, d = 4) => Number(x.toFixed(d));
const median = (xs: number[]) => (xs.length ? xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)]! : 0);

async function grey(path: string): Promise<GreyImage> {
  const { data, info } = await sharp(path).greyscale().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data.buffer, data.byteOffset, data.length), width: info.width, height: info.height };
}

// --- the baseline: tesseract.js with the reference model, loaded from its local file only ---

let tesseract: Worker | null = null;
async function baselineWorker(): Promise<Worker> {
  need(REFERENCE);
  tesseract ??= await createWorker('mrz', 1, {
    langPath: dirname(REFERENCE),
    cacheMethod: 'none',
    gzip: false,
    logger: () => {},
    errorHandler: () => {},
  });
  await tesseract.setParameters({ tessedit_char_whitelist: '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ<', user_defined_dpi: '300' });
  return tesseract;
}

async function pngOf(g: GreyImage): Promise<Buffer> {
  return sharp(g.data, { raw: { width: g.width, height: g.height, channels: 1 } }).png().toBuffer();
}

/** Baseline text of one line crop. */
async function baselineLine(g: GreyImage): Promise<string> {
  const w = await baselineWorker();
  await w.setParameters({ tessedit_pageseg_mode: '7' as never });
  const { data } = await w.recognize(await pngOf(g));
  return data.text.replace(/[^0-9A-Z<]/g, '');
}

/** Baseline reading of a located zone: each located line cropped as our reader crops it. */
async function baselineZone(image: GreyImage, cand: MrzCandidate, flipped: boolean, allowSpecimen: boolean): Promise<MrzReading | null> {
  // The candidate refers to `image` as located; an upside-down zone is turned in its crops.
  const lines = flipped ? cand.lines.slice().reverse() : cand.lines;
  const texts: string[] = [];
  for (const l of lines) {
    let crop = cropLine(image, l, cand.angle);
    if (flipped) crop = { data: Uint8Array.from(crop.data).reverse(), width: crop.width, height: crop.height };
    texts.push(await baselineLine(crop));
  }
  return parseMrz(texts, { allowSpecimen, correct: true });
}

// --- sections ---

async function lineCrops(): Promise<Record<string, unknown>> {
  const dir = join(DOCUMENTS, 'mrz-lines');
  need(join(dir, 'labels.json'));
  const labels = JSON.parse(readFileSync(join(dir, 'labels.json'), 'utf8')) as { image: string; text: string }[];
  const take = labels.slice(0, Math.min(labels.length, LINES));
  let chars = 0;
  let right = 0;
  let lines = 0;
  const started = Date.now();
  const c0 = process.cpuUsage();
  const ours: (string | null)[] = [];
  for (const { image, text } of take) {
    const read = await readMrzLineCrop(await grey(join(dir, image)));
    ours.push(read);
    chars += text.length;
    right += charsRight([text], read ? [read] : null);
    if (read === text) lines++;
  }
  const out: Record<string, unknown> = {
    lines_measured: take.length,
    char_accuracy: round(right / chars),
    lines_fully_correct: round(lines / take.length),
    ms_per_line: Math.round((Date.now() - started) / take.length),
    cpu_ms_per_line: Math.round(cpuMsSince(c0) / take.length),
  };
  if (BASELINE) {
    // The baseline on an evenly spread subset (it is slower), ours beside it on the same lines.
    const step = Math.max(1, Math.floor(take.length / BASELINE_LINES));
    let bc = 0;
    let br = 0;
    let bl = 0;
    let or = 0;
    let ol = 0;
    const t0 = Date.now();
    const c1 = process.cpuUsage();
    let n = 0;
    for (let i = 0; i < take.length && n < BASELINE_LINES; i += step, n++) {
      const { image, text } = take[i]!;
      const read = await baselineLine(await grey(join(dir, image)));
      bc += text.length;
      br += charsRight([text], [read]);
      if (read === text) bl++;
      or += charsRight([text], ours[i] ? [ours[i]!] : null);
      if (ours[i] === text) ol++;
    }
    out.baseline_subset = n;
    out.baseline_char_accuracy = round(br / bc);
    out.baseline_lines_fully_correct = round(bl / n);
    out.ours_on_subset_char_accuracy = round(or / bc);
    out.ours_on_subset_lines_fully_correct = round(ol / n);
    out.baseline_ms_per_line = Math.round((Date.now() - t0) / n);
    out.baseline_cpu_ms_per_line = Math.round(cpuMsSince(c1) / n);
  }
  return out;
}

/** Accepted: every check digit, valid codes, and (ours) no unsettled character. */
function accepted(r: MrzReading | null, uncertain: number): boolean {
  return !!r && r.checkDigitsValid && r.codesValid && uncertain === 0 && r.confidence >= MRZ_ACCEPT_CONFIDENCE;
}

/** CPU milliseconds of this process (every thread) since `from`: the same on an idle or a loaded machine, unlike wall time. */
function cpuMsSince(from: NodeJS.CpuUsage): number {
  const d = process.cpuUsage(from);
  return (d.user + d.system) / 1000;
}

interface DocResult {
  ours: MrzReading | null;
  oursAccepted: boolean;
  oursMs: number;
  oursCpuMs: number;
  base: MrzReading | null;
  baseAccepted: boolean;
  baseMs: number;
  baseCpuMs: number;
}

async function readBoth(bytes: Uint8Array, allowSpecimen: boolean): Promise<DocResult> {
  const t0 = Date.now();
  const c0 = process.cpuUsage();
  const d = await readMrzDetailed(bytes, { allowSpecimen });
  const oursMs = Date.now() - t0;
  const oursCpuMs = cpuMsSince(c0);
  let base: MrzReading | null = null;
  let baseMs = 0;
  let baseCpuMs = 0;
  if (BASELINE) {
    const t1 = Date.now();
    const c1 = process.cpuUsage();
    // The baseline reads the zone our locator found; its time is its recognition of those crops
    // only (decoding and locating are counted in ours, not in its).
    if (d.candidate && d.image) base = await baselineZone(d.image, d.candidate, d.flipped, allowSpecimen);
    else await decodeGrey(bytes);
    baseMs = Date.now() - t1;
    baseCpuMs = cpuMsSince(c1);
  }
  return {
    ours: d.reading,
    oursAccepted: accepted(d.reading, d.uncertain.length),
    oursMs,
    oursCpuMs,
    base,
    baseAccepted: !!base && base.checkDigitsValid && base.codesValid,
    baseMs,
    baseCpuMs,
  };
}

/**
 * What each specimen's zone says: expected.json where the fixtures give it, and for the others
 * bench/checks/specimen-mrz.json, transcribed by us from the images (see its `_note`).
 */
function specimenTruth(files: string[]): Record<string, string[]> {
  need(join(DOCUMENTS, 'expected.json'));
  const given = JSON.parse(readFileSync(join(DOCUMENTS, 'expected.json'), 'utf8')) as Record<string, string[]>;
  const ours = JSON.parse(readFileSync(join(HERE, 'specimen-mrz.json'), 'utf8')) as Record<string, string[]>;
  const truth: Record<string, string[]> = {};
  for (const f of files) {
    const t = given[f] ?? ours[f];
    if (!t) throw new Error(`no transcription of ${f} in bench/checks/specimen-mrz.json`);
    if (given[f] && ours[f] && given[f]!.join() !== ours[f]!.join()) throw new Error(`specimen-mrz.json disagrees with expected.json on ${f}`);
    truth[f] = t;
  }
  return truth;
}

async function specimens(): Promise<Record<string, unknown>> {
  const files = ['passporteye', 'image-js']
    .flatMap((d) => readdirSync(join(DOCUMENTS, d)).map((f) => `${d}/${f}`))
    .filter((f) => !NOT_DOCUMENTS.has(f))
    .sort();
  const truth = specimenTruth(files);
  const tally = { right: 0, acceptedRight: 0, wrongAccepted: 0, chars: 0 };
  const baseTally = { ...tally };
  let chars = 0;
  const oursMs: number[] = [];
  const baseMs: number[] = [];
  const oursCpu: number[] = [];
  const baseCpu: number[] = [];
  const right: string[] = [];
  const wrong: Record<string, string[] | null> = {};
  const count = (t: typeof tally, exp: string[], lines: string[] | null, accepted: boolean) => {
    const ok = lines?.join() === exp.join();
    t.chars += charsRight(exp, lines);
    if (ok) t.right++;
    if (ok && accepted) t.acceptedRight++;
    if (!ok && accepted) t.wrongAccepted++;
    return ok;
  };
  for (const f of files) {
    const r = await readBoth(readFileSync(join(DOCUMENTS, f)), true);
    const exp = truth[f]!;
    chars += exp.join('').length;
    if (count(tally, exp, r.ours?.lines ?? null, r.oursAccepted)) right.push(f);
    else wrong[f] = r.ours?.lines ?? null;
    count(baseTally, exp, r.base?.lines ?? null, r.baseAccepted);
    oursMs.push(r.oursMs);
    baseMs.push(r.baseMs);
    oursCpu.push(r.oursCpuMs);
    baseCpu.push(r.baseCpuMs);
  }
  return {
    documents: files.length,
    read_right: tally.right,
    read_right_rate: round(tally.right / files.length),
    char_accuracy: round(tally.chars / chars),
    accepted_and_right: tally.acceptedRight,
    wrong_but_accepted: tally.wrongAccepted,
    read_right_files: right,
    read_wrong: wrong,
    ms_per_document_median: median(oursMs),
    cpu_ms_per_document_median: Math.round(median(oursCpu)),
    ...(BASELINE
      ? {
          baseline_read_right: baseTally.right,
          baseline_read_right_rate: round(baseTally.right / files.length),
          baseline_char_accuracy: round(baseTally.chars / chars),
          baseline_accepted_and_right: baseTally.acceptedRight,
          baseline_wrong_but_accepted: baseTally.wrongAccepted,
          baseline_ms_per_document_median: median(baseMs),
          baseline_cpu_ms_per_document_median: Math.round(median(baseCpu)),
        }
      : {}),
  };
}

async function generated(): Promise<Record<string, unknown>> {
  const portraits = portraitFixtures();
  if (portraits.length === 0) throw new Error('no portrait fixtures found');
  let full = 0;
  let baseFull = 0;
  let chars = 0;
  let right = 0;
  let baseRight = 0;
  let wrongAccepted = 0;
  let wrongCheckValid = 0;
  let baseWrongAccepted = 0;
  let acceptedCount = 0;
  const oursMs: number[] = [];
  const baseMs: number[] = [];
  const oursCpu: number[] = [];
  const baseCpu: number[] = [];
  const byFormat: Record<string, { n: number; full: number }> = {};
  for (let i = 0; i < DOCS; i++) {
    const seed = 5000 + i;
    const format = i % 2 === 0 ? 'TD3' : 'TD1';
    const doc = await generateDocument({
      format,
      fields: randomIdentity(seed),
      portrait: readFileSync(portraits[i % portraits.length]!),
      seed,
    });
    const r = await readBoth(doc.image, true);
    const truth = doc.lines.join();
    const n = doc.lines.join('').length;
    chars += n;
    right += charsRight(doc.lines, r.ours?.lines ?? null);
    baseRight += charsRight(doc.lines, r.base?.lines ?? null);
    const ok = r.oursAccepted && r.ours!.lines.join() === truth;
    if (ok) full++;
    if (r.oursAccepted) acceptedCount++;
    if (r.baseAccepted && r.base!.lines.join() === truth) baseFull++;
    if (r.oursAccepted && r.ours!.lines.join() !== truth) wrongAccepted++;
    if (r.ours?.checkDigitsValid && r.ours.lines.join() !== truth) wrongCheckValid++;
    if (r.baseAccepted && r.base!.lines.join() !== truth) baseWrongAccepted++;
    byFormat[format] ??= { n: 0, full: 0 };
    byFormat[format].n++;
    if (ok) byFormat[format].full++;
    oursMs.push(r.oursMs);
    baseMs.push(r.baseMs);
    oursCpu.push(r.oursCpuMs);
    baseCpu.push(r.baseCpuMs);
  }
  return {
    documents: DOCS,
    fully_correct: full,
    fully_correct_rate: round(full / DOCS),
    by_format: byFormat,
    char_accuracy: round(right / chars),
    accepted: acceptedCount,
    wrong_but_accepted: wrongAccepted,
    wrong_with_valid_check_digits_before_vote: wrongCheckValid,
    ms_per_document_median: median(oursMs),
    cpu_ms_per_document_median: Math.round(median(oursCpu)),
    ...(BASELINE
      ? {
          baseline_fully_correct: baseFull,
          baseline_fully_correct_rate: round(baseFull / DOCS),
          baseline_char_accuracy: round(baseRight / chars),
          baseline_wrong_but_accepted: baseWrongAccepted,
          baseline_ms_per_document_median: median(baseMs),
          baseline_cpu_ms_per_document_median: Math.round(median(baseCpu)),
        }
      : {}),
  };
}

export async function measureMrz(): Promise<Record<string, unknown>> {
  try {
    const gen = await generated();
    const spec = await specimens();
    const lines = await lineCrops();
    return { generated: gen, specimens: spec, mrz_lines: lines };
  } finally {
    await tesseract?.terminate();
    tesseract = null;
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  console.log(JSON.stringify(await measureMrz()));
  process.exit(0);
}
