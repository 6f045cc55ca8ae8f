import { challengeKind, type CheckReport, type LivenessChallenge } from '@idv/domain';
import { compareData, questionnaireReport, readIdentity } from './case-data.ts';
import type { CaseAnalysis, CaseInput, DocumentPart, DocumentReading, FacePart, ZoneAgreement } from './case-types.ts';
import { barcodePresenceReport, compareBarcode } from './document/barcode-compare.ts';
import { printedZoneReport, type OcrPass } from './document/printed-zone.ts';
import { checkValidity } from './document/validity.ts';
import type { FaceFinding } from './faces/analyse-face.ts';
import { judgeFaceMatch } from './faces/face-check.ts';
import type { StillMediumJudgement } from './faces/medium/judge.ts';
import { judgeLiveness } from './faces/liveness.ts';
import { judgeSequence, type SequenceFrameReading } from './faces/sequence.ts';
import { MRZ_ACCEPT_CONFIDENCE } from './mrz/read.ts';
import { mrzReport, mrzVouched } from './mrz-report.ts';
import { walletPart, wantsWallet } from './wallet-check.ts';
import type { DocumentFields, RelativeBox } from './types.ts';

/**
 * The judgements of a case once its images are read, pure: the image work (quality, MRZ,
 * printed-zone OCR, faces) runs as separate tasks, possibly on different threads, and what
 * depends on several of them (the MRZ report needs the printed zone, liveness needs the selfie's
 * face) is decided here.
 */

export function wantsDocument(input: CaseInput): boolean {
  return input.flow.steps.includes('document') && input.document !== null;
}

/** The printed zone is read on every document that has an MRZ (driving licences do not). */
export function wantsPrintedZone(input: CaseInput): boolean {
  return wantsDocument(input) && input.document!.type !== 'driving_licence' && input.pieces.document_front !== undefined;
}

/**
 * The portrait the selfie is compared with: the document's front (its face is found there), or the
 * wallet credential's portrait when the identity came from the wallet.
 */
export function comparedPortrait(input: CaseInput): Uint8Array | undefined {
  return input.pieces.document_front ?? (wantsWallet(input) ? (input.wallet!.accepted?.portrait ?? undefined) : undefined);
}

