import { challengeKind, type CheckReport, type LivenessChallenge } from '@idv/domain';
import { compareData, questionnaireReport, readIdentity } from './case-data.ts';
import type { CaseAnalysis, CaseInput, DocumentPart, FacePart, ZoneAgreement } from './case-types.ts';
import { assessDocumentQuality } from './document/quality.ts';
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

export async function analyseDocumentPart(input: CaseInput): Promise<DocumentPart> {
  const started = Date.now();
  const front = input.pieces.document_front;
  const none: DocumentPart = { reports: [], read: null, zoneAgreement: {}, ms: 0 };
  if (!wantsDocument(input)) return { ...none, ms: Date.now() - started };
  const sandbox = input.environment === 'sandbox';
  const reports: CheckReport[] = [];
  const zoneAgreement: ZoneAgreement = {};
  if (!front) {
    reports.push({ type: 'document_quality', status: 'failed', reasons: ['document_not_found'], measures: { image: 0 } });
    return { reports, read: null, zoneAgreement, ms: Date.now() - started };
  }
  reports.push(await documentQuality(front, input.pieces.document_back));
  // The zone is on the back of two-sided cards (TD1), on the page of passports; try the other side too.
  const sides = input.pieces.document_back ? [input.pieces.document_back, front] : [front];
  let reading = null;
  for (const side of sides) {
    reading = await readMrz(side, { allowSpecimen: sandbox, now: input.now }).catch(() => null);
    if (reading) break;
  }
  const mrz = mrzReport(reading, sandbox, MRZ_ACCEPT_CONFIDENCE);
  reports.push(mrz);
  // Only a reading the reader vouches for is used: validity, data comparison and duplicates rest on it.
  const fields: DocumentFields | null = reading && reading.checkDigitsValid && reading.confidence >= MRZ_ACCEPT_CONFIDENCE ? reading.fields : null;
  if (fields) reports.push(checkValidity({ fields, chosen: input.document!, flow: input.flow, today: input.now, sandbox }));
  return { reports, read: fields ? readIdentity(fields) : null, zoneAgreement, ms: Date.now() - started };
}

/** One document_quality report for the photo(s) of the document: the reasons of either side; the back's measures prefixed. */
async function documentQuality(front: Uint8Array, back: Uint8Array | undefined): Promise<CheckReport> {
  const f = (await assessDocumentQuality(front)).report;
  if (!back) return f;
  const b = (await assessDocumentQuality(back)).report;
  const reasons = [...new Set([...f.reasons, ...b.reasons])];
  const measures = { ...f.measures, ...Object.fromEntries(Object.entries(b.measures).map(([k, v]) => [`back_${k}`, v])) };
  const status = f.status === 'failed' || b.status === 'failed' ? 'failed' : f.status === 'attention' || b.status === 'attention' ? 'attention' : 'ok';
  return { type: 'document_quality', status, reasons, measures };
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
