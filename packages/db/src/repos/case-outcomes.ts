import { and, eq } from 'drizzle-orm';
import {
  RISK_MAX,
  RISK_MIN,
  caseTriggerOf,
  newId,
  sensitivityRank,
  statusOf,
  transition,
  type CaseState,
  type CaseTrigger,
  type EventObject,
  type OperatorOutcome,
  type ResubmissionStep,
  type Sensitivity,
  type TaskReason,
} from '@idv/domain';
import type { Executor } from '../connect.ts';
import { cases, reviewTasks } from '../schema.ts';
import type { CaseRow } from './cases.ts';
import { findFlowById } from './flows.ts';
import { appendJournal } from './journal.ts';
import type { ReviewTaskRow } from './review-tasks.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import { emitEvent } from './webhook-outbox.ts';

/**
 * Moves of a case that other parts of the service share: sending it to review (the checks engine
 * calls openReviewTask), concluding it (an operator, a key, or the checks engine) and revising it.
 * Each takes the caller's transaction, so the state change, its journal entry and its webhook
 * events commit together or not at all.
 */

const HOUR = 3_600_000;

/** Locks the case row until the end of the transaction: every move of a case starts here. */
export async function findCaseForUpdate(tx: Executor, tenant: Tenant, id: string): Promise<CaseRow | null> {
  const [row] = await tx.select().from(cases).where(and(tenantFilter(cases, tenant), eq(cases.id, id))).for('update');
  return row ?? null;
}

class CaseTransitionRefused extends Error {
  constructor(
    readonly from: CaseState,
    readonly trigger: CaseTrigger['type'],
  ) {
    super(`a case in state ${from} cannot take ${trigger}`);
  }
}

/** Applies a life-cycle trigger to a locked case row; refuses what the life cycle does not allow. */
export async function applyCaseTrigger(
  tx: Executor,
  tenant: Tenant,
  row: CaseRow,
  trigger: CaseTrigger,
  now: Date,
  patch: Partial<typeof cases.$inferInsert> = {},
): Promise<CaseRow> {
  const next = transition(row.state, row.journeyStarted === 1, trigger);
  if (!next.ok) throw new CaseTransitionRefused(row.state, trigger.type);
  const [updated] = await tx
    .update(cases)
    .set({
      ...patch,
      state: next.state,
      status: statusOf(next.state, next.journeyStarted),
      journeyStarted: next.journeyStarted ? 1 : 0,
      updatedAt: now,
    })
    .where(and(tenantFilter(cases, tenant), eq(cases.id, row.id)))
    .returning();
  return updated;
}

export function caseEventObject(row: CaseRow): EventObject {
  return { id: row.id, type: 'case', external_ref: row.externalRef, flow_name: row.flowName };
}

export interface OpenReviewTask {
  caseId: string;
  /** 0 to 100; the queue shows the highest first. */
  riskScore: number;
  sensitivity?: Sensitivity;
  /** Codes saying why the case needs a person (for example faces_uncertain, questionnaire_threshold). */
  reasons?: TaskReason[];
  /** Defaults to now + the flow's review_due_hours. */
  dueAt?: Date;
  /** Journal actor; the checks engine is `system`. */
  actor?: string;
}

/**
 * Sends a processing case to review: the case moves to in_review, a task is opened with its risk
 * score and due date (double validation as the case's flow version says), and `case.decided`
 * with outcome manual_review is written to the outbox, all in the caller's transaction.
 */
