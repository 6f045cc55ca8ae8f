import { challengeKind, type CheckReport, type LivenessChallenge } from '@idv/domain';
import { compareData, questionnaireReport, readIdentity } from './case-data.ts';
import type { CaseAnalysis, CaseInput, DocumentPart, FacePart, ZoneAgreement } from './case-types.ts';
import { parseAamva } from './document/aamva.ts';
import { barcodePresenceReport, compareBarcode } from './document/barcode-compare.ts';
import { readBarcodes } from './document/barcodes.ts';
import { readPrintedZone } from './document/printed-zone.ts';
import { assessDocumentQuality, type DocumentQuality } from './document/quality.ts';
import { checkValidity } from './document/validity.ts';
import { checkFaceMatch, checkLiveness, loadFaceModels } from './faces/index.ts';
import { loadMrzClassifier } from './mrz/classifier.ts';
import { MRZ_ACCEPT_CONFIDENCE, readMrz } from './mrz/read.ts';
import { loadOpenCv } from './opencv.ts';
import { mrzReport } from './mrz-report.ts';
import type { DocumentFields } from './types.ts';

/**
 * The checks of one case, composed from the engine's parts. Two parts run side by side on the
 * pool's two threads: the document part (machine-readable zone, validity…) and the face part
 * (portrait against selfie, liveness challenges); `combineParts` then adds what needs neither
 * image (data comparison, questionnaire) on the calling thread. `analyseCase` runs all of it on
 * one thread (tests, tools). Duplicates need the client's other cases: the runner adds them.
 */

function wantsDocument(input: CaseInput): boolean {
  return input.flow.steps.includes('document') && input.document !== null;
}

/** Issuers whose cards carry an AAMVA PDF417 barcode (driving licences and state identity cards). */
const AAMVA_COUNTRIES = ['US', 'CA'];

export async function analyseDocumentPart(input: CaseInput): Promise<DocumentPart> {
  const started = Date.now();
  const none: DocumentPart = { reports: [], read: null, zoneAgreement: {}, ms: 0 };
  if (!wantsDocument(input)) return { ...none, ms: Date.now() - started };
  const chosen = input.document!;
  const sandbox = input.environment === 'sandbox';
  const front = input.pieces.document_front;
  const back = input.pieces.document_back;
  const reports: CheckReport[] = [];
  const zoneAgreement: ZoneAgreement = {};
  if (!front) {
    reports.push({ type: 'document_quality', status: 'failed', reasons: ['document_not_found'], measures: { image: 0 } });
    return { reports, read: null, zoneAgreement, ms: Date.now() - started };
  }
  const quality = await documentQuality(front, back);
  reports.push(quality.report);
  // An image that cannot be decoded is asked again (image_unreadable); nothing else can be read from it.
  if (!quality.front.decoded) return { reports, read: null, zoneAgreement, ms: Date.now() - started };
  // The back of two-sided cards first: the zone and the barcode are printed there.
  const sides = back && quality.backDecoded ? [back, front] : [front];

  // Every ICAO document carries a machine-readable zone; driving licences do not.
  let mrzFields: DocumentFields | null = null;
  if (chosen.type !== 'driving_licence') {
    let reading = null;
    for (const side of sides) {
      reading = await readMrz(side, { allowSpecimen: sandbox, now: input.now });
      if (reading) break;
    }
    // The printed (visual) zone is on the front; its agreement with the zone is kept per field.
    let confirmed = false;
    if (reading) {
      // The front as decoded and located by the quality check: neither is done twice.
      const frontImage = quality.front.decoded ?? front;
      const printed = await readPrintedZone(frontImage, reading, { documentCorners: quality.front.location?.corners });
      if (printed) {
        reports.push(printed.report);
        Object.assign(zoneAgreement, printed.agreement);
        confirmed = confirmedByPrintedZone(printed.agreement);
      }
    }
    reports.push(mrzReport(reading, sandbox, MRZ_ACCEPT_CONFIDENCE, confirmed));
    // Only a reading that is vouched for is used: validity, comparison and duplicates rest on it.
    if (reading && reading.checkDigitsValid && (reading.confidence >= MRZ_ACCEPT_CONFIDENCE || confirmed)) mrzFields = reading.fields;
  }

  // North American licences and identity cards carry their data in a PDF417 barcode (AAMVA).
  let barcodeFields: DocumentFields | null = null;
  if (chosen.type === 'driving_licence' || AAMVA_COUNTRIES.includes(chosen.country)) {
    const expected = AAMVA_COUNTRIES.includes(chosen.country);
    let found = 0;
    for (const side of sides) {
      const codes = await readBarcodes(side);
      found += codes.length;
      for (const c of codes) barcodeFields ??= parseAamva(c.text);
      if (barcodeFields) break;
    }
    reports.push(barcodeFields && mrzFields ? compareBarcode(barcodeFields, mrzFields, 'mrz') : barcodePresenceReport(found, expected));
  }

  const fields = mrzFields ?? barcodeFields;
  if (fields) reports.push(checkValidity({ fields, chosen, flow: input.flow, today: input.now, sandbox }));
  return { reports, read: fields ? readIdentity(fields) : null, zoneAgreement, ms: Date.now() - started };
}

