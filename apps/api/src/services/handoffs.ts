import {
  appendJournal,
  claimHandoff,
  countHandoffsOfSession,
  findCase,
  findHandoffByCodeHash,
  findHandoffOfSession,
  findSession,
  insertHandoff,
  setHandoffPhoneSession,
  supersedeWaitingHandoffs,
  type Executor,
  type HandoffRow,
  type SessionByToken,
  type Tenant,
  type Tx,
} from '@idv/db';
import {
  HANDOFFS_PER_SESSION,
  HANDOFF_CODE_TTL_MS,
  HANDOFF_PATH_PREFIX,
  HANDOFF_SESSION_TTL_MS,
  awaitsApplicant,
  formatHandoffCode,
  handoffStatus,
  newHandoffCode,
  newId,
  nextStep,
  normaliseHandoffCode,
  type HandoffStatus,
} from '@idv/domain';
import { constantTimeEqual, secretHash } from '@idv/vault';
import { ApiError } from '../http/api-error.ts';
import { PERSON, journeyPosition, type JourneyPosition, type OpenedJourney } from './journey-state.ts';
import { issueSession } from './sessions.ts';

/**
 * The desktop-to-phone handoff (docs/journey.md#continuing-on-a-phone). The desktop's journey asks
 * for a short code; the phone opens it once and receives a session of its own for the same case;
 * the desktop follows where the journey stands. The desktop's token never leaves the desktop, and
 * the phone's is made only when the phone opens the code, in the phone's browser.
 */

export interface PresentedHandoff {
  object: 'handoff';
  id: string;
  status: HandoffStatus;
  expires_at: string;
  opened_at: string | null;
  journey: JourneyPosition;
}

function present(row: HandoffRow, status: HandoffStatus, journey: JourneyPosition): PresentedHandoff {
  return {
    object: 'handoff',
    id: row.id,
    status,
    expires_at: row.expiresAt.toISOString(),
    opened_at: row.openedAt?.toISOString() ?? null,
    journey,
  };
}

/**
 * A new code for the desktop's open journey (the caller holds the case lock): it replaces the
 * session's code not opened yet, and is refused past HANDOFFS_PER_SESSION. Journaled as
 * `handoff.created`. The code and the short link are returned once; only the code's hash is kept.
 */
export async function createHandoff(tx: Tx, j: OpenedJourney, opts: { journeyUrl: string; now: Date }) {
  const { now } = opts;
  const { session, tenant, caseRow } = j;
  if ((await countHandoffsOfSession(tx, session.id)) >= HANDOFFS_PER_SESSION) {
    throw new ApiError('handoff_limit_reached', `This journey link has asked for ${HANDOFFS_PER_SESSION} handoff codes, as many as it may.`);
  }
  await supersedeWaitingHandoffs(tx, session.id, now);
  const code = newHandoffCode();
  const row = await insertHandoff(tx, {
    id: newId('hof', now.getTime()),
    ...tenant,
    caseId: caseRow.id,
    sessionId: session.id,
    codeHash: secretHash(code),
    createdAt: now,
    // Nothing outlives the link it came from: the code ends with the desktop's session at the latest.
    expiresAt: new Date(Math.min(now.getTime() + HANDOFF_CODE_TTL_MS, caseRow.expiresAt.getTime(), session.expiresAt.getTime())),
  });
  await appendJournal(tx, tenant, { caseId: caseRow.id, actor: PERSON, action: 'handoff.created', detail: { handoff_id: row.id, session_id: session.id }, at: now });
  const shown = formatHandoffCode(code);
  return {
    ...present(row, 'waiting', { status: 'open', step: nextStep(j.flow, j.progress) }),
    code: shown,
    url: `${opts.journeyUrl}${HANDOFF_PATH_PREFIX}${shown}`,
  };
}

/** One handoff of the desktop's session and where the journey stands: status and step only. */
export async function followHandoff(db: Executor, session: SessionByToken, id: string, now: Date): Promise<PresentedHandoff> {
  const found = await findHandoffOfSession(db, session.id, id);
  if (!found) throw new ApiError('resource_not_found', 'No such handoff for this journey link.', 'handoff_id');
  const status = handoffStatus({ ...found.handoff, phoneSessionExpiresAt: found.phoneSessionExpiresAt }, now);
  return present(found.handoff, status, await journeyPosition(db, session, now));
}

/**
 * The phone opens a code (typed or scanned): once, within its ten minutes, unless a newer code
 * replaced it. The phone gets a new session of the same case, in the desktop session's language,
 * living HANDOFF_SESSION_TTL_MS; journaled as `handoff.opened` with that session's id. Unknown
 * codes and spent ones are 401s, counted against the caller's address by the rate limits.
 */
export async function openHandoff(tx: Tx, typed: string, opts: { journeyUrl: string; now: Date }) {
  const { now } = opts;
  const code = normaliseHandoffCode(typed);
  if (!code) throw new ApiError('handoff_code_invalid');
  const hash = secretHash(code);
  const row = await findHandoffByCodeHash(tx, hash);
  // The lookup is by hash; the comparison keeps the final check constant-time anyway.
  if (!row || !constantTimeEqual(row.codeHash, hash)) throw new ApiError('handoff_code_invalid');
  if (row.openedAt || row.supersededAt || row.expiresAt <= now || !(await claimHandoff(tx, row.id, now))) throw new ApiError('handoff_code_expired');
  const tenant: Tenant = { clientId: row.clientId, environment: row.environment };
  const [caseRow, desktop] = [await findCase(tx, tenant, row.caseId), await findSession(tx, tenant, row.sessionId)];
  if (!caseRow || !desktop) throw new Error(`handoff ${row.id} lost its case or session`);
  // A code made before its link ended does not open after it (codes made before this rule too).
  if (desktop.expiresAt <= now) throw new ApiError('handoff_code_expired');
  if (!awaitsApplicant(caseRow.state) || caseRow.expiresAt <= now) {
    throw new ApiError('journey_closed', `The case is ${caseRow.state}; the journey accepts nothing more.`);
  }
  const { row: phone, url } = await issueSession(tx, tenant, caseRow, {
    locale: desktop.locale,
    actor: PERSON,
    journeyUrl: opts.journeyUrl,
    now,
    ttlMs: Math.min(HANDOFF_SESSION_TTL_MS, desktop.expiresAt.getTime() - now.getTime()),
    journal: { action: 'handoff.opened', detail: { handoff_id: row.id } },
  });
  await setHandoffPhoneSession(tx, row.id, phone.id);
  return { object: 'handoff_session' as const, url, expires_at: phone.expiresAt.toISOString() };
}
