import { isCountryCode } from './countries.ts';
import {
  APPLICANT_FIELDS,
  LIVENESS_CHALLENGES,
  acceptedDocumentTypes,
  stillsAllowed,
  walletSettings,
  type DocumentType,
  type FlowDefinition,
  type LocalisedText,
} from './flow.ts';
import { resolveLocale } from './locales.ts';

/**
 * The hosted journey as pure rules: what the person still has to do for a case, which images the
 * flow asks for, and what entered data and answers are acceptable. The journey routes apply them
 * to what is stored; the journey app shows the steps they name.
 */

export type FlowStep = FlowDefinition['steps'][number];

export type LivenessChallenge = (typeof LIVENESS_CHALLENGES)[number];
export const PIECE_KINDS = [
  'document_front',
  'document_back',
  'selfie',
  'liveness_turn_left',
  'liveness_turn_right',
  'liveness_look_up',
  'liveness_look_down',
  // One frame of the live sequence (face-sequence.ts): many per round, in capture order.
  'liveness_frame',
  // The portrait a wallet credential disclosed (docs/wallet.md): stored by the wallet routes, never uploaded.
  'wallet_portrait',
] as const;
export type PieceKind = (typeof PIECE_KINDS)[number];

export function isPieceKind(value: string): value is PieceKind {
  return (PIECE_KINDS as readonly string[]).includes(value);
}

/** Biometric pieces are sealed under the case's biometric key, document sides under its data key. */
export function pieceKeyClass(kind: PieceKind): 'data' | 'biometric' {
  return kind === 'document_front' || kind === 'document_back' ? 'data' : 'biometric';
}

/** Cards have a back (machine-readable zone or barcode); passports and visas are read from one page. */
const TWO_SIDED: readonly DocumentType[] = ['id_card', 'driving_licence', 'residence_permit'];

export function documentSides(type: DocumentType): PieceKind[] {
  return TWO_SIDED.includes(type) ? ['document_front', 'document_back'] : ['document_front'];
}

export const challengeKind = (c: LivenessChallenge): PieceKind => `liveness_${c}` as PieceKind;

/** Limits on every image the journey uploads. */
export const IMAGE_LIMITS = {
  maxBytes: 10 * 1024 * 1024,
  /** The shorter side must reach this many pixels (a readable document, a usable face). */
  minShortSide: 320,
  /** The longer side must reach this many pixels. */
  minLongSide: 480,
  maxSide: 8192,
  /** Guards against decompression bombs: width × height. */
  maxPixels: 40_000_000,
  /** Uploads of one kind over the case's whole life (retakes and resubmissions included). */
  maxUploadsPerKind: 10,
  /**
   * Types accepted. HEIC is recognised but refused: its HEVC codec is not in the image library the
   * service ships (browsers hand JPEG to pages anyway: camera frames are encoded by the journey app,
   * and iOS converts HEIC photos chosen in a file input).
   */
  types: ['image/jpeg', 'image/png', 'image/webp', 'image/avif'] as const,
} as const;
export type ImageType = 'image/jpeg' | 'image/png' | 'image/webp' | 'image/heic' | 'image/avif';

/**
 * The image type from the first bytes, whatever the name or the Content-Type say: JPEG (FF D8 FF),
 * PNG (its 8-byte signature), WebP (RIFF….WEBP), HEIC/HEIF and AVIF (ISO BMFF `ftyp` box brands).
 */
export function sniffImageType(head: Uint8Array): ImageType | null {
  const at = (i: number) => head[i];
  const ascii = (from: number, to: number) => String.fromCharCode(...head.subarray(from, to));
  if (head.length >= 3 && at(0) === 0xff && at(1) === 0xd8 && at(2) === 0xff) return 'image/jpeg';
  if (head.length >= 8 && [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => at(i) === b)) return 'image/png';
  if (head.length >= 12 && ascii(0, 4) === 'RIFF' && ascii(8, 12) === 'WEBP') return 'image/webp';
  if (head.length >= 12 && ascii(4, 8) === 'ftyp') {
    const size = (at(0) << 24) | (at(1) << 16) | (at(2) << 8) | at(3);
    const end = Math.min(head.length, size > 16 && size <= 64 ? size : 16);
    const brands = [ascii(8, 12)];
    for (let i = 16; i + 4 <= end; i += 4) brands.push(ascii(i, i + 4));
    if (brands.some((b) => b === 'avif' || b === 'avis')) return 'image/avif';
    if (brands.some((b) => ['heic', 'heix', 'hevc', 'hevx', 'heim', 'heis', 'mif1', 'msf1'].includes(b))) return 'image/heic';
  }
  return null;
}

