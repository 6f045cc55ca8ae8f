import {
  concludeCase,
  correctionsOfCase,
  decisionsOfTask,
  findActiveTaskOfCase,
  findFlowById,
  findCaseForUpdate,
  findTask,
  findTaskForUpdate,
  insertDecision,
  latestJournal,
  recordUsageWithQuota,
  updateTask,
  appendJournal,
  type CaseRevisionRow,
  type CaseRow,
  type ClearanceFilter,
  type Executor,
  type OperatorRow,
  type ReviewCorrectionRow,
  type ReviewDecisionRow,
  type ReviewTaskRow,
  type Tenant,
} from '@idv/db';
import {
  SENSITIVITY_LEVELS,
  decisionProblem,
  lockPosition,
  mayShowDecisions,
  mayWorkOnTask,
  newId,
  nextTaskStep,
  sameDecision,
  sensitivityRank,
  withinClearance,
  identityGap,
  identityPaths,
  usageSourceKey,
  overriddenChecks,
  justificationProblem,
  needsSecondValidator,
  type CheckType,
  type DecisionInput,
  type LockPosition,
  type OperatorOutcome,
} from '@idv/domain';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/api-error.ts';
import { presentDecision, presentRevision, presentTaskItem } from '../presenters/review.ts';
import { PURPOSE, caseOpener, readIdentities, type CaseOpener } from '@idv/case-data';

export function clearanceOf(op: OperatorRow): ClearanceFilter {
  return { countries: op.countries, maxSensitivityRank: sensitivityRank(op.sensitivity) };
}

export function taskWithinClearance(op: OperatorRow, task: ReviewTaskRow): boolean {
  return withinClearance(op, { country: task.country, sensitivity: SENSITIVITY_LEVELS[task.sensitivityRank] });
}

/**
 * The task of the path as this operator may see it: another client's task, and a task outside the
 * operator's countries or above their sensitivity, are answered alike (404), so the queue reveals
 * nothing beyond the clearance. With `forUpdate`, the row stays locked until the transaction ends.
 */
export async function taskForOperator(db: Executor, tenant: Tenant, op: OperatorRow, taskId: string, forUpdate = false): Promise<ReviewTaskRow> {
  const task = forUpdate ? await findTaskForUpdate(db, tenant, taskId) : await findTask(db, tenant, taskId);
  if (!task || !taskWithinClearance(op, task)) throw new ApiError('resource_not_found', 'No such review task.', 'task_id');
  return task;
}

export function lockRefusal(position: Exclude<LockPosition, 'held'>, task: ReviewTaskRow): ApiError {
  switch (position) {
    case 'lost':
      return new ApiError('lock_expired', `The lock lapsed at ${task.lockExpiresAt?.toISOString()} after thirty minutes of inactivity; claim the task again.`);
    case 'other':
      return new ApiError('task_locked', `Another operator holds the lock until ${task.lockExpiresAt?.toISOString()} at the latest.`);
    case 'free':
      return new ApiError('lock_not_held', 'Claim the task first.');
  }
}

/**
 * Decisions as the API shows them, with the justification of each override opened: it is the
 * audit answer to "why was this approved?", so every route that shows the decision shows it
 * (null once the case's personal data is erased; the overridden checks stay).
 */
export async function presentDecisions(db: Executor, ctx: Pick<AppContext, 'vault' | 'keyring'>, decisions: ReviewDecisionRow[]) {
  const openers = new Map<string, CaseOpener>();
  const out = [];
  for (const d of decisions) {
    let justification: string | null = null;
    if (d.justificationSealed) {
      const opener = openers.get(d.caseId) ?? caseOpener(ctx, db, d.caseId);
      openers.set(d.caseId, opener);
      justification = await opener.json<string>('data', PURPOSE.decisionJustification(d.id), d.justificationSealed);
    }
    out.push(presentDecision(d, justification));
  }
  return out;
}

/** Revisions as the API shows them, with the justification of a revision to approved against failed checks opened (as for decisions). */
export async function presentRevisions(db: Executor, ctx: Pick<AppContext, 'vault' | 'keyring'>, revisions: CaseRevisionRow[]) {
  const out = [];
  for (const r of revisions) {
    const justification = r.justificationSealed
      ? await caseOpener(ctx, db, r.caseId).json<string>('data', PURPOSE.revisionJustification(r.id), r.justificationSealed)
      : null;
    out.push(presentRevision(r, justification));
  }
  return out;
}

