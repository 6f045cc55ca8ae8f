import type { CaseState, CaseTrigger } from './case-state.ts';
import type { OperatorRole } from './operators.ts';
import { roleCan } from './operators.ts';

/**
 * Review tasks, as pure rules: the queue order, the lock, decisions, double validation and
 * revisions. The API and the database layer apply them; nothing here does I/O.
 */

/**
 * TaskStatus, the values of the queue's `status` filter:
 * - `open`: waiting for a decision (claimed or not: the lock is shown beside the status);
 * - `second_validation`: under double validation, one operator has decided and a different one
 *   must give the same outcome;
 * - `escalated`: the two operators disagreed; a supervisor (or administrator) decides;
 * - `closed`: concluded (by operators, by a key, or the case left review otherwise).
 */
export const TASK_STATUSES = ['open', 'second_validation', 'escalated', 'closed'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];
/** What the queue shows when no status is asked for. */
export const ACTIVE_TASK_STATUSES: readonly TaskStatus[] = ['open', 'second_validation', 'escalated'];

export const RISK_MIN = 0;
export const RISK_MAX = 100;
/** Risk at or above which the summary counts a task as high risk. */
export const HIGH_RISK = 70;

/** A lock lasts thirty minutes of inactivity; each call under the lock pushes the deadline. */
export const LOCK_TTL_MS = 30 * 60_000;

export interface TaskLock {
  lockedBy: string | null;
  lockExpiresAt: Date | null;
}

/**
 * Where an operator stands with the lock of a task:
 * - `free`: nobody holds it (never claimed, released, or the holder's lock lapsed);
 * - `held`: this operator holds it and it is live;
 * - `lost`: this operator held it and it lapsed (spec: 409 lock_expired, claim again);
 * - `other`: another operator holds a live lock.
 */
export type LockPosition = 'free' | 'held' | 'lost' | 'other';

export function lockPosition(lock: TaskLock, operatorId: string, now: Date): LockPosition {
  const live = lock.lockedBy !== null && lock.lockExpiresAt !== null && lock.lockExpiresAt > now;
  if (lock.lockedBy === operatorId) return live ? 'held' : 'lost';
  return live ? 'other' : 'free';
}

export function lockDeadline(now: Date): Date {
  return new Date(now.getTime() + LOCK_TTL_MS);
}

export function isOverdue(task: { status: TaskStatus; dueAt: Date }, now: Date): boolean {
  return task.status !== 'closed' && task.dueAt <= now;
}

// ---------------------------------------------------------------- queue order and cursor

export interface QueuePosition {
  riskScore: number;
  dueAt: Date;
  id: string;
}

/**
 * The cursor of the queue names the last task of a page by its position: `<risk>.<due ms in base
 * 36>.<task id>` (at most 3 + 1 + 9 + 1 + 30 = 44 characters; the spec allows 64). Callers treat
 * it as opaque.
 */
export function encodeQueueCursor(p: QueuePosition): string {
  return `${p.riskScore}.${p.dueAt.getTime().toString(36)}.${p.id}`;
}

const CURSOR = /^(\d{1,3})\.([0-9a-z]{1,11})\.(tsk_[0-9a-hjkmnp-tv-z]{26})$/;

export function decodeQueueCursor(cursor: string): QueuePosition | null {
  const m = CURSOR.exec(cursor);
  if (!m) return null;
  const riskScore = Number(m[1]);
  const ms = parseInt(m[2], 36);
  if (riskScore > RISK_MAX || !Number.isSafeInteger(ms)) return null;
  return { riskScore, dueAt: new Date(ms), id: m[3] };
}

// ---------------------------------------------------------------- decisions

export const OPERATOR_OUTCOMES = ['approve', 'reject', 'resubmit'] as const;
export type OperatorOutcome = (typeof OPERATOR_OUTCOMES)[number];
export const RESUBMISSION_STEPS = ['document', 'face'] as const;
export type ResubmissionStepName = (typeof RESUBMISSION_STEPS)[number];

/**
 * The closed list of reason codes shared by the console, the key decision route and the events.
 * `reject` reasons end a case; `resubmit` reasons ask the person to retake photos.
 */
