import {
  answeredWalletRequests,
  appendJournal,
  applyCaseTrigger,
  ensureJourney,
  findAppearance,
  findCase,
  findCaseForUpdate,
  findFlowById,
  findJourney,
  listPieces,
  updateJourney,
  type AppearanceRow,
  type CaseRow,
  type Executor,
  type JourneyRow,
  type PieceRow,
  type SessionByToken,
  type Tenant,
} from '@idv/db';
import {
  IMAGE_LIMITS,
  acceptedDocumentTypes,
  awaitsApplicant,
  documentSides,
  isPieceKind,
  localised,
  missingItems,
  nextStep,
  requiredPieces,
  resolveLocale,
  roundSteps,
  walletClaimsFor,
  walletSettings,
  WALLET_REFUSALS_PER_ROUND,
  type DocumentType,
  type FlowDefinition,
  type FlowStep,
  type JourneyProgress,
  type PieceKind,
} from '@idv/domain';
import { ApiError } from '../http/api-error.ts';
import { presentAppearance } from '../presenters/appearance.ts';

/** Where the journey of a case stands for the person: the screen the app shows. */
type JourneyStatus = 'open' | 'completed' | 'declined' | 'expired';

export interface OpenedJourney {
  session: SessionByToken;
  tenant: Tenant;
  caseRow: CaseRow;
  flow: FlowDefinition;
  journey: JourneyRow | null;
  status: JourneyStatus;
  /** Current pieces (not superseded) of the current round. */
  pieces: PieceRow[];
  wallet: WalletRound;
  progress: JourneyProgress;
}

export const PERSON = 'person';

/** Whose a row the journey writes is (a piece, a challenge, a wallet request): client, environment, case, session and round. */
export function journeyRowOwner(j: OpenedJourney & { journey: JourneyRow }) {
  return { clientId: j.tenant.clientId, environment: j.tenant.environment, caseId: j.caseRow.id, sessionId: j.session.id, round: j.journey.round };
}

function statusOf(caseRow: CaseRow, journey: JourneyRow | null, now: Date): JourneyStatus {
  if (journey?.declinedAt) return 'declined';
  if (awaitsApplicant(caseRow.state)) return caseRow.expiresAt <= now ? 'expired' : 'open';
  if (caseRow.state === 'expired' || caseRow.state === 'abandoned') return 'expired';
  return 'completed';
}

function progressOf(caseRow: CaseRow, journey: JourneyRow | null, pieces: PieceRow[], wallet: WalletRound): JourneyProgress {
  const resubmission =
    caseRow.state === 'resubmission_requested' && caseRow.resubmission ? (caseRow.resubmission.steps as ('document' | 'face')[]) : null;
  return {
    wallet: wallet.status,
    consented: Boolean(journey?.consentedAt),
    applicantDone: Boolean(journey?.applicantSealed),
    questionnaireDone: Boolean(journey?.answersSealed),
    document: journey?.documentCountry && journey.documentType ? { country: journey.documentCountry, type: journey.documentType as DocumentType } : null,
    pieces: pieces.map((p) => p.kind).filter(isPieceKind),
    resubmission,
  };
}

/** The wallet in the journey's current round: accepted, or refused as often as a round allows. */
interface WalletRound {
  status: 'accepted' | 'refused' | null;
  refused: number;
}

const NO_WALLET: WalletRound = { status: null, refused: 0 };

async function walletRound(db: Executor, flow: FlowDefinition, caseId: string, journey: JourneyRow | null): Promise<WalletRound> {
  if (!journey || !flow.steps.includes('wallet')) return NO_WALLET;
  const answered = (await answeredWalletRequests(db, caseId, journey.round)).filter((r) => r.round === journey.round);
  const refused = answered.filter((r) => r.outcome !== 'accepted').length;
  if (answered.some((r) => r.outcome === 'accepted')) return { status: 'accepted', refused };
  return { status: refused >= WALLET_REFUSALS_PER_ROUND ? 'refused' : null, refused };
}

