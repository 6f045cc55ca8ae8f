/**
 * Document check figures, measured in this run on this machine:
 *   (a) quality: specimens and generated phone photos passing, variants (blurred, glare, shrunk,
 *       cut by the frame) failing with the right reason, time per call;
 *   (b) barcodes: zxing-cpp samples decoded to their expected text, a synthetic AAMVA PDF417
 *       photographed on a card decoded and parsed, time per call;
 *   (c) printed zone: agreement with the MRZ per decisive field on generated documents and on
 *       the specimens whose MRZ is known, time per call;
 *   (d) validity: time per call (pure).
 *
 * `tsx bench/checks/document.ts` runs it alone and prints one JSON line. Knobs: BENCH_DOC_QUALITY
 * (generated photos for quality, default 20), BENCH_DOC_PRINTED (generated documents for the
 * printed zone, default 30).
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { mrzName, STANDARD_FLOW } from '@idv/domain';
import { assessDocumentQuality } from '../../packages/engine/src/document/quality.ts';
import { readBarcodes } from '../../packages/engine/src/document/barcodes.ts';
import { parseAamva } from '../../packages/engine/src/document/aamva.ts';
import { readPrintedZone } from '../../packages/engine/src/document/printed-zone.ts';
import { closeOcrReaders } from '../../packages/engine/src/document/ocr-worker.ts';
import { checkValidity } from '../../packages/engine/src/document/validity.ts';
import { loadZxingWriter } from '../../packages/engine/src/document/zxing.ts';
import { generateDocument, type GeneratedDocument } from '../../packages/engine/src/generator/generate.ts';
import { randomIdentity } from '../../packages/engine/src/generator/identity.ts';
import { FIXTURES_DIR, portraitFixtures } from '../../packages/engine/src/generator/fixtures.ts';
import type { DocumentFields, MrzReading } from '../../packages/engine/src/types.ts';

const QUALITY_DOCS = Number(process.env.BENCH_DOC_QUALITY ?? 20);
const PRINTED_DOCS = Number(process.env.BENCH_DOC_PRINTED ?? 30);
const DOCS = join(FIXTURES_DIR, 'documents');
const BARCODES = join(FIXTURES_DIR, 'barcodes/zxing-cpp');
const NOT_DOCUMENTS = /^(pacman|tesseract-test)/;
const DECISIVE = ['surname', 'given_names', 'birth_date', 'document_number', 'expiry_date'] as const;

function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]!;
}

async function timed<T>(times: number[], f: () => Promise<T>, cpuTimes?: number[]): Promise<T> {
  const t = performance.now();
  const c = process.cpuUsage();
  const r = await f();
  times.push(performance.now() - t);
  if (cpuTimes) {
    const used = process.cpuUsage(c);
    cpuTimes.push((used.user + used.system) / 1000);
  }
  return r;
}

const rate = (n: number, d: number) => (d ? Math.round((n / d) * 1000) / 1000 : NaN);

async function generated(seed: number): Promise<{ doc: GeneratedDocument; fields: DocumentFields }> {
  const portraits = portraitFixtures();
  const fields = randomIdentity(seed);
  const doc = await generateDocument({ format: seed % 2 ? 'TD1' : 'TD3', fields, portrait: readFileSync(portraits[seed % portraits.length]!), seed });
  return { doc, fields };
}

async function measureQuality(): Promise<Record<string, unknown>> {
  const times: number[] = [];
  const specimens = [
    ...readdirSync(join(DOCS, 'passporteye')).filter((f) => !NOT_DOCUMENTS.test(f)).map((f) => join(DOCS, 'passporteye', f)),
    ...readdirSync(join(DOCS, 'image-js')).map((f) => join(DOCS, 'image-js', f)),
  ];
  let specimensOk = 0;
  for (const p of specimens) if ((await timed(times, () => assessDocumentQuality(readFileSync(p)))).report.status === 'ok') specimensOk++;
  const variants: Record<string, { right: number; total: number }> = {};
  const count = (kind: string, right: boolean) => {
    variants[kind] ??= { right: 0, total: 0 };
    variants[kind]!.total++;
    if (right) variants[kind]!.right++;
  };
  let generatedOk = 0;
  for (let seed = 1000; seed < 1000 + QUALITY_DOCS; seed++) {
    const { doc } = await generated(seed);
    if ((await timed(times, () => assessDocumentQuality(doc.image))).report.status === 'ok') generatedOk++;
    const b = doc.documentBox;
    const cut = await sharp(doc.image).extract({ left: 0, top: 0, width: Math.round(b.x + b.width * 0.7), height: doc.height }).jpeg().toBuffer();
    count('cut_off', (await assessDocumentQuality(cut)).report.reasons.includes('document_cut_off'));
    const blurred = await sharp(doc.image).blur(4).jpeg().toBuffer();
    count('blurred', (await assessDocumentQuality(blurred)).report.reasons.includes('image_blurred'));
    const small = await sharp(doc.image).resize(250).jpeg().toBuffer();
    count('resolution', (await assessDocumentQuality(small)).report.reasons.includes('resolution_too_low'));
    const r = Math.round(doc.height * 0.2);
    const spot = `<svg width="${doc.width}" height="${doc.height}"><defs><radialGradient id="g"><stop offset="0.55" stop-color="#fff"/><stop offset="1" stop-color="#fff" stop-opacity="0"/></radialGradient></defs><circle cx="${b.x + b.width * 0.5}" cy="${b.y + b.height * 0.5}" r="${r}" fill="url(#g)"/></svg>`;
    const glared = await sharp(doc.image).composite([{ input: Buffer.from(spot) }]).jpeg().toBuffer();
    count('glare', (await assessDocumentQuality(glared)).report.reasons.includes('image_glare'));
  }
  return {
    quality_specimens_ok: `${specimensOk}/${specimens.length}`,
    quality_generated_ok: `${generatedOk}/${QUALITY_DOCS}`,
    quality_variants_caught: Object.fromEntries(Object.entries(variants).map(([k, v]) => [k, `${v.right}/${v.total}`])),
    quality_ms_p50: Math.round(percentile(times, 50)),
    quality_ms_p95: Math.round(percentile(times, 95)),
  };
}

async function measureBarcodes(): Promise<Record<string, unknown>> {
  const times: number[] = [];
  let right = 0;
  let wrong = 0;
  let total = 0;
  for (const dir of readdirSync(BARCODES)) {
    for (const f of readdirSync(join(BARCODES, dir))) {
      const txt = join(BARCODES, dir, f.replace(/\.[^.]+$/, '.txt'));
      if (!/\.(png|jpe?g|webp)$/i.test(f) || !existsSync(txt)) continue;
      total++;
      const found = await timed(times, () => readBarcodes(readFileSync(join(BARCODES, dir, f))));
      if (found.some((b) => b.text === readFileSync(txt, 'utf8'))) right++;
      else if (found.length) wrong++;
    }
  }
  // A synthetic AAMVA payload, encoded, printed on a card turned 7°, softened and compressed.
  const payload = '@\n\x1e\rANSI 636014090102DL00410200ZC02410012DLDAQD1234562\nDCSSAMPLE\nDACJANE\nDADANN\nDBB02291984\nDBA02282029\nDBC2\nDCGUSA\nDAJCA\r';
  const writer = await loadZxingWriter();
  const code = Buffer.from(await (await writer.writeBarcode(payload, { format: 'PDF417', scale: 3 })).image!.arrayBuffer());
  const card = await sharp(code).extend({ top: 120, bottom: 60, left: 60, right: 60, background: '#e8eef4' }).png().toBuffer();
  const photo = await sharp(card).rotate(7, { background: '#6b5a4a' }).blur(0.8).jpeg({ quality: 80 }).toBuffer();
  const aamva = await timed(times, () => readBarcodes(photo));
  const parsed = aamva[0] ? parseAamva(aamva[0].text) : null;
  // What a document photo without any barcode costs (the reader tries its variants, within budget).
  const without: number[] = [];
  for (const f of ['passport-td3.jpg', '100_pass-bdr.jpg', '0_pass-lva.jpg', 'image-js/id1.jpg', '100_pass-hrv.jpg', '62_pass-aus.png']) {
    const path = f.includes('/') ? join(DOCS, f) : join(DOCS, 'passporteye', f);
    await timed(without, () => readBarcodes(readFileSync(path)));
  }
  return {
    barcode_samples_right: `${right}/${total}`,
    barcode_samples_wrong_text: wrong,
    barcode_aamva_roundtrip: parsed?.birth_date === '1984-02-29' && parsed.surname === 'SAMPLE' ? 1 : 0,
    barcode_ms_p50: Math.round(percentile(times, 50)),
    barcode_ms_p95: Math.round(percentile(times, 95)),
    barcode_ms_photo_without_barcode_p50: Math.round(percentile(without, 50)),
    barcode_ms_photo_without_barcode_max: Math.round(Math.max(...without)),
  };
}

const reading = (fields: DocumentFields): MrzReading => ({ format: 'TD3', lines: [], fields, checkDigitsValid: true, failedCheckDigits: [], corrections: 0, codesValid: true, specimen: false, confidence: 1 });

async function measurePrintedZone(): Promise<Record<string, unknown>> {
  const times: number[] = [];
  // The process's CPU time per call (calls run one at a time, so it is the call's, tesseract's
  // thread included): on a shared machine the comparable figure, where wall time measures the load.
  const cpu: number[] = [];
  let secondPasses = 0;
  // Second readings by what they read: only the first pass's lines, or the whole page again.
  const rereads = { lines: 0, page: 0 };
  const count = (scopes: readonly string[]) => {
    if (scopes.length > 1) secondPasses++;
    for (const s of scopes.slice(1)) rereads[s as 'lines' | 'page']++;
  };
  const agreeGen: Record<string, number> = Object.fromEntries(DECISIVE.map((f) => [f, 0]));
  let allAgree = 0;
  for (let seed = 2000; seed < 2000 + PRINTED_DOCS; seed++) {
    const { doc, fields } = await generated(seed);
    const mrz = { ...fields, surname: mrzName(fields.surname!), given_names: mrzName(fields.given_names!) };
    const { agreement, scopes } = await timed(times, () => readPrintedZone(doc.image, reading(mrz)), cpu);
    count(scopes);
    for (const f of DECISIVE) if (agreement[f] === 'agree') agreeGen[f]!++;
    if (DECISIVE.every((f) => agreement[f] === 'agree')) allAgree++;
  }
  // Specimens whose MRZ is known (fixtures/documents/expected.json).
  const known: [string, DocumentFields][] = [
    ['passporteye/passport-td3.jpg', { surname: 'ERIKSSON', given_names: 'ANNA MARIA', document_number: 'L898902C3', birth_date: '1974-08-12', expiry_date: '2012-04-15' }],
    ['passporteye/passport-td2.jpg', { surname: 'ERIKSSON', given_names: 'ANNA MARIA', document_number: 'D23145890', birth_date: '1974-08-12', expiry_date: '2012-04-15' }],
    ['image-js/id1.jpg', { surname: 'BERTHIER', given_names: 'CORINNE', document_number: '940992310285', birth_date: '1965-12-06' }],
    ['image-js/id2.jpg', { surname: 'MAENNIK', given_names: 'MARI LIIS', document_number: 'KB0000000', birth_date: '1975-01-22', expiry_date: '2012-05-22' }],
  ];
  let specAgree = 0;
  let specFields = 0;
  for (const [rel, fields] of known) {
    const { agreement, scopes } = await timed(times, () => readPrintedZone(readFileSync(join(DOCS, rel)), reading(fields)), cpu);
    count(scopes);
    for (const f of DECISIVE) {
      if (!fields[f]) continue;
      specFields++;
      if (agreement[f] === 'agree') specAgree++;
    }
  }
  await closeOcrReaders();
  return {
    printed_generated_all_decisive_agree: `${allAgree}/${PRINTED_DOCS}`,
    printed_generated_field_agree: Object.fromEntries(DECISIVE.map((f) => [f, rate(agreeGen[f]!, PRINTED_DOCS)])),
    printed_specimens_fields_agree: `${specAgree}/${specFields}`,
    printed_ms_p50: Math.round(percentile(times, 50)),
    printed_ms_p95: Math.round(percentile(times, 95)),
    printed_cpu_ms_p50: Math.round(percentile(cpu, 50)),
    printed_cpu_ms_p95: Math.round(percentile(cpu, 95)),
    printed_second_passes: `${secondPasses}/${times.length}`,
    printed_rereads_lines: rereads.lines,
    printed_rereads_page: rereads.page,
  };
}

function measureValidity(): Record<string, unknown> {
  const fields = randomIdentity(1);
  const t = performance.now();
  const n = 10_000;
  for (let i = 0; i < n; i++) checkValidity({ fields, chosen: { country: 'FR', type: 'passport' }, flow: STANDARD_FLOW, today: new Date(), sandbox: true });
  return { validity_us_per_call: Math.round(((performance.now() - t) / n) * 1000 * 10) / 10 };
}

export async function measureDocument(): Promise<Record<string, unknown>> {
  return { ...(await measureQuality()), ...(await measureBarcodes()), ...(await measurePrintedZone()), ...measureValidity() };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const figures = await measureDocument();
  for (const [k, v] of Object.entries(figures)) console.log(`  ${k.padEnd(40)} ${typeof v === 'object' ? JSON.stringify(v) : v}`);
  console.log(JSON.stringify(figures));
  process.exit(0);
}