export const REASON_CODES = {
  document_expired: { applies: 'reject', label: 'The document has expired.' },
  document_not_accepted: { applies: 'reject', label: 'The document type or issuing country is not accepted.' },
  document_tampered: { applies: 'reject', label: 'The document shows signs of tampering or forgery.' },
  document_specimen: { applies: 'reject', label: 'The document is a specimen or a copy.' },
  face_mismatch: { applies: 'reject', label: 'The face does not match the document portrait.' },
  liveness_failed: { applies: 'reject', label: 'The person was not shown to be present.' },
  data_mismatch: { applies: 'reject', label: 'The identity read does not match what was declared.' },
  underage: { applies: 'reject', label: 'The person is under the minimum age of the flow.' },
  duplicate_identity: { applies: 'reject', label: 'Another case carries the same document or face.' },
  suspected_fraud: { applies: 'reject', label: 'Other signs of fraud.' },
  document_blurred: { applies: 'resubmit', label: 'The document photo is blurred.' },
  document_glare: { applies: 'resubmit', label: 'Glare hides part of the document.' },
  document_cropped: { applies: 'resubmit', label: 'Part of the document is outside the photo.' },
  document_side_missing: { applies: 'resubmit', label: 'A side of the document is missing.' },
  face_unclear: { applies: 'resubmit', label: 'The selfie is too dark, blurred or partly hidden.' },
} as const satisfies Record<string, { applies: 'reject' | 'resubmit'; label: string }>;
export type ReasonCode = keyof typeof REASON_CODES;
export const REASON_CODE_LIST = Object.keys(REASON_CODES) as ReasonCode[];

export interface DecisionInput {
  outcome: OperatorOutcome;
  reason_code?: string | null;
  steps?: readonly string[] | null;
}

/**
 * What is wrong with a decision body beyond its schema, as [field, message], or null. `reject`
 * needs a reject reason; `resubmit` needs steps and takes an optional resubmit reason; `approve`
 * takes neither.
 */
export function decisionProblem(d: DecisionInput): [string, string] | null {
  const reason = d.reason_code ?? null;
  const steps = d.steps ?? null;
  if (reason !== null && !(reason in REASON_CODES)) return ['reason_code', `${reason} is not in the closed list of reason codes.`];
  switch (d.outcome) {
    case 'approve':
      if (reason !== null) return ['reason_code', 'An approval carries no reason_code.'];
      if (steps !== null) return ['steps', 'Only a resubmission carries steps.'];
      return null;
    case 'reject':
      if (reason === null) return ['reason_code', 'A rejection needs a reason_code from the closed list.'];
      if (REASON_CODES[reason as ReasonCode].applies !== 'reject') return ['reason_code', `${reason} is a resubmission reason, not a rejection reason.`];
      if (steps !== null) return ['steps', 'Only a resubmission carries steps.'];
      return null;
    case 'resubmit':
      if (steps === null || steps.length === 0) return ['steps', 'A resubmission names the steps to retake (document, face).'];
      if (reason !== null && REASON_CODES[reason as ReasonCode].applies !== 'resubmit') {
        return ['reason_code', `${reason} is a rejection reason, not a resubmission reason.`];
      }
      return null;
  }
}

export interface RecordedDecision {
  actor: string;
  outcome: OperatorOutcome;
  reasonCode: string | null;
  steps: readonly string[] | null;
}

/** Two decisions agree when they give the same outcome with the same reason and the same steps. */
export function sameDecision(a: Omit<RecordedDecision, 'actor'>, b: Omit<RecordedDecision, 'actor'>): boolean {
  const steps = (s: readonly string[] | null) => (s ? [...s].sort().join(',') : '');
  return a.outcome === b.outcome && (a.reasonCode ?? null) === (b.reasonCode ?? null) && steps(a.steps) === steps(b.steps);
}

export type TaskStep =
  | { kind: 'conclude'; decision: Omit<RecordedDecision, 'actor'> }
  | { kind: 'await_second_validation' }
  | { kind: 'escalate' };

/**
 * What a new decision does to a task. Without double validation it concludes. With it, the first
 * decision waits for a second operator; agreement concludes, disagreement escalates; the decision
 * of a supervisor on an escalated task concludes.
 */
export function nextTaskStep(
  task: { status: TaskStatus; doubleValidation: boolean },
  earlier: readonly RecordedDecision[],
  decision: RecordedDecision,
): TaskStep {
  if (task.status === 'closed') throw new Error('a closed task takes no decision');
  if (!task.doubleValidation || task.status === 'escalated') return { kind: 'conclude', decision };
  if (task.status === 'open') return { kind: 'await_second_validation' };
  const first = earlier[earlier.length - 1];
  return first && sameDecision(first, decision) ? { kind: 'conclude', decision } : { kind: 'escalate' };
}

export type DecideRefusal = 'task_closed' | 'role_cannot_review' | 'escalated_needs_supervisor' | 'same_operator_twice';

/** Whether an operator may take (claim) and decide a task in its current status. */
export function mayWorkOnTask(
  role: OperatorRole,
  task: { status: TaskStatus },
  operatorAlreadyDecided: boolean,
): DecideRefusal | null {
  if (task.status === 'closed') return 'task_closed';
  if (!roleCan(role, 'review')) return 'role_cannot_review';
  if (task.status === 'escalated' && !roleCan(role, 'arbitrate')) return 'escalated_needs_supervisor';
  if (operatorAlreadyDecided) return 'same_operator_twice';
  return null;
}