/** Decisions of a task as this actor may see them (double validation hides them until the actor gave theirs). */
async function visibleDecisions(db: Executor, ctx: Pick<AppContext, 'vault' | 'keyring'>, task: ReviewTaskRow, decisions: ReviewDecisionRow[], actor: string) {
  const own = decisions.some((d) => d.actor === actor);
  const show = mayShowDecisions(task.doubleValidation, own);
  return { decisions: show ? await presentDecisions(db, ctx, decisions) : [], decisions_hidden: !show && decisions.length > 0 };
}

export async function presentTask(
  db: Executor,
  ctx: Pick<AppContext, 'vault' | 'keyring'>,
  task: ReviewTaskRow,
  decisions: ReviewDecisionRow[],
  actor: string,
  now: Date,
) {
  return { ...presentTaskItem(task, now), ...(await visibleDecisions(db, ctx, task, decisions, actor)) };
}

/**
 * The subject as masked responses show it: paths of what is held and compared, and the gap between
 * declared and read values (match, mismatch, missing per field), never a value. The values are
 * opened here only to compute the paths and the gap; revealing them takes an unmask call.
 */
async function maskedSubject(db: Executor, ctx: Pick<AppContext, 'vault' | 'keyring'>, row: CaseRow, corrections: ReviewCorrectionRow[]) {
  const identity = await readIdentities(db, ctx, row);
  return {
    masked: true as const,
    erased: identity.erased,
    declared_fields: identityPaths('declared', identity.declared),
    entered_fields: identityPaths('entered', identity.entered),
    read_fields: identityPaths('document', identity.read),
    corrected_fields: [...new Set(corrections.map((c) => c.field))].sort(),
    comparison: identityGap({ name: 'declared', values: identity.declared }, { name: 'document', values: identity.read }),
  };
}

export async function caseScreenParts(db: Executor, ctx: Pick<AppContext, 'vault' | 'keyring'>, tenant: Tenant, row: CaseRow) {
  const corrections = await correctionsOfCase(db, tenant, row.id);
  const journal = await latestJournal(db, tenant, row.id, 100);
  return {
    subject: await maskedSubject(db, ctx, row, corrections),
    corrections: corrections.map((c) => ({ id: c.id, field: c.field, entered_by: c.actor, created_at: c.createdAt.toISOString() })),
    journal: journal.map((j) => ({ actor: j.actor, action: j.action, at: j.at.toISOString() })),
  };
}

// ---------------------------------------------------------------- decisions

export interface DecisionBody extends DecisionInput {
  comment?: string;
  justification?: string;
}

export interface DecisionResult {
  decision: ReviewDecisionRow;
  /** The justification of an override, as recorded (null without one). */
  justification: string | null;
  task: ReviewTaskRow | null;
  case: CaseRow;
  replayed: boolean;
  concluded: boolean;
}

function checkDecisionBody(body: DecisionInput): void {
  const problem = decisionProblem(body);
  if (problem) throw new ApiError('parameter_invalid', problem[1], problem[0]);
}

const stepsOf = (body: DecisionInput) => (body.outcome === 'resubmit' ? [...(body.steps ?? [])].sort() : null);

/**
 * The override of a decision on this case: the checks it goes against (docs/operators.md#overrides),
 * its justification checked (422 justification_required without one).
 */
export function overrideOf(caseRow: CaseRow, body: { outcome: OperatorOutcome; justification?: string }): CheckType[] {
  const overridden = overriddenChecks(body.outcome, (caseRow.checks ?? []) as { type: string; status: string }[]);
  const problem = justificationProblem(overridden, body.justification);
  if (problem) throw new ApiError(problem.code, problem.message, 'justification');
  return overridden;
}

/** The justification, sealed under the case's data key beside the decision or revision (personal data, erased with it). */
export async function sealJustification(ctx: AppContext, tx: Executor, caseId: string, purpose: string, overridden: CheckType[], justification: string | undefined, now: Date) {
  const text = overridden.length > 0 ? (justification ?? '').trim() : null;
  return { text, sealed: text ? await ctx.vault.sealJson(tx, caseId, 'data', purpose, text, now) : null };
}

/**
 * The journal says that a decision overrode checks, which ones and by which decision, never the
 * justification itself: the journal outlives the personal data, and the text sits sealed with the
 * decision.
 */