/**
 * Opens the journey of the session's case inside the caller's transaction, with the case row
 * locked (every write of the journey serialises on it). The first call of the person moves the
 * case from created to collecting; after a resubmission decision, the first call opens the next
 * round, which asks only the steps the decision names.
 */
export async function openJourney(tx: Executor, session: SessionByToken, now: Date): Promise<OpenedJourney> {
  const tenant: Tenant = { clientId: session.clientId, environment: session.environment };
  let caseRow = (await findCaseForUpdate(tx, tenant, session.caseId))!;
  const flowRow = await findFlowById(tx, caseRow.flowId);
  if (!flowRow) throw new Error(`flow ${caseRow.flowId} of case ${caseRow.id} is missing`);
  let journey = await findJourney(tx, caseRow.id);
  const status = statusOf(caseRow, journey, now);
  if (status === 'open') {
    if (caseRow.journeyStarted === 0) {
      caseRow = await applyCaseTrigger(tx, tenant, caseRow, { type: 'journey_started' }, now);
      await appendJournal(tx, tenant, { caseId: caseRow.id, actor: PERSON, action: 'journey.started', detail: { session_id: session.id }, at: now });
    }
    journey ??= await ensureJourney(tx, tenant, caseRow.id, now);
    if (caseRow.state === 'resubmission_requested' && journey.finishedAt) {
      const steps = caseRow.resubmission?.steps ?? [];
      journey = await updateJourney(
        tx,
        caseRow.id,
        { round: journey.round + 1, finishedAt: null, ...(steps.includes('document') ? { documentCountry: null, documentType: null } : {}) },
        now,
      );
      await appendJournal(tx, tenant, { caseId: caseRow.id, actor: PERSON, action: 'journey.round_started', detail: { round: journey.round, steps }, at: now });
    }
  }
  const pieces = await currentPieces(tx, caseRow.id, journey);
  const wallet = await walletRound(tx, flowRow.definition, caseRow.id, journey);
  return { session, tenant, caseRow, flow: flowRow.definition, journey, status, pieces, wallet, progress: progressOf(caseRow, journey, pieces, wallet) };
}

/** The pieces of the journey's current round that no retake replaced. */
async function currentPieces(db: Executor, caseId: string, journey: JourneyRow | null): Promise<PieceRow[]> {
  if (!journey) return [];
  return (await listPieces(db, caseId)).filter((p) => p.round === journey.round && !p.supersededAt);
}

/** Where the person stands, as another device following the journey may know it: no data, no piece. */
export interface JourneyPosition {
  status: JourneyStatus;
  /** The step the person is at (`check` once everything has arrived); null when not open. */
  step: FlowStep | 'check' | null;
}

/**
 * The position of the journey of a session's case, read without locking or changing anything: a
 * desktop that handed the journey to a phone asks for it every few seconds while the phone's own
 * calls take the case lock.
 */
export async function journeyPosition(db: Executor, session: SessionByToken, now: Date): Promise<JourneyPosition> {
  const tenant: Tenant = { clientId: session.clientId, environment: session.environment };
  const caseRow = (await findCase(db, tenant, session.caseId))!;
  const journey = await findJourney(db, caseRow.id);
  const status = statusOf(caseRow, journey, now);
  if (status !== 'open') return { status, step: null };
  const flowRow = await findFlowById(db, caseRow.flowId);
  if (!flowRow) throw new Error(`flow ${caseRow.flowId} of case ${caseRow.id} is missing`);
  const wallet = await walletRound(db, flowRow.definition, caseRow.id, journey);
  return { status, step: nextStep(flowRow.definition, progressOf(caseRow, journey, await currentPieces(db, caseRow.id, journey), wallet)) };
}

/** Refuses any write unless the journey is open (the case waits for the person and has not expired). */
export function requireOpen(j: OpenedJourney): asserts j is OpenedJourney & { journey: JourneyRow } {
  if (j.status === 'open' && j.journey) return;
  const where: Record<JourneyStatus, string> = {
    open: 'is open',
    completed: `has everything it needs (status ${j.caseRow.status})`,
    declined: 'was declined by the person',
    expired: 'has expired or was closed',
  };
  throw new ApiError('journey_closed', `The case ${where[j.status]}; the journey accepts nothing more.`);
}