export async function openReviewTask(tx: Executor, tenant: Tenant, spec: OpenReviewTask, now: Date): Promise<{ task: ReviewTaskRow; case: CaseRow }> {
  if (!Number.isInteger(spec.riskScore) || spec.riskScore < RISK_MIN || spec.riskScore > RISK_MAX) {
    throw new RangeError(`riskScore must be an integer from ${RISK_MIN} to ${RISK_MAX}`);
  }
  const row = await findCaseForUpdate(tx, tenant, spec.caseId);
  if (!row) throw new Error(`no case ${spec.caseId} for this tenant`);
  const flow = await findFlowById(tx, row.flowId);
  if (!flow) throw new Error(`case ${row.id} names a missing flow`);
  const moved = await applyCaseTrigger(tx, tenant, row, { type: 'routed_to_review' }, now);
  const [task] = await tx
    .insert(reviewTasks)
    .values({
      id: newId('tsk', now.getTime()),
      ...tenant,
      caseId: row.id,
      country: row.country,
      sensitivityRank: sensitivityRank(spec.sensitivity ?? 'standard'),
      riskScore: spec.riskScore,
      dueAt: spec.dueAt ?? new Date(now.getTime() + flow.definition.decision.review_due_hours * HOUR),
      status: 'open',
      doubleValidation: flow.definition.double_validation,
      reasons: spec.reasons ?? [],
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  await appendJournal(tx, tenant, {
    caseId: row.id,
    actor: spec.actor ?? 'system',
    action: 'review.opened',
    detail: { task_id: task.id, risk_score: task.riskScore, reasons: task.reasons },
    at: now,
  });
  await emitEvent(tx, tenant, { type: 'case.decided', object: caseEventObject(moved), data: { outcome: 'manual_review', reason_code: null } }, now);
  return { task, case: moved };
}

export interface Conclusion {
  outcome: OperatorOutcome;
  reasonCode: string | null;
  steps: readonly string[] | null;
  /** `op:<id>`, `key:<id>` or `system`. */
  actor: string;
}

/**
 * Concludes a locked case: approve and reject decide it (event case.decided), resubmit sends it
 * back to the person for the listed steps (event case.resubmission_requested).
 */
export async function concludeCase(tx: Executor, tenant: Tenant, row: CaseRow, c: Conclusion, now: Date): Promise<CaseRow> {
  const trigger = caseTriggerOf(c.outcome);
  if (trigger.type === 'resubmission_requested') {
    const steps = [...(c.steps ?? [])] as ResubmissionStep[];
    const moved = await applyCaseTrigger(tx, tenant, row, trigger, now, { resubmission: { steps } });
    await appendJournal(tx, tenant, { caseId: row.id, actor: c.actor, action: 'case.resubmission_requested', detail: { steps, reason_code: c.reasonCode }, at: now });
    await emitEvent(tx, tenant, { type: 'case.resubmission_requested', object: caseEventObject(moved), data: { steps, reason_code: c.reasonCode } }, now);
    return moved;
  }
  const outcome = c.outcome === 'approve' ? 'approved' : 'rejected';
  const moved = await applyCaseTrigger(tx, tenant, row, trigger, now, {
    decision: { outcome, reason_code: c.reasonCode, decided_at: now.toISOString() },
    resubmission: null,
  });
  await appendJournal(tx, tenant, { caseId: row.id, actor: c.actor, action: 'case.decided', detail: { outcome, reason_code: c.reasonCode }, at: now });
  await emitEvent(tx, tenant, { type: 'case.decided', object: caseEventObject(moved), data: { outcome, reason_code: c.reasonCode } }, now);
  return moved;
}

/** Changes the decision of a decided case (approved ↔ rejected, or its reason); event case.decision_revised. */
export async function reviseCaseDecision(
  tx: Executor,
  tenant: Tenant,
  row: CaseRow,
  revision: { outcome: 'approved' | 'rejected'; reasonCode: string | null; actor: string },
  now: Date,
): Promise<CaseRow> {
  const previous = row.decision as { outcome: 'approved' | 'rejected'; reason_code: string | null };
  const [updated] = await tx
    .update(cases)
    .set({
      state: revision.outcome,
      status: statusOf(revision.outcome, row.journeyStarted === 1),
      decision: { outcome: revision.outcome, reason_code: revision.reasonCode, decided_at: now.toISOString() },
      updatedAt: now,
    })
    .where(and(tenantFilter(cases, tenant), eq(cases.id, row.id)))
    .returning();
  await appendJournal(tx, tenant, {
    caseId: row.id,
    actor: revision.actor,
    action: 'case.decision_revised',
    detail: { outcome: revision.outcome, reason_code: revision.reasonCode, previous_outcome: previous.outcome, previous_reason_code: previous.reason_code },
    at: now,
  });
  await emitEvent(
    tx,
    tenant,
    {
      type: 'case.decision_revised',
      object: caseEventObject(updated),
      data: {
        outcome: revision.outcome,
        reason_code: revision.reasonCode,
        previous_outcome: previous.outcome,
        previous_reason_code: previous.reason_code ?? null,
      },
    },
    now,
  );
  return updated;
}