/** Both faces are read only when both images are there; the challenges only with a selfie to compare to. */
export function wantsFaces(input: CaseInput): boolean {
  return input.flow.steps.includes('face') && input.pieces.selfie !== undefined && comparedPortrait(input) !== undefined;
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

/**
 * The document part's reports from what was read: quality, printed zone (only beside an MRZ
 * reading), MRZ, barcode, validity. `printed`: the OCR passes of the printed zone (null when not read).
 */
export function finishDocumentPart(input: CaseInput, reading: DocumentReading | null, printed: readonly OcrPass[] | null, ms: number): DocumentPart {
  const zoneAgreement: ZoneAgreement = {};
  if (!wantsDocument(input) || !reading) return { reports: [], read: null, zoneAgreement, ms };
  const chosen = input.document!;
  const sandbox = input.environment === 'sandbox';
  const reports: CheckReport[] = [...reading.reports];
  // An image that cannot be decoded is asked again (image_unreadable); nothing else can be read from it.
  if (!reading.decoded) return { reports, read: null, zoneAgreement, ms };

  let mrzFields: DocumentFields | null = null;
  if (reading.mrzWanted) {
    // The printed (visual) zone is on the front; its agreement with the zone is kept per field.
    let confirmed = false;
    if (reading.mrz && printed && printed.length > 0) {
      const zone = printedZoneReport(printed, reading.mrz);
      reports.push(zone.report);
      Object.assign(zoneAgreement, zone.agreement);
      confirmed = confirmedByPrintedZone(zone.agreement);
    }
    const mrz = mrzReport(reading.mrz, sandbox, MRZ_ACCEPT_CONFIDENCE, confirmed);
    reports.push(mrz);
    // Only a reading that is vouched for is used: validity, comparison and duplicates rest on it.
    if (reading.mrz && mrzVouched(mrz)) mrzFields = reading.mrz.fields;
  }

  const barcodeFields = reading.barcode?.fields ?? null;
  if (reading.barcode) {
    reports.push(barcodeFields && mrzFields ? compareBarcode(barcodeFields, mrzFields, 'mrz') : barcodePresenceReport(reading.barcode.found, reading.barcode.expected));
  }

  const fields = mrzFields ?? barcodeFields;
  if (fields) reports.push(checkValidity({ fields, chosen, flow: input.flow, today: input.now, sandbox }));
  return { reports, read: fields ? readIdentity(fields) : null, zoneAgreement, ms };
}

/** Faces found per image (null: not decodable; a challenge absent: no image or not read). */
export interface FaceReadings {
  portrait: FaceFinding[] | null;
  selfie: FaceFinding[] | null;
  /** The selfie's medium (screen or print?), judged when it has one face; absent or null otherwise. */
  selfieMedium?: StillMediumJudgement | null;
  challenges: Partial<Record<LivenessChallenge, FaceFinding[] | null>>;
  /** The live sequence's frames as read (null or absent: no sequence). */
  sequence?: SequenceFrameReading[] | null;
}

/** face_match and liveness from the faces found; `readings` null when `wantsFaces` was false. */
export function finishFacePart(input: CaseInput, readings: FaceReadings | null, ms: number): FacePart {
  const templates: FacePart['templates'] = { portrait: null, selfie: null };
  let portraitBox: FacePart['portraitBox'] = null;
  if (!input.flow.steps.includes('face')) return { reports: [], templates, portraitBox, ms };
  const reports: CheckReport[] = [];
  if (!input.pieces.selfie) {
    reports.push({ type: 'face_match', status: 'attention', reasons: ['selfie_face_not_found'], measures: { selfie_faces: 0 } });
  } else if (!comparedPortrait(input) || !readings) {
    reports.push({ type: 'face_match', status: 'attention', reasons: ['document_face_not_found'], measures: { document_faces: 0 } });
  } else {
    const match = judgeFaceMatch(readings.portrait, readings.selfie, input.flow.checks, readings.selfieMedium);
    reports.push(match.report);
    templates.portrait = match.documentFace ? Array.from(match.documentFace.descriptor) : null;
    portraitBox = match.documentFace ? relativeBox(match.documentFace) : null;
    templates.selfie = match.selfieFace ? Array.from(match.selfieFace.descriptor) : null;
    const challenges = input.flow.liveness.challenges;
    if (challenges.length > 0 && input.sequence && readings.sequence) {
      // The live sequence, judged against its own first frames; the selfie only tells whose face it is.
      const q = input.sequence;
      reports.push(
        judgeSequence({
          movements: q.movements,
          issuedAt: q.issuedAt,
          expiresAt: q.expiresAt,
          answeredAt: q.answeredAt,
          frames: readings.sequence,
          camera: q.camera,
          selfieFace: match.selfieFace ?? null,
          mirrored: false,
        }),
      );
    } else if (challenges.length > 0) {
      const liveness: CheckReport = match.selfieFace
        ? // The hosted journey saves the camera's own frames, unmirrored (see faces/liveness.ts).
          judgeLiveness({ challenges, selfieFace: match.selfieFace, found: stillsFound(input, readings, challenges), mirrored: false })
        : // Without one usable selfie face the challenges cannot be judged; face_match already asks for a retake.
          { type: 'liveness', status: 'attention', reasons: ['challenges_not_judged'], measures: { challenges: challenges.length, judged: 0 } };
      reports.push(recordStills(liveness, challenges.some((c) => input.pieces[challengeKind(c)])));
    }
  }
  return { reports, templates, portraitBox, ms };
}

function stillsFound(input: CaseInput, readings: FaceReadings, challenges: readonly LivenessChallenge[]): Partial<Record<LivenessChallenge, FaceFinding[] | null>> {
  const found: Partial<Record<LivenessChallenge, FaceFinding[] | null>> = {};
  for (const c of challenges) if (input.pieces[challengeKind(c)]) found[c] = readings.challenges[c] ?? null;
  return found;
}

/**
 * Movements sent as stills (only a flow with liveness.allow_stills accepts them) had no challenge
 * drawn by the service, no timing, no continuity and no planarity to judge: photos of the person
 * turning pass them. The report says so (challenge_stills, at least attention) and the flow's
 * presentation_attacks setting decides what follows (review by default; never approved).
 */
function recordStills(report: CheckReport, stills: boolean): CheckReport {
  if (!stills) return report;
  return { ...report, status: report.status === 'ok' ? 'attention' : report.status, reasons: [...report.reasons, 'challenge_stills'] };
}

/** A face's box as fractions of the image it was found in (four decimals: a tenth of a pixel on a 1024-pixel analysis). */
export function relativeBox(face: Pick<FaceFinding, 'box' | 'frame'>): RelativeBox {
  const r = (v: number) => Math.round(Math.min(1, Math.max(0, v)) * 10_000) / 10_000;
  const { x, y, width, height } = face.box;
  return { left: r(x / face.frame.width), top: r(y / face.frame.height), width: r(width / face.frame.width), height: r(height / face.frame.height) };
}

/** Reports of both parts plus the checks that need no image. */
export function combineParts(input: CaseInput, doc: DocumentPart, face: FacePart, totalMs: number, tasks?: CaseAnalysis['timings']['tasks']): CaseAnalysis {
  const wallet = walletPart(input);
  const checks: CheckReport[] = [...wallet.reports, ...doc.reports, ...face.reports];
  // The identity read: the document's, or the wallet's claims when it was the wallet's turn.
  const read = doc.read ?? wallet.read;
  const data = wantsDocument(input) || wantsWallet(input) ? compareData(input.declared, input.entered, read) : null;
  if (data) checks.push(data);
  const q = questionnaireReport(input.questionnaire, input.flow);
  if (q) checks.push(q);
  return {
    checks,
    reading: { fields: read, zoneAgreement: doc.zoneAgreement, faceTemplates: face.templates, portraitBox: face.portraitBox },
    timings: { document: doc.ms, face: face.ms, total: totalMs, ...(tasks ? { tasks } : {}) },
  };
}