/**
 * What the journey app needs to show the case's steps: the flow's texts in the session's
 * language and what has been done, never personal data (entered values and images are not sent
 * back, only which steps and pieces are done).
 */
function presentJourney(j: OpenedJourney, allowFileUpload: boolean, appearance: AppearanceRow | null) {
  const locale = resolveLocale(j.session.locale);
  const flow = j.flow;
  const open = j.status === 'open';
  const p = j.progress;
  const country = p.document?.country ?? j.caseRow.country;
  return {
    object: 'journey' as const,
    status: j.status,
    locale,
    expires_at: j.session.expiresAt.toISOString(),
    round: j.journey?.round ?? 1,
    steps: roundSteps(flow, p.resubmission),
    step: open ? nextStep(flow, p) : null,
    missing: open ? missingItems(flow, p) : [],
    consent: { given: p.consented },
    applicant: {
      done: p.applicantDone,
      fields: flow.applicant.fields.map((f) => ({ name: f.name, required: f.required })),
    },
    questionnaire: {
      done: p.questionnaireDone,
      questions: flow.questionnaire.questions.map((q) => ({
        id: q.id,
        label: localised(q.label, locale),
        answers: q.answers.map((a) => ({ id: a.id, label: localised(a.label, locale) })),
      })),
    },
    document: {
      case_country: j.caseRow.country,
      accepted: flow.documents.map((d) => ({ country: d.country, types: [...d.types] })),
      types_for_case_country: [...acceptedDocumentTypes(flow, country)],
      chosen: p.document,
      sides: p.document ? documentSides(p.document.type) : [],
    },
    face: { challenges: [...flow.liveness.challenges] },
    wallet: roundSteps(flow, p.resubmission).includes('wallet')
      ? {
          ...walletSettings(flow),
          claims: walletClaimsFor(flow),
          status: j.wallet.status,
          refusals_left: Math.max(0, WALLET_REFUSALS_PER_ROUND - j.wallet.refused),
          sandbox_wallet: j.tenant.environment === 'sandbox',
        }
      : null,
    required_pieces: requiredPieces(flow, p),
    pieces: j.pieces.map((piece) => ({ id: piece.id, kind: piece.kind as PieceKind, received_at: piece.receivedAt.toISOString() })),
    capture: { allow_file_upload: allowFileUpload },
    appearance: journeyAppearance(j, appearance),
    limits: {
      max_bytes: IMAGE_LIMITS.maxBytes,
      min_short_side: IMAGE_LIMITS.minShortSide,
      min_long_side: IMAGE_LIMITS.minLongSide,
      max_side: IMAGE_LIMITS.maxSide,
      types: [...IMAGE_LIMITS.types],
    },
  };
}

/**
 * The client's look for the journey app: colours applied as CSS custom properties (which the
 * journey's CSP allows, unlike inline styles) and the logo served by the journey server itself
 * (img-src 'self'), at an address that changes with the logo.
 */
function journeyAppearance(j: OpenedJourney, row: AppearanceRow | null) {
  const a = presentAppearance(row);
  return {
    display_name: a.display_name,
    primary_color: a.primary_color,
    background_color: a.background_color,
    button_label_color: a.button_label_color,
    logo_path: a.logo ? `/brand/${j.tenant.clientId}/${j.tenant.environment}/${a.logo.sha256}` : null,
  };
}

/**
 * The journey state the app is answered with, read inside the caller's transaction: the client's
 * appearance is read here, once per answer, not by openJourney (a write opens the journey twice).
 */
export async function journeyStateOf(tx: Executor, j: OpenedJourney) {
  return presentJourney(j, fileUploadAllowed(j), await findAppearance(tx, j.tenant));
}

/** A file input instead of live capture: where the flow allows it, and always in the sandbox (testing). */
function fileUploadAllowed(j: OpenedJourney): boolean {
  return j.flow.capture.allow_file_upload || j.tenant.environment === 'sandbox';
}