/**
 * The reader leaves a zone uncertain when the variants' vote does not settle letters no check
 * digit covers (names, sex, or letters sharing a check value). The printed zone settles them
 * when it shows the same names and no decisive field differs: two independent reads agree.
 */
export function confirmedByPrintedZone(agreement: Record<string, 'agree' | 'differ' | 'absent'>): boolean {
  const decisive = ['surname', 'given_names', 'birth_date', 'document_number', 'expiry_date'];
  return agreement.surname === 'agree' && agreement.given_names === 'agree' && decisive.every((f) => agreement[f] !== 'differ') && agreement.sex !== 'differ';
}

/** One document_quality report for the photo(s) of the document: the reasons of either side; the back's measures prefixed. */
async function documentQuality(front: Uint8Array, back: Uint8Array | undefined): Promise<{ report: CheckReport; front: DocumentQuality; backDecoded: boolean }> {
  const f = await assessDocumentQuality(front);
  if (!back) return { report: f.report, front: f, backDecoded: false };
  const bq = await assessDocumentQuality(back);
  const b = bq.report;
  const reasons = [...new Set([...f.report.reasons, ...b.reasons])];
  const measures = { ...f.report.measures, ...Object.fromEntries(Object.entries(b.measures).map(([k, v]) => [`back_${k}`, v])) };
  const statuses = [f.report.status, b.status];
  const status = statuses.includes('failed') ? 'failed' : statuses.includes('attention') ? 'attention' : 'ok';
  return { report: { type: 'document_quality', status, reasons, measures }, front: f, backDecoded: bq.decoded !== null };
}

export async function analyseFacePart(input: CaseInput): Promise<FacePart> {
  const started = Date.now();
  const templates: FacePart['templates'] = { portrait: null, selfie: null };
  if (!input.flow.steps.includes('face')) return { reports: [], templates, ms: Date.now() - started };
  const reports: CheckReport[] = [];
  const { document_front: documentImage, selfie } = input.pieces;
  if (!selfie) {
    reports.push({ type: 'face_match', status: 'attention', reasons: ['selfie_face_not_found'], measures: { selfie_faces: 0 } });
  } else if (!documentImage) {
    reports.push({ type: 'face_match', status: 'attention', reasons: ['document_face_not_found'], measures: { document_faces: 0 } });
  } else {
    const match = await checkFaceMatch({ documentImage, selfie, flowThresholds: input.flow.checks });
    reports.push(match.report);
    templates.portrait = match.documentFace ? Array.from(match.documentFace.descriptor) : null;
    templates.selfie = match.selfieFace ? Array.from(match.selfieFace.descriptor) : null;
    const challenges = input.flow.liveness.challenges;
    if (challenges.length > 0) {
      if (match.selfieFace) {
        const challengeImages: Partial<Record<LivenessChallenge, Uint8Array>> = {};
        for (const c of challenges) {
          const bytes = input.pieces[challengeKind(c)];
          if (bytes) challengeImages[c] = bytes;
        }
        // The hosted journey saves the camera's own frames, unmirrored (see faces/liveness.ts).
        reports.push(await checkLiveness({ challenges, selfieFace: match.selfieFace, challengeImages, mirrored: false }));
      } else {
        // Without one usable selfie face the challenges cannot be judged; face_match already asks for a retake.
        reports.push({ type: 'liveness', status: 'attention', reasons: [], measures: { challenges: challenges.length, judged: 0 } });
      }
    }
  }
  return { reports, templates, ms: Date.now() - started };
}

/** Reports of both parts plus the checks that need no image. */
export function combineParts(input: CaseInput, doc: DocumentPart, face: FacePart, totalMs: number): CaseAnalysis {
  const checks: CheckReport[] = [...doc.reports, ...face.reports];
  if (wantsDocument(input)) checks.push(compareData(input.declared, input.entered, doc.read));
  const q = questionnaireReport(input.questionnaire, input.flow);
  if (q) checks.push(q);
  return {
    checks,
    reading: { fields: doc.read, zoneAgreement: doc.zoneAgreement, faceTemplates: face.templates },
    timings: { document: doc.ms, face: face.ms, total: totalMs },
  };
}

/** Everything on the calling thread, one part after the other. */
export async function analyseCase(input: CaseInput): Promise<CaseAnalysis> {
  const started = Date.now();
  const doc = await analyseDocumentPart(input);
  const face = await analyseFacePart(input);
  return combineParts(input, doc, face, Date.now() - started);
}

/** Loads this thread's models ahead of the first case; returns the milliseconds it took. */
export async function warmUpEngine(): Promise<number> {
  const started = Date.now();
  await Promise.all([loadFaceModels(), loadMrzClassifier(), loadOpenCv()]);
  return Date.now() - started;
}