/** Why image dimensions are refused, or null when they are within the limits. */
export function dimensionProblem(width: number, height: number): string | null {
  const short = Math.min(width, height);
  const long = Math.max(width, height);
  if (long > IMAGE_LIMITS.maxSide || width * height > IMAGE_LIMITS.maxPixels) {
    return `The image is ${width}×${height} pixels; at most ${IMAGE_LIMITS.maxSide} pixels a side and ${IMAGE_LIMITS.maxPixels / 1_000_000} megapixels are accepted.`;
  }
  if (short < IMAGE_LIMITS.minShortSide || long < IMAGE_LIMITS.minLongSide) {
    return `The image is ${width}×${height} pixels; at least ${IMAGE_LIMITS.minLongSide}×${IMAGE_LIMITS.minShortSide} is needed to read it.`;
  }
  return null;
}

/** What has been recorded for the current round of a case's journey. */
export interface JourneyProgress {
  consented: boolean;
  applicantDone: boolean;
  questionnaireDone: boolean;
  document: { country: string; type: DocumentType } | null;
  /** Kinds received in the current round. */
  pieces: readonly PieceKind[];
  /** Steps asked again after a resubmission decision; null on the first round. */
  resubmission: readonly ('document' | 'face')[] | null;
  /**
   * The wallet in this round: `accepted` (a presentation was accepted), `refused` (as many were
   * refused as a round allows: the check reports the last refusal); absent or null: none yet.
   */
  wallet?: 'accepted' | 'refused' | null;
}

/** Presentations a round may have refused before the wallet step counts as done (and its check as failed). */
export const WALLET_REFUSALS_PER_ROUND = 3;

/** With the document fallback, the document chosen stands for the wallet and the wallet's answer for the document. */
function walletAnswered(def: FlowDefinition, p: JourneyProgress): boolean {
  return Boolean(p.wallet) && roundSteps(def, p.resubmission).includes('wallet');
}
function fellBack(def: FlowDefinition, p: JourneyProgress): boolean {
  return walletSettings(def).document_fallback && p.document !== null;
}

/** The flow's steps this round asks for: all of them, or only those a resubmission names. */
export function roundSteps(def: FlowDefinition, resubmission: JourneyProgress['resubmission']): FlowStep[] {
  if (!resubmission) return [...def.steps];
  return def.steps.filter((s) => (resubmission as readonly string[]).includes(s));
}

/** Every piece this round needs, in capture order; document sides only once the type is chosen. */
export function requiredPieces(def: FlowDefinition, p: Pick<JourneyProgress, 'document' | 'resubmission' | 'wallet'>): PieceKind[] {
  const steps = roundSteps(def, p.resubmission);
  const kinds: PieceKind[] = [];
  if (steps.includes('document') && p.document && !walletAnswered(def, p as JourneyProgress)) kinds.push(...documentSides(p.document.type));
  if (steps.includes('face')) kinds.push('selfie', ...(def.liveness.challenges.length > 0 ? ['liveness_frame' as const] : []));
  return kinds;
}

function stepDone(def: FlowDefinition, p: JourneyProgress, step: FlowStep): boolean {
  const has = (k: PieceKind) => p.pieces.includes(k);
  switch (step) {
    case 'consent':
      return p.consented;
    case 'applicant':
      return p.applicantDone;
    case 'questionnaire':
      return p.questionnaireDone;
    case 'wallet':
      return walletAnswered(def, p) || fellBack(def, p);
    case 'document':
      if (walletAnswered(def, p)) return true;
      return p.document !== null && documentSides(p.document.type).every(has);
    case 'face':
      return has('selfie') && (def.liveness.challenges.length === 0 || has('liveness_frame') || (stillsAllowed(def) && def.liveness.challenges.map(challengeKind).every(has)));
  }
}

/** The first step of the round not yet done, or `check` once everything has arrived. */
export function nextStep(def: FlowDefinition, p: JourneyProgress): FlowStep | 'check' {
  return roundSteps(def, p.resubmission).find((s) => !stepDone(def, p, s)) ?? 'check';
}

