import type { CheckReason, CheckReport } from '@idv/domain';
import type { MrzReading } from '../types.ts';
import { decodeImage, toGrey, toSharp, type DecodedImage } from './decode.ts';
import { locateDocument, warpDocument, type Point } from './locate.ts';
import { loadOcrWorker } from './ocr-worker.ts';
import { agreementWithMrz, mergeAgreements, printedLines, PRINTED_FIELDS, type Agreement, type PrintedField } from './printed-zone-match.ts';
import { localThreshold } from './threshold.ts';

/**
 * The printed_zone check: OCR of the visual zone with tesseract.js (English model, local), and
 * its agreement with the MRZ per field. The agreement names fields, never values; a decisive
 * field the MRZ holds but the legible printed zone does not show is `differ`, and asks for
 * attention (OCR misses and misreads happen, so a difference never fails on its own).
 */
export interface PrintedZoneResult {
  agreement: Record<PrintedField, Agreement>;
  report: CheckReport;
  /** How many OCR passes were read (1, or 2 when the first missed a decisive field). */
  passes: number;
}

export interface ReadPrintedZoneOptions {
  /** The document's corners (from the quality check), to skip locating it again. */
  documentCorners?: Point[];
}

/**
 * Width the document is straightened to for OCR (print 2–3 mm high becomes 15–35 px). Measured on
 * generated documents: 1000 px agreed on more fields than 1400 (finer background patterns).
 */
export const OCR_WIDTH = 1000;
/** Fewer letters and digits than this outside the MRZ: the printed zone was not read. */
const MIN_CHARACTERS = 20;

export async function ocrText(image: DecodedImage): Promise<{ text: string; confidence: number }> {
  const worker = await loadOcrWorker();
  // A white margin keeps the sparse-text boxes inside the page (leptonica otherwise complains on
  // stderr about boxes clipped at the edge).
  const margin = 16;
  const white = image.channels === 1 ? { r: 255, g: 255, b: 255 } : '#ffffff';
  const png = await toSharp(image).extend({ top: margin, bottom: margin, left: margin, right: margin, background: white }).png({ compressionLevel: 1 }).toBuffer();
  const { data } = await worker.recognize(png);
  return { text: data.text, confidence: data.confidence };
}

/** One OCR pass over the straightened document: its text and tesseract's mean confidence. */
export interface OcrPass {
  text: string;
  confidence: number;
}

/**
 * The document straightened for OCR (grey, OCR_WIDTH wide), from its corners when the quality
 * check already located it, else located here, else the whole image.
 */
export async function straightenForOcr(input: Uint8Array | DecodedImage, options: ReadPrintedZoneOptions = {}): Promise<DecodedImage> {
  const decoded = input instanceof Uint8Array ? await decodeImage(input, { grey: true }) : input;
  const grey = toGrey(decoded);
  const corners = options.documentCorners ?? (await locateDocument(grey))?.corners ?? [[0, 0], [grey.width, 0], [grey.width, grey.height], [0, grey.height]];
  return warpDocument(grey, corners, OCR_WIDTH);
}

/**
 * First pass on a locally thresholded copy (guilloches and tints removed), the better single
 * pass measured. It needs no MRZ, so it can run beside the MRZ reader.
 */
export async function firstOcrPass(straightened: DecodedImage): Promise<OcrPass> {
  return ocrText(await localThreshold(straightened));
}

/** A second pass, on the plain grey copy, only when the first misses or contradicts a decisive field. */
export function needsSecondPass(first: OcrPass, mrz: MrzReading | null): boolean {
  const agreement = agreementWithMrz(first.text, mrz?.fields ?? null);
  return PRINTED_FIELDS.some((f) => agreement[f] === 'differ');
}

export async function secondOcrPass(straightened: DecodedImage): Promise<OcrPass> {
  return ocrText(straightened);
}

export async function readPrintedZone(input: Uint8Array | DecodedImage, mrz: MrzReading | null, options: ReadPrintedZoneOptions = {}): Promise<PrintedZoneResult> {
  const doc = await straightenForOcr(input, options);
  const first = await firstOcrPass(doc);
  const passes = needsSecondPass(first, mrz) ? [first, await secondOcrPass(doc)] : [first];
  return printedZoneReport(passes, mrz);
}

/**
 * The printed_zone check from the OCR passes already made, pure: a field agrees when either pass
 * shows it; the longer text gives the measures.
 */
export function printedZoneReport(passes: readonly OcrPass[], mrz: MrzReading | null): PrintedZoneResult {
  if (passes.length === 0) throw new Error('printedZoneReport needs at least one OCR pass');
  let agreement = agreementWithMrz(passes[0].text, mrz?.fields ?? null);
  let { text, confidence } = passes[0];
  for (const p of passes.slice(1)) {
    agreement = mergeAgreements(agreement, agreementWithMrz(p.text, mrz?.fields ?? null));
    if (p.text.length > text.length) ({ text, confidence } = p);
  }
  const characters = printedLines(text).join('').replace(/[^\p{L}\p{N}]/gu, '').length;
  const counts = { agree: 0, differ: 0, absent: 0 };
  const measures: Record<string, number> = { characters_read: characters, ocr_confidence: Math.round(confidence) };
  for (const f of PRINTED_FIELDS) {
    counts[agreement[f]]++;
    if (agreement[f] !== 'absent') measures[`${f}_agrees`] = agreement[f] === 'agree' ? 1 : 0;
  }
  measures.fields_agree = counts.agree;
  measures.fields_differ = counts.differ;
  measures.fields_absent = counts.absent;
  const reasons: CheckReason[] = [];
  if (characters < MIN_CHARACTERS) {
    reasons.push('printed_zone_unreadable');
    // Nothing was read, so nothing can differ: every field is absent rather than different.
    for (const f of PRINTED_FIELDS) agreement[f] = 'absent';
    measures.fields_differ = 0;
    measures.fields_agree = 0;
    measures.fields_absent = PRINTED_FIELDS.length;
  } else if (counts.differ > 0) reasons.push('printed_zone_differs');
  return { passes: passes.length, agreement, report: { type: 'printed_zone', status: reasons.length ? 'attention' : 'ok', reasons, measures } };
}