/** Whether the decisions of others on a task may be shown to this operator. */
export function mayShowDecisions(doubleValidation: boolean, operatorDecided: boolean): boolean {
  return !doubleValidation || operatorDecided;
}

/** The case trigger a concluding decision applies. */
export function caseTriggerOf(outcome: OperatorOutcome): CaseTrigger {
  switch (outcome) {
    case 'approve':
      return { type: 'concluded', outcome: 'approved' };
    case 'reject':
      return { type: 'concluded', outcome: 'rejected' };
    case 'resubmit':
      return { type: 'resubmission_requested' };
  }
}

// ---------------------------------------------------------------- revisions

export type DecidedOutcome = 'approved' | 'rejected';

export interface RevisionInput {
  outcome: 'approve' | 'reject';
  reason_code?: string | null;
}

/**
 * Whether a revision may be written: the case must be decided (approved or rejected) and the
 * revision must change the outcome or its reason. Checked before anything is written.
 */
export function revisionProblem(
  caseState: CaseState,
  current: { outcome: DecidedOutcome; reasonCode: string | null } | null,
  revision: RevisionInput,
): 'case_not_decided' | 'revision_changes_nothing' | null {
  if ((caseState !== 'approved' && caseState !== 'rejected') || !current) return 'case_not_decided';
  const outcome: DecidedOutcome = revision.outcome === 'approve' ? 'approved' : 'rejected';
  if (outcome === current.outcome && (revision.reason_code ?? null) === (current.reasonCode ?? null)) return 'revision_changes_nothing';
  return null;
}

// ---------------------------------------------------------------- corrections

/** Fields of the read identity an operator may enter from the image (kept as annotations). */
export const CORRECTABLE_FIELDS = [
  'subject.surname',
  'subject.given_names',
  'subject.birth_date',
  'subject.sex',
  'subject.nationality',
  'subject.document_number',
  'subject.document_expiry_date',
  'subject.issuing_country',
  'subject.personal_number',
] as const;
export type CorrectableField = (typeof CORRECTABLE_FIELDS)[number];

// ---------------------------------------------------------------- metrics alerts

export interface ReviewFigures {
  opened: number;
  closed: number;
  overdue_now: number;
  escalations: number;
  second_validations: number;
  decision_seconds_p90: number | null;
}

export interface ReviewAlert {
  code: 'overdue_tasks' | 'backlog_growing' | 'frequent_disagreements' | 'slow_decisions';
  severity: 'warning' | 'critical';
  message: string;
}

/** Thresholds of the alerts; each is a plain rule a supervisor can read. */
export const ALERT_RULES = {
  /** Overdue tasks: warning from 1, critical from 10. */
  overdueCritical: 10,
  /** More tasks opened than closed by at least this share, over at least 20 opened. */
  backlogGrowth: 0.25,
  backlogMinimum: 20,
  /** Share of second validations that ended in disagreement, over at least 10 of them. */
  disagreementShare: 0.2,
  disagreementMinimum: 10,
  /** 90th percentile of decision time above this many hours. */
  slowDecisionHours: 24,
} as const;

export function reviewAlerts(f: ReviewFigures): ReviewAlert[] {
  const alerts: ReviewAlert[] = [];
  if (f.overdue_now > 0) {
    alerts.push({
      code: 'overdue_tasks',
      severity: f.overdue_now >= ALERT_RULES.overdueCritical ? 'critical' : 'warning',
      message: `${f.overdue_now} task(s) in the queue are past their due date.`,
    });
  }
  if (f.opened >= ALERT_RULES.backlogMinimum && f.opened > f.closed * (1 + ALERT_RULES.backlogGrowth)) {
    alerts.push({ code: 'backlog_growing', severity: 'warning', message: `${f.opened} tasks opened but ${f.closed} closed over the period.` });
  }
  if (f.second_validations >= ALERT_RULES.disagreementMinimum && f.escalations / f.second_validations >= ALERT_RULES.disagreementShare) {
    alerts.push({
      code: 'frequent_disagreements',
      severity: 'warning',
      message: `${f.escalations} of ${f.second_validations} double validations ended in disagreement.`,
    });
  }
  if (f.decision_seconds_p90 !== null && f.decision_seconds_p90 > ALERT_RULES.slowDecisionHours * 3600) {
    alerts.push({ code: 'slow_decisions', severity: 'warning', message: `90% of tasks are decided within ${Math.round(f.decision_seconds_p90 / 3600)} hours.` });
  }
  return alerts;
}