/** What is still missing before the case can leave `collecting` (step names and piece kinds, never data). */
export function missingItems(def: FlowDefinition, p: JourneyProgress): string[] {
  const missing: string[] = [];
  for (const step of roundSteps(def, p.resubmission)) {
    // With the fallback, an unanswered wallet step is what is missing, not also a document.
    if (step === 'document' && stepDone(def, p, step)) continue;
    if (step === 'document' && !p.document && walletSettings(def).document_fallback && roundSteps(def, p.resubmission).includes('wallet')) continue;
    if (step === 'document' && !p.document) missing.push('document_choice');
    else if (step === 'document' || step === 'face') {
      for (const kind of requiredPieces(def, p)) {
        const ofStep = kind.startsWith('document_') ? 'document' : 'face';
        if (ofStep === step && !p.pieces.includes(kind) && !stepDone(def, p, step)) missing.push(kind);
      }
    } else if (!stepDone(def, p, step)) missing.push(step);
  }
  return missing;
}

/** The step that must be done before `step` can be recorded (consent gates everything), or null. */
export function blockingStep(def: FlowDefinition, p: JourneyProgress, step: FlowStep): FlowStep | null {
  const steps = roundSteps(def, p.resubmission);
  if (!steps.includes(step)) return null;
  if (steps.includes('consent') && step !== 'consent' && !p.consented) return 'consent';
  return null;
}

/** Whether this round expects a piece of that kind now; otherwise a reason code and a message. */
export function pieceExpectation(
  def: FlowDefinition,
  p: JourneyProgress,
  kind: PieceKind,
): { ok: true } | { ok: false; code: 'piece_not_expected' | 'document_not_chosen' | 'face_sequence_required'; message: string } {
  const steps = roundSteps(def, p.resubmission);
  if (kind === 'wallet_portrait') return { ok: false, code: 'piece_not_expected', message: 'The wallet portrait comes with the wallet presentation, never as an upload.' };
  const step: FlowStep = kind.startsWith('document_') ? 'document' : 'face';
  if (step === 'document' && walletAnswered(def, p)) return { ok: false, code: 'piece_not_expected', message: 'A wallet presentation was accepted: this journey asks for no document photo.' };
  if (!steps.includes(step)) return { ok: false, code: 'piece_not_expected', message: `This journey does not ask for ${kind}.` };
  if (step === 'document' && !p.document) {
    return { ok: false, code: 'document_not_chosen', message: 'Choose the country and type of the document before sending its photos.' };
  }
  // The live sequence's frames come only with their challenge (POST /v1/sessions/current/face/sequence).
  if (kind === 'liveness_frame') return { ok: false, code: 'piece_not_expected', message: 'Frames of the live sequence are sent together with their challenge.' };
  // One still per movement: the earlier capture, with no challenge drawn by the service, so photos
  // of the person pass it. Accepted only where the flow says so (docs/flows.md#the-live-sequence-or-stills).
  const still = def.liveness.challenges.map(challengeKind).includes(kind) && steps.includes('face');
  if (still && !stillsAllowed(def)) {
    return {
      ok: false,
      code: 'face_sequence_required',
      message: `This flow asks for the live sequence of the head movements (POST /v1/sessions/current/face/challenge, then /face/sequence), not one still per movement (${kind}).`,
    };
  }
  if (!still && !requiredPieces(def, p).includes(kind)) {
    return { ok: false, code: 'piece_not_expected', message: `This journey does not ask for ${kind}${p.document ? ` with a ${p.document.type}` : ''}.` };
  }
  return { ok: true };
}

// ------------------------------------------------------------------ entered data and answers

type ApplicantField = (typeof APPLICANT_FIELDS)[number];
export interface FieldProblem {
  field: string;
  message: string;
}

