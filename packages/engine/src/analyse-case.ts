import { challengeKind, type CheckReport, type LivenessChallenge } from '@idv/domain';
import { wantsDocument, wantsPrintedZone } from './case-finish.ts';
import type { CaseInput, DocumentReading, FacesFound, PrintedOcr } from './case-types.ts';
import { parseAamva } from './document/aamva.ts';
import { readBarcodes } from './document/barcodes.ts';
import { decodeImage, type DecodedImage } from './document/decode.ts';
import { loadOcrReaders, OCR_WORKERS } from './document/ocr-worker.ts';
import { firstOcrPass, ocrText, secondOcrPasses, straightenForOcr, type OcrPass } from './document/printed-zone.ts';
import { assessDocumentQuality, type DocumentQuality } from './document/quality.ts';
import { analyseFaces } from './faces/analyse-face.ts';
import { judgeImageMedium } from './faces/medium/read.ts';
import { loadFaceModels } from './faces/index.ts';
import { loadMrzClassifier } from './mrz/classifier.ts';
import { readMrz } from './mrz/read.ts';
import { loadOpenCv } from './opencv.ts';
import { timedTask } from './pool/thread-cpu.ts';
import type { DocumentFields, MrzReading } from './types.ts';
import { exerciseCases } from './warm-exercise.ts';

export { confirmedByPrintedZone } from './case-finish.ts';

// The image work of one case as independent tasks (document, printed zone, faces of each image),
// which the pool runs side by side; case-finish.ts then judges what depends on several.

/** Issuers whose cards carry an AAMVA PDF417 barcode (driving licences and state identity cards). */
const AAMVA_COUNTRIES = ['US', 'CA'];

/** The document task: quality, MRZ, barcode (the printed zone is its own task). */
export async function readDocumentPart(input: CaseInput): Promise<DocumentReading | null> {
  if (!wantsDocument(input)) return null;
  const { result, timing } = await timedTask(() => readDocument(input));
  return { ...result.reading, timing };
}

async function readDocument(input: CaseInput): Promise<{ reading: Omit<DocumentReading, 'timing'>; front: DocumentQuality | null }> {
  const chosen = input.document!;
  const sandbox = input.environment === 'sandbox';
  const front = input.pieces.document_front;
  const back = input.pieces.document_back;
  const mrzWanted = chosen.type !== 'driving_licence';
  const nothing = { mrzWanted, mrz: null, barcode: null };
  if (!front) {
    const notFound: CheckReport = { type: 'document_quality', status: 'failed', reasons: ['document_not_found'], measures: { image: 0 } };
    return { reading: { reports: [notFound], decoded: false, ...nothing }, front: null };
  }
  const quality = await documentQuality(front, back);
  if (!quality.front.decoded) return { reading: { reports: [quality.report], decoded: false, ...nothing }, front: quality.front };
  // The back of two-sided cards first: the zone and the barcode are printed there.
  const sides = back && quality.backDecoded ? [back, front] : [front];

  // Every ICAO document carries a machine-readable zone; driving licences do not.
  let mrz = null;
  if (mrzWanted) {
    for (const side of sides) {
      mrz = await readMrz(side, { allowSpecimen: sandbox, now: input.now });
      if (mrz) break;
    }
  }

  // North American licences and identity cards carry their data in a PDF417 barcode (AAMVA).
  let barcode: DocumentReading['barcode'] = null;
  if (chosen.type === 'driving_licence' || AAMVA_COUNTRIES.includes(chosen.country)) {
    let fields: DocumentFields | null = null;
    let found = 0;
    for (const side of sides) {
      const codes = await readBarcodes(side);
      found += codes.length;
      for (const c of codes) fields ??= parseAamva(c.text);
      if (fields) break;
    }
    barcode = { fields, found, expected: AAMVA_COUNTRIES.includes(chosen.country) };
  }
  return { reading: { reports: [quality.report], decoded: true, mrzWanted, mrz, barcode }, front: quality.front };
}

/** One document_quality report for the photo(s) of the document: the reasons of either side; the back's measures prefixed. */
async function documentQuality(front: Uint8Array, back: Uint8Array | undefined): Promise<{ report: CheckReport; front: DocumentQuality; backDecoded: boolean }> {
  const f = await assessDocumentQuality(front);
  if (!back) return { report: f.report, front: f, backDecoded: false };
  const bq = await assessDocumentQuality(back, 'back');
  const b = bq.report;
  const reasons = [...new Set([...f.report.reasons, ...b.reasons])];
  const measures = { ...f.report.measures, ...Object.fromEntries(Object.entries(b.measures).map(([k, v]) => [`back_${k}`, v])) };
  const statuses = [f.report.status, b.status];
  const status = statuses.includes('failed') ? 'failed' : statuses.includes('attention') ? 'attention' : 'ok';
  return { report: { type: 'document_quality', status, reasons, measures }, front: f, backDecoded: bq.decoded !== null };
}