export async function journalOverride(
  tx: Executor,
  tenant: Tenant,
  caseId: string,
  actor: string,
  by: { decision_id: string } | { revision_id: string },
  overridden: CheckType[],
  secondValidator: boolean,
  now: Date,
) {
  if (overridden.length === 0) return;
  await appendJournal(tx, tenant, {
    caseId,
    actor,
    action: 'review.checks_overridden',
    detail: { ...by, checks: overridden, justified: true, second_validator_required: secondValidator },
    at: now,
  });
}

/**
 * One decision written, by an operator or a key: its comment and an override's justification
 * sealed beside it, `review.decision_recorded` and, for an override, `review.checks_overridden`
 * in the journal. Returns the decision and the justification's text.
 */
async function writeDecision(
  ctx: AppContext,
  tx: Executor,
  tenant: Tenant,
  d: {
    caseId: string;
    taskId: string;
    actor: string;
    input: { outcome: OperatorOutcome; reasonCode: string | null; steps: string[] | null };
    comment?: string;
    overridden: CheckType[];
    justification: string | undefined;
    effect: 'concluded' | 'await_second_validation' | 'escalate';
    secondValidatorAsked: boolean;
    now: Date;
  },
) {
  const { caseId, taskId, actor, input, effect, now } = d;
  const id = newId('dec', now.getTime());
  const justification = await sealJustification(ctx, tx, caseId, PURPOSE.decisionJustification(id), d.overridden, d.justification, now);
  const decision = await insertDecision(tx, {
    id,
    ...tenant,
    taskId,
    caseId,
    actor,
    ...input,
    commentSealed: d.comment ? await ctx.vault.sealJson(tx, caseId, 'data', PURPOSE.decisionComment(id), d.comment, now) : null,
    overriddenChecks: d.overridden,
    justificationSealed: justification.sealed,
    effect,
    createdAt: now,
  });
  await appendJournal(tx, tenant, {
    caseId,
    actor,
    action: 'review.decision_recorded',
    detail: { task_id: taskId, decision_id: id, outcome: input.outcome, reason_code: input.reasonCode, steps: input.steps, effect },
    at: now,
  });
  await journalOverride(tx, tenant, caseId, actor, { decision_id: id }, d.overridden, d.secondValidatorAsked, now);
  return { decision, justification: justification.text };
}

/**
 * An operator's outcome on a task, in one transaction: the case row is locked first, then the
 * task (the same order as a key's decision), so concurrent decisions serialise. A retry by the
 * same operator finds their decision and replays it, whatever happened to the task since; a
 * different outcome from the same operator is refused.
 */