const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;
const PHONE = /^\+?[0-9 ().-]{6,24}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function checkField(name: ApplicantField, raw: string, today: string): string | null {
  const value = raw.trim();
  switch (name) {
    case 'given_names':
    case 'surname':
      if (value.length > 200) return 'must be at most 200 characters';
      if (CONTROL.test(value) || /[\r\n]/.test(value)) return 'must be one line of text';
      return null;
    case 'address':
      if (value.length > 500) return 'must be at most 500 characters';
      if (CONTROL.test(value)) return 'must be plain text';
      return null;
    case 'birth_date': {
      const m = DATE.exec(value);
      if (!m) return 'must be a date written YYYY-MM-DD';
      const d = new Date(`${value}T00:00:00Z`);
      if (Number.isNaN(d.getTime()) || d.toISOString().slice(0, 10) !== value) return 'is not a calendar date';
      if (Number(m[1]) < 1900 || value > today) return 'must be between 1900-01-01 and today';
      return null;
    }
    case 'email':
      return value.length <= 254 && EMAIL.test(value) ? null : 'must be an e-mail address';
    case 'phone': {
      const digits = value.replace(/\D/g, '').length;
      return PHONE.test(value) && digits >= 6 && digits <= 15 ? null : 'must be a phone number (6 to 15 digits, optionally starting with +)';
    }
    case 'nationality':
      return isCountryCode(value) ? null : 'must be an ISO 3166-1 alpha-2 country code';
  }
}

/**
 * Checks what the person entered against the flow's applicant fields: required fields present,
 * no field the flow does not ask for, each value in its format. Returns the trimmed values to
 * store (empty optional fields left out) or the first problem.
 */
export function validateApplicant(
  def: FlowDefinition,
  input: Record<string, unknown>,
  today: string,
): { ok: true; values: Record<string, string> } | { ok: false; problem: FieldProblem } {
  const asked = new Map(def.applicant.fields.map((f) => [f.name as string, f.required]));
  for (const key of Object.keys(input)) {
    if (!asked.has(key)) return { ok: false, problem: { field: key, message: `The flow does not ask for ${key}.` } };
  }
  const values: Record<string, string> = {};
  for (const [name, required] of asked) {
    const raw = input[name];
    if (raw !== undefined && typeof raw !== 'string') return { ok: false, problem: { field: name, message: `${name} must be a string.` } };
    const value = (raw ?? '').trim();
    if (!value) {
      if (required) return { ok: false, problem: { field: name, message: `${name} is required.` } };
      continue;
    }
    const problem = checkField(name as ApplicantField, value, today);
    if (problem) return { ok: false, problem: { field: name, message: `${name} ${problem}.` } };
    values[name] = name === 'nationality' ? value.toUpperCase() : value;
  }
  return { ok: true, values };
}

/** Every question of the flow answered once, with one of its own answers; returns points and flags. */
export function validateAnswers(
  def: FlowDefinition,
  answers: Record<string, unknown>,
): { ok: true; points: number; flags: string[] } | { ok: false; problem: FieldProblem } {
  const questions = new Map(def.questionnaire.questions.map((q) => [q.id, q]));
  for (const key of Object.keys(answers)) {
    if (!questions.has(key)) return { ok: false, problem: { field: `answers.${key}`, message: `The questionnaire has no question ${key}.` } };
  }
  let points = 0;
  const flags: string[] = [];
  for (const q of def.questionnaire.questions) {
    const given = answers[q.id];
    if (given === undefined) return { ok: false, problem: { field: `answers.${q.id}`, message: `The question ${q.id} needs an answer.` } };
    const answer = typeof given === 'string' ? q.answers.find((a) => a.id === given) : undefined;
    if (!answer) return { ok: false, problem: { field: `answers.${q.id}`, message: `The answer to ${q.id} must be one of ${q.answers.map((a) => a.id).join(', ')}.` } };
    points += answer.points;
    if (answer.flag) flags.push(answer.flag);
  }
  return { ok: true, points, flags };
}

/** The document choice against the flow: an assigned country with an accepted type. */
export function documentChoiceProblem(def: FlowDefinition, country: string, type: string): string | null {
  if (!isCountryCode(country)) return `${country} is not an ISO 3166-1 alpha-2 country code.`;
  const types = acceptedDocumentTypes(def, country);
  if (types.length === 0) return `The flow accepts no document issued in ${country}.`;
  if (!(types as readonly string[]).includes(type)) return `The flow accepts for ${country}: ${types.join(', ')}.`;
  return null;
}

/** The text of a localised flow label in the session's language, English as the fallback. */
export function localised(label: LocalisedText, locale: string): string {
  return label[resolveLocale(locale)] ?? label.en;
}
