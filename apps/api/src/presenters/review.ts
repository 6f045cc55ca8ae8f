import type { CaseRow, QueueRow, ReviewDecisionRow, ReviewTaskRow } from '@idv/db';
import { SENSITIVITY_LEVELS, isOverdue, type CheckType } from '@idv/domain';

function presentLock(task: ReviewTaskRow, now: Date) {
  return task.lockedBy && task.lockExpiresAt && task.lockExpiresAt > now
    ? { operator_id: task.lockedBy, expires_at: task.lockExpiresAt.toISOString() }
    : null;
}

export function presentTaskItem(task: ReviewTaskRow, now: Date) {
  return {
    id: task.id,
    object: 'review_task' as const,
    case_id: task.caseId,
    status: task.status,
    risk_score: task.riskScore,
    due_at: task.dueAt.toISOString(),
    overdue: isOverdue(task, now),
    country: task.country,
    sensitivity: SENSITIVITY_LEVELS[task.sensitivityRank],
    reasons: task.reasons,
    double_validation: task.doubleValidation,
    lock: presentLock(task, now),
    outcome: (task.outcome as 'approve' | 'reject' | 'resubmit' | null) ?? null,
    created_at: task.createdAt.toISOString(),
    closed_at: task.closedAt?.toISOString() ?? null,
  };
}

/** A queue row: the task and which case it is. */
export function presentQueueItem(row: QueueRow, now: Date) {
  const { case: c, ...task } = row;
  return {
    ...presentTaskItem(task, now),
    case: {
      external_ref: c.externalRef,
      flow_name: c.flowName,
      state: c.state as CaseRow['state'],
      created_at: c.createdAt.toISOString(),
    },
  };
}

/** A decision; `justification` is the opened text of an override's (null without one, or once erased). */
export function presentDecision(d: ReviewDecisionRow, justification: string | null) {
  return {
    id: d.id,
    object: 'review_decision' as const,
    task_id: d.taskId,
    case_id: d.caseId,
    decided_by: d.actor,
    outcome: d.outcome,
    reason_code: d.reasonCode,
    steps: (d.steps as ('document' | 'face')[] | null) ?? null,
    effect: d.effect as 'concluded' | 'await_second_validation' | 'escalate',
    has_comment: d.commentSealed !== null,
    overridden_checks: d.overriddenChecks as CheckType[],
    justification,
    created_at: d.createdAt.toISOString(),
  };
}

export function presentDecisionRecorded(r: { decision: ReviewDecisionRow; justification: string | null; task: ReviewTaskRow | null; case: CaseRow; concluded: boolean }) {
  return {
    object: 'decision_recorded' as const,
    decision: presentDecision(r.decision, r.justification),
    task: r.task ? { id: r.task.id, status: r.task.status } : null,
    case: { id: r.case.id, state: r.case.state, status: r.case.status },
    concluded: r.concluded,
  };
}

export function presentRevision(
  r: {
    id: string;
    caseId: string;
    taskId: string;
    actor: string;
    outcome: string;
    reasonCode: string | null;
    previousOutcome: string;
    previousReasonCode: string | null;
    overriddenChecks: string[];
    createdAt: Date;
  },
  justification: string | null,
) {
  return {
    id: r.id,
    object: 'revision' as const,
    case_id: r.caseId,
    task_id: r.taskId,
    revised_by: r.actor,
    outcome: r.outcome as 'approved' | 'rejected',
    reason_code: r.reasonCode,
    previous_outcome: r.previousOutcome as 'approved' | 'rejected',
    previous_reason_code: r.previousReasonCode,
    overridden_checks: r.overriddenChecks as CheckType[],
    justification,
    created_at: r.createdAt.toISOString(),
  };
}
