import type { CheckReason, CheckReport } from '@idv/domain';
import type { MrzReading } from '../types.ts';
import { decodeImage, toGrey, type DecodedImage } from './decode.ts';
import { locateDocument, warpDocument, type Point } from './locate.ts';
import { loadOcrReaders } from './ocr-worker.ts';
import { cutPage, type PagePiece } from './page-cut.ts';
import { cropImage } from './crop.ts';
import { agreementWithMrz, mergeAgreements, printedLines, PRINTED_FIELDS, type Agreement, type PrintedField } from './printed-zone-match.ts';
import { linesToReread, type Box, type OcrLine } from './printed-zone-reread.ts';
import { localThreshold } from './threshold.ts';
import { framedPgm } from './pgm.ts';
import { dropHairlines } from './hairlines.ts';

/**
 * The printed_zone check: OCR of the visual zone with tesseract.js (English model, local), and
 * its agreement with the MRZ per field. The agreement names fields, never values; a decisive
 * field the MRZ holds but the legible printed zone does not show is `differ`, and asks for
 * attention (OCR misses and misreads happen, so a difference never fails on its own).
 */
export interface PrintedZoneResult {
  agreement: Record<PrintedField, Agreement>;
  report: CheckReport;
  /**
   * What each OCR pass read, in order: the first the page; when it missed a decisive field, its
   * lines again (`lines`), then the whole page (`page`) when they were not enough.
   */
  scopes: OcrPass['scope'][];
}

export interface ReadPrintedZoneOptions {
  /** The document's corners (from the quality check), to skip locating it again. */
  documentCorners?: Point[];
}

/**
 * Width the document is straightened to for OCR (print 2–3 mm high becomes 15–35 px). Measured on
 * generated documents: 1000 px agreed on more fields than 1400 (finer background patterns).
 */
const OCR_WIDTH = 1000;
/** Fewer letters and digits than this outside the MRZ: the printed zone was not read. */
const MIN_CHARACTERS = 20;

/** One OCR reading: its text, tesseract's mean confidence and (first pass) where its lines are. */
export interface OcrPass {
  text: string;
  confidence: number;
  /** The lines found, in the read image's pixels (asked for on the first pass only). */
  lines: OcrLine[];
  /** What was read: the whole page, or only some of its lines again. */
  scope: 'page' | 'lines';
}

/**
 * A margin keeps the sparse-text boxes inside the image (leptonica otherwise complains on stderr
 * about boxes clipped at the edge).
 */
const MARGIN = 16;

export interface OcrTextOptions {
  /** Keep where the lines are (tesseract's TSV). */
  lines?: boolean;
    /**
     * The margin's pixels: white, or the image's edges repeated (`copy`, for a grey crop: tesseract
     * thresholds over the whole image, and a white frame around a thin crop turns its background to ink).
     */
  frame?: 'white' | 'copy';
}

export function ocrText(image: DecodedImage, options: OcrTextOptions = {}): Promise<OcrPass> {
  return ocrPieces([{ image, top: 0 }], options);
}

/** One reading of a page read in pieces at once (page-cut.ts), each on its own worker. */
async function ocrPieces(pieces: readonly PagePiece[], options: OcrTextOptions): Promise<OcrPass> {
  const readers = await loadOcrReaders();
  const read = await Promise.all(
    pieces.map(async ({ image, top }) => {
      // The lines come from tesseract's TSV (a row per line, then its words), far lighter than its JSON blocks.
      const { data } = await readers.recognize(framedPgm(image, MARGIN, options.frame ?? 'white'), { text: true, tsv: options.lines ?? false });
      const lines = options.lines && data.tsv ? linesOfTsv(data.tsv, image).map((l) => ({ ...l, box: { ...l.box, y0: l.box.y0 + top, y1: l.box.y1 + top } })) : [];
      return { text: data.text, confidence: data.confidence, lines };
    }),
  );
  return { text: read.map((r) => r.text).join('\n'), confidence: meanConfidence(read), lines: read.flatMap((r) => r.lines), scope: 'page' };
}

/** Tesseract's mean confidence over pieces read apart (a page's halves, lines read again), each weighted by the characters it read. */
function meanConfidence(read: readonly { text: string; confidence: number }[]): number {
  const weights = read.map((r) => r.text.replace(/\s/g, '').length);
  const sum = weights.reduce((a, b) => a + b, 0);
  return sum === 0 ? read.reduce((a, r) => a + r.confidence, 0) / read.length : read.reduce((a, r, i) => a + r.confidence * weights[i]!, 0) / sum;
}