export async function recordOperatorDecision(ctx: AppContext, tenant: Tenant, op: OperatorRow, taskId: string, body: DecisionBody): Promise<DecisionResult> {
  checkDecisionBody(body);
  const actor = `op:${op.id}`;
  const now = ctx.now();
  const result = await ctx.db.transaction(async (tx) => {
    const seen = await taskForOperator(tx, tenant, op, taskId);
    const caseRow = await findCaseForUpdate(tx, tenant, seen.caseId);
    const task = await taskForOperator(tx, tenant, op, taskId, true);
    if (!caseRow) throw new Error(`task ${task.id} names a missing case`);
    const decisions = await decisionsOfTask(tx, tenant, task.id);
    const input = { outcome: body.outcome, reasonCode: body.reason_code ?? null, steps: stepsOf(body) };
    const mine = decisions.find((d) => d.actor === actor);
    if (mine) {
      if (!sameDecision(mine, input)) throw new ApiError('decision_already_recorded');
      const [shown] = await presentDecisions(tx, ctx, [mine]);
      return { decision: mine, justification: shown.justification, task, case: caseRow, replayed: true, concluded: mine.effect === 'concluded' };
    }
    if (task.status === 'closed') throw new ApiError('task_closed');
    const refusal = mayWorkOnTask(op.role, task, false);
    if (refusal === 'escalated_needs_supervisor') {
      throw new ApiError('operator_role_insufficient', 'The operators disagreed: a supervisor or an administrator decides this task.');
    }
    if (refusal) throw new ApiError('operator_role_insufficient');
    const position = lockPosition(task, op.id, now);
    if (position !== 'held') throw lockRefusal(position, task);
    const overridden = overrideOf(caseRow, body);
    const flow = await findFlowById(tx, caseRow.flowId);
    // An override the flow wants validated twice turns this task into a double validation: the
    // second operator decides without seeing the first's outcome, and must agree.
    const doubleValidation = needsSecondValidator(task, overridden, flow?.definition ?? {});
    const step = nextTaskStep({ status: task.status, doubleValidation }, decisions, { actor, ...input });
    const effect = step.kind === 'conclude' ? 'concluded' : step.kind;
    const { decision, justification } = await writeDecision(ctx, tx, tenant, {
      caseId: caseRow.id,
      taskId: task.id,
      actor,
      input,
      comment: body.comment,
      overridden,
      justification: body.justification,
      effect,
      secondValidatorAsked: doubleValidation && !task.doubleValidation,
      now,
    });
    const release = { lockedBy: null, lockExpiresAt: null, updatedAt: now, doubleValidation };
    const recorded = { decision, justification, replayed: false };
    if (step.kind === 'conclude') {
      const moved = await concludeCase(tx, tenant, caseRow, { ...step.decision, actor }, now);
      const closed = await updateTask(tx, tenant, task.id, { ...release, status: 'closed', outcome: input.outcome, closedBy: actor, closedAt: now });
      // Metering (docs/usage.md): a human review, one per task whatever the number of operators
      // it took (double validation, escalation); a key's decision is not a review.
      await recordUsageWithQuota(tx, { ...tenant, service: 'review', sourceKey: usageSourceKey.review(task.id), caseId: caseRow.id, at: now });
      return { ...recorded, task: closed, case: moved, concluded: true };
    }
    const status = step.kind === 'escalate' ? 'escalated' : 'second_validation';
    const updated = await updateTask(tx, tenant, task.id, { ...release, status });
    return { ...recorded, task: updated, case: caseRow, concluded: false };
  });
  await relaunchIfResubmitted(ctx, tenant, result);
  return result;
}

/** After the commit: a concluded resubmission is handed to the journey; a failure fails the call, the decision stays. */
async function relaunchIfResubmitted(ctx: AppContext, tenant: Tenant, r: DecisionResult): Promise<void> {
  if (!r.concluded || r.decision.outcome !== 'resubmit') return;
  try {
    await ctx.journey.relaunch(tenant, r.case.id, r.decision.steps ?? []);
  } catch {
    throw new ApiError('journey_relaunch_failed');
  }
}

/**
 * A key's decision (permission decisions): alone, without lock, clearance or double validation.
 * Runs in the caller's (idempotent) transaction; the task of the case, if any, is closed by it.
 */
export async function recordKeyDecision(
  ctx: AppContext,
  tx: Executor,
  tenant: Tenant,
  keyId: string,
  caseId: string,
  body: Omit<DecisionBody, 'comment'>,
): Promise<DecisionResult> {
  const actor = `key:${keyId}`;
  const now = ctx.now();
  const caseRow = await findCaseForUpdate(tx, tenant, caseId);
  if (!caseRow) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
  if (caseRow.state !== 'in_review') {
    throw new ApiError('case_not_in_review', `The case is ${caseRow.state} (status ${caseRow.status}); only a case in review can be decided.`, 'case_id');
  }
  checkDecisionBody(body);
  const task = await findActiveTaskOfCase(tx, tenant, caseRow.id);
  if (!task) throw new Error(`case ${caseRow.id} is in review without a task`);
  const input = { outcome: body.outcome as OperatorOutcome, reasonCode: body.reason_code ?? null, steps: stepsOf(body) };
  // A key decides alone (the spec: no double validation, so no second validator either), but an
  // override needs its justification like an operator's.
  const overridden = overrideOf(caseRow, body);
  const { decision, justification } = await writeDecision(ctx, tx, tenant, {
    caseId: caseRow.id,
    taskId: task.id,
    actor,
    input,
    overridden,
    justification: body.justification,
    effect: 'concluded',
    secondValidatorAsked: false,
    now,
  });
  const moved = await concludeCase(tx, tenant, caseRow, { ...input, actor }, now);
  const closed = await updateTask(tx, tenant, task.id, {
    status: 'closed',
    outcome: input.outcome,
    closedBy: actor,
    closedAt: now,
    lockedBy: null,
    lockExpiresAt: null,
    updatedAt: now,
  });
  return { decision, justification, task: closed, case: moved, replayed: false, concluded: true };
}