/**
 * The printed-zone task: the front decoded as the quality check decodes it (so the document is
 * located at the same corners), straightened, and read once. It runs beside the MRZ reader, so
 * it does not know the zone yet: the second pass, when the first misses a decisive field, is
 * asked for afterwards (`readSecondOcrPass`). Null when there is no printed zone to read.
 */
export async function readPrintedOcr(input: CaseInput): Promise<PrintedOcr | null> {
  if (!wantsPrintedZone(input)) return null;
  const { result, timing } = await timedTask(async () => {
    let decoded: DecodedImage;
    try {
      decoded = await decodeImage(input.pieces.document_front!);
    } catch {
      return null; // the quality check reports image_unreadable
    }
    const straightened = await straightenForOcr(decoded);
    return { straightened, passes: [await firstOcrPass(straightened)] };
  });
  return result && { ...result, timing };
}

/**
 * The printed zone's second reading (`secondOcrPasses`: the first pass's lines closest to each
 * missed value, then the page if needed) on the straightened front a `readPrintedOcr` returned,
 * possibly cloned from another thread.
 */
export async function readSecondOcrPasses(straightened: DecodedImage, first: OcrPass, mrz: MrzReading): Promise<{ passes: OcrPass[]; timing: FacesFound['timing'] }> {
  const image = { ...straightened, data: Buffer.from(straightened.data.buffer, straightened.data.byteOffset, straightened.data.byteLength) };
  const { result, timing } = await timedTask(() => secondOcrPasses(image, first, mrz));
  return { passes: result, timing };
}

/**
 * A face task: every face of one image (null when it cannot be decoded). The document photo keeps
 * more pixels so its small portrait stays describable. `medium`: the selfie's task also judges
 * whether its one face is on a screen or a print (faces/medium), in the same task.
 */
export async function readFaces(image: Uint8Array, maxSide?: number, medium = false): Promise<FacesFound> {
  const { result, timing } = await timedTask(async () => {
    const faces = await analyseFaces(image, maxSide ? { maxSide } : {}).catch(() => null);
    const judged = medium && faces?.length === 1 ? await judgeImageMedium(image, faces[0]!).catch(() => null) : null;
    return { faces, medium: judged };
  });
  return { ...result, timing };
}

/** The document portrait is read at up to this many pixels (longer side). */
export const PORTRAIT_MAX_SIDE = 1024;

/** The flow's challenge images that were sent, by challenge. */
export function challengeImages(input: CaseInput): [LivenessChallenge, Uint8Array][] {
  const out: [LivenessChallenge, Uint8Array][] = [];
  for (const c of input.flow.liveness.challenges) {
    const bytes = input.pieces[challengeKind(c)];
    if (bytes) out.push([c, bytes]);
  }
  return out;
}

/**
 * Loads this thread's models ahead of the first case; returns the milliseconds it took. `images`:
 * what the document and face tasks use (faces, MRZ, OpenCV); `printed_zone`: what the OCR task
 * uses (OpenCV, tesseract); `all` (default): everything, for a thread that runs whole cases.
 * Each part then runs once on a made-up case (warm-exercise.ts).
 */
export async function warmUpEngine(part: 'all' | 'images' | 'printed_zone' = 'all'): Promise<number> {
  const started = Date.now();
  const images = part !== 'printed_zone' ? [loadFaceModels(), loadMrzClassifier()] : [];
  const ocr = part !== 'images' ? [loadOcrReaders()] : [];
  await Promise.all([...images, loadOpenCv(), ...ocr]);
  // Then one made-up case through this thread's tasks: the first run of each is the slow one. The
  // models are loaded whatever happens here, so a failure only leaves that first run slow.
  await exercise(part).catch(() => {});
  return Date.now() - started;
}

async function exercise(part: 'all' | 'images' | 'printed_zone'): Promise<void> {
  const { passport, card, selfie } = await exerciseCases();
  if (part !== 'printed_zone') {
    await Promise.all([readDocumentPart(passport), readFaces(passport.pieces.document_front!, PORTRAIT_MAX_SIDE)]);
    await Promise.all([readDocumentPart(await card()), readFaces(selfie, undefined, true)]);
  }
  if (part !== 'images') {
    const first = await readPrintedOcr(passport);
    // The grey page, as a second reading reads it, once on each of the thread's OCR workers (the
    // first pass's halves reach both only when the page has a cut).
    if (first) await Promise.all(Array.from({ length: OCR_WORKERS }, () => ocrText(first.straightened)));
  }
}