/** Tesseract's TSV (level 4 rows are lines, level 5 their words) as lines, in the image's pixels (the margin taken off). */
export function linesOfTsv(tsv: string, page: { width: number; height: number }): OcrLine[] {
  const lines = new Map<string, OcrLine>();
  for (const row of tsv.split('\n')) {
    const c = row.split('\t');
    if (c.length < 12 || (c[0] !== '4' && c[0] !== '5')) continue;
    const key = c.slice(1, 5).join('.');
    if (c[0] === '4') {
      const [left, top, width, height] = c.slice(6, 10).map(Number) as [number, number, number, number];
      const box: Box = { x0: Math.max(0, left - MARGIN), y0: Math.max(0, top - MARGIN), x1: Math.min(page.width, left + width - MARGIN), y1: Math.min(page.height, top + height - MARGIN) };
      lines.set(key, { text: '', box });
    } else {
      const line = lines.get(key);
      if (line) line.text = line.text ? `${line.text} ${c[11]}` : c[11]!;
    }
  }
  return [...lines.values()].filter((l) => l.text.trim() !== '' && l.box.x1 > l.box.x0 && l.box.y1 > l.box.y0);
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
 * First pass on a locally thresholded copy without its hairlines and specks; it needs no MRZ, so it
 * runs beside the reader, and keeps where its lines are for a second pass. A page that can be cut
 * between lines is read in two halves at once (page-cut.ts); a grey page is always read whole.
 */
export async function firstOcrPass(straightened: DecodedImage): Promise<OcrPass> {
  const binary = await dropHairlines(await localThreshold(straightened));
  return ocrPieces(await cutPage(binary), { lines: true });
}

/** The decisive fields the MRZ holds that a reading does not show. */
function missedFields(pass: OcrPass, mrz: MrzReading | null): PrintedField[] {
  const agreement = agreementWithMrz(pass.text, mrz?.fields ?? null);
  return PRINTED_FIELDS.filter((f) => agreement[f] === 'differ');
}

/** A second pass is read only when the first misses or contradicts a decisive field. */
export function needsSecondPass(first: OcrPass, mrz: MrzReading | null): boolean {
  return missedFields(first, mrz).length > 0;
}

/**
 * The second reading, on the plain grey copy (where the threshold thinned or broke the print):
 * first only the first pass's lines closest to each missed field's value (`linesToReread`), each
 * cropped and read alone; then, if a missed field is still not shown, the whole page. Returns the
 * passes read (none when nothing was missed, else one or two).
 */
export async function secondOcrPasses(straightened: DecodedImage, first: OcrPass, mrz: MrzReading | null): Promise<OcrPass[]> {
  const missed = missedFields(first, mrz);
  if (missed.length === 0) return [];
  const boxes = linesToReread(first.lines, missed.map((field) => ({ field, value: String(mrz?.fields?.[field] ?? '') })), straightened);
  if (!boxes) return [await ocrText(straightened)];
  // Read at once, each on its own worker.
  const crops = await Promise.all(boxes.map((box) => ocrText(cropImage(straightened, box), { frame: 'copy' })));
  const lines: OcrPass = { text: crops.map((c) => c.text).join('\n'), confidence: meanConfidence(crops), lines: [], scope: 'lines' };
  const shown = agreementWithMrz(lines.text, mrz?.fields ?? null);
  if (missed.every((f) => shown[f] === 'agree')) return [lines];
  return [lines, await ocrText(straightened)];
}

export async function readPrintedZone(input: Uint8Array | DecodedImage, mrz: MrzReading | null, options: ReadPrintedZoneOptions = {}): Promise<PrintedZoneResult> {
  const doc = await straightenForOcr(input, options);
  const first = await firstOcrPass(doc);
  return printedZoneReport([first, ...(await secondOcrPasses(doc, first, mrz))], mrz);
}

/**
 * The printed_zone check from the OCR passes already made, pure: a field agrees when any pass
 * shows it; the longest text gives the measures.
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
  // Legible, but the MRZ gave nothing to look for (every field absent): nothing compared is not a pass.
  else if (counts.agree === 0) reasons.push('printed_zone_not_compared');
  return { scopes: passes.map((p) => p.scope), agreement, report: { type: 'printed_zone', status: reasons.length ? 'attention' : 'ok', reasons, measures } };
}
