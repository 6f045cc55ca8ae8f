import { randomBytes } from 'node:crypto';
import { appendJournal, insertSession, type CaseRow, type SessionRow, type Tenant, type Tx } from '@idv/db';
import { awaitsApplicant, newId, type CaseJournalAction } from '@idv/domain';
import { secretHash } from '@idv/vault';
import { ApiError } from '../http/api-error.ts';

/** A journey link lives one hour at most, and never beyond the case itself. */
const SESSION_TTL_MS = 3_600_000;

export interface IssuedSession {
  row: SessionRow;
  /** The journey url with its token: returned once, only its hash is stored. */
  url: string;
}

/**
 * Issues a journey link for a case that awaits the person (status created or collecting), for the
 * client's server (`key:…`), the console (`op:…`) or the person's own handoff to a phone
 * (`person`, a shorter life, journaled as `handoff.opened`), journaled in the caller's transaction.
 */
export async function issueSession(
  tx: Tx,
  tenant: Tenant,
  found: CaseRow,
  opts: {
    locale: string;
    actor: string;
    journeyUrl: string;
    now: Date;
    via?: string;
    /** Shorter than the hour, for a handoff's phone session. */
    ttlMs?: number;
    /** The journal entry, when not `session.created` (its detail gets the session id). */
    journal?: { action: CaseJournalAction; detail: Record<string, unknown> };
  },
): Promise<IssuedSession> {
  const { now } = opts;
  if (!awaitsApplicant(found.state) || found.expiresAt <= now) {
    const where = found.expiresAt <= now ? `expired at ${found.expiresAt.toISOString()}` : `is ${found.state} (status ${found.status})`;
    throw new ApiError(
      'case_not_awaiting_applicant',
      `The case ${where}; a journey link can be issued only while the case awaits the person (status created or collecting).`,
      'case_id',
    );
  }
  const token = randomBytes(32).toString('base64url');
  const id = newId('ses', now.getTime());
  const row = await insertSession(tx, {
    id,
    ...tenant,
    caseId: found.id,
    tokenHash: secretHash(token),
    locale: opts.locale,
    createdBy: opts.actor,
    createdAt: now,
    expiresAt: new Date(Math.min(now.getTime() + Math.min(opts.ttlMs ?? SESSION_TTL_MS, SESSION_TTL_MS), found.expiresAt.getTime())),
  });
  const detail = { ...opts.journal?.detail, session_id: id, ...(opts.via ? { via: opts.via } : {}) };
  await appendJournal(tx, tenant, { caseId: found.id, actor: opts.actor, action: opts.journal?.action ?? 'session.created', detail, at: now });
  return { row, url: `${opts.journeyUrl}/#${token}` };
}
