import { Type } from '@sinclair/typebox';
import {
  CHECK_TYPES,
  CORRECTABLE_FIELDS,
  JUSTIFICATION_MAX_LENGTH,
  JUSTIFICATION_MIN_LENGTH,
  OPERATOR_OUTCOMES,
  REASON_CODE_LIST,
  RESUBMISSION_STEPS,
  SENSITIVITY_LEVELS,
  TASK_STATUSES,
} from '@idv/domain';
import { CaseSchema, CaseStateSchema, CaseStatusSchema, literals } from '../../schemas/case.ts';
import { Timestamp } from '../../schemas/common.ts';

export const TaskStatusSchema = literals(TASK_STATUSES);
const ReasonCodeSchema = literals(REASON_CODE_LIST);

export const TaskLockSchema = Type.Object(
  {
    object: Type.Literal('task_lock'),
    task_id: Type.String(),
    operator_id: Type.String(),
    expires_at: Type.String({ format: 'date-time', description: 'Thirty minutes after the last activity under the lock' }),
  },
  { $id: 'TaskLock' },
);

const taskFields = {
  id: Type.String({ examples: ['tsk_01m7ym09t80f4fggxqxy1yr50c'] }),
  object: Type.Literal('review_task'),
  case_id: Type.String(),
  status: TaskStatusSchema,
  risk_score: Type.Integer({ minimum: 0, maximum: 100 }),
  due_at: Timestamp,
  overdue: Type.Boolean(),
  country: Type.String(),
  sensitivity: literals(SENSITIVITY_LEVELS),
  reasons: Type.Array(Type.String(), { description: 'Why the case needs a person (codes, no personal data)' }),
  double_validation: Type.Boolean({ description: 'Two different operators must give the same outcome' }),
  lock: Type.Union([
    Type.Object({ operator_id: Type.String(), expires_at: Timestamp }, { description: 'The live lock, if any' }),
    Type.Null(),
  ]),
  outcome: Type.Union([literals(OPERATOR_OUTCOMES), Type.Null()]),
  created_at: Timestamp,
  closed_at: Type.Union([Timestamp, Type.Null()]),
};

export const ReviewTaskItemSchema = Type.Object(taskFields, { $id: 'ReviewTaskItem' });

const OverriddenChecks = Type.Array(literals(CHECK_TYPES), {
  description: 'The checks an approval went against (failed or attention, as the case’s checks stood); empty when it overrode nothing',
});
const JustificationShown = Type.Union([Type.String(), Type.Null()], {
  description: 'Why the approval went against those checks, as written; null when it overrode nothing, or once the case’s personal data was erased',
});

/** A queue row: the task and which case it is (the client's reference, flow, the case's own state and age). */
export const ReviewQueueItemSchema = Type.Object(
  {
    ...taskFields,
    case: Type.Object({
      external_ref: Type.Union([Type.String(), Type.Null()], { description: 'The client’s own reference of the case, as given at its opening' }),
      flow_name: Type.String(),
      state: CaseStateSchema,
      created_at: Type.String({ format: 'date-time', description: 'When the case was opened: its age' }),
    }),
  },
  { $id: 'ReviewQueueItem' },
);

export const ReviewDecisionSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('review_decision'),
    task_id: Type.String(),
    case_id: Type.String(),
    decided_by: Type.String({ description: 'op:<operator_id> or key:<key_id>' }),
    outcome: literals(OPERATOR_OUTCOMES),
    reason_code: Type.Union([Type.String(), Type.Null()]),
    steps: Type.Union([Type.Array(literals(RESUBMISSION_STEPS)), Type.Null()]),
    effect: literals(['concluded', 'await_second_validation', 'escalate'] as const),
    has_comment: Type.Boolean({ description: 'Comments are personal data and are not returned here' }),
    overridden_checks: OverriddenChecks,
    justification: JustificationShown,
    created_at: Timestamp,
  },
  { $id: 'ReviewDecision' },
);

export const ReviewTaskSchema = Type.Object(
  {
    ...taskFields,
    decisions: Type.Array(Type.Ref(ReviewDecisionSchema), {
      description: 'Under double validation, empty until this operator has given their own outcome',
    }),
    decisions_hidden: Type.Boolean({ description: 'True when decisions exist that this operator may not see yet' }),
  },
  { $id: 'ReviewTask' },
);

export const ReviewTaskListSchema = Type.Object(
  {
    object: Type.Literal('list'),
    data: Type.Array(Type.Ref(ReviewQueueItemSchema)),
    has_more: Type.Boolean(),
    next_cursor: Type.Union([Type.String({ maxLength: 64 }), Type.Null()]),
  },
  { $id: 'ReviewTaskList', description: 'Sorted by risk (highest first) then due date (earliest first); the order is fixed' },
);

export const ReviewSummarySchema = Type.Object(
  {
    object: Type.Literal('review_summary'),
    as_of: Timestamp,
    active: Type.Integer({ description: 'Tasks not closed, within the clearance' }),
    open: Type.Integer(),
    second_validation: Type.Integer(),
    escalated: Type.Integer(),
    overdue: Type.Integer(),
    unclaimed: Type.Integer(),
    locked: Type.Integer(),
    locked_by_me: Type.Integer(),
    high_risk: Type.Integer({ description: 'Risk score of 70 or more' }),
  },
  { $id: 'ReviewSummary', description: 'Counters over the whole queue within the operator’s clearance, not the loaded page' },
);

const Seconds = Type.Union([Type.Number(), Type.Null()]);

export const ReviewMetricsSchema = Type.Object(
  {
    object: Type.Literal('review_metrics'),
    since: Timestamp,
    until: Timestamp,
    volumes: Type.Object({
      opened: Type.Integer(),
      closed: Type.Integer(),
      closed_by_operators: Type.Integer(),
      closed_by_keys: Type.Integer(),
    }),
    outcomes: Type.Object({
      approved: Type.Integer(),
      rejected: Type.Integer(),
      resubmission_requested: Type.Integer(),
      closed_without_decision: Type.Integer(),
    }),
    decision_time_seconds: Type.Object({ p50: Seconds, p90: Seconds, average: Seconds }, { description: 'From task opening to conclusion' }),
    overdue: Type.Object({ now: Type.Integer(), oldest_due_at: Type.Union([Timestamp, Type.Null()]), closed_after_due_date: Type.Integer() }),
    double_validation: Type.Object({ started: Type.Integer(), escalated: Type.Integer() }),
    revisions: Type.Integer(),
    daily: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date', description: 'A UTC day' }),
        opened: Type.Integer({ description: 'Tasks opened that day' }),
        closed: Type.Integer({ description: 'Tasks closed that day' }),
        approved: Type.Integer(),
        rejected: Type.Integer(),
        resubmission_requested: Type.Integer(),
        closed_after_due_date: Type.Integer(),
        decision_seconds_p50: Type.Union([Type.Number(), Type.Null()], { description: 'Median decision time of the tasks decided that day; null without any' }),
      }),
      {
        description:
          'One entry per UTC day from the day of since to today, oldest first, days without activity included (zeros): the figures above, day by day, for charts',
      },
    ),
    alerts: Type.Array(
      Type.Object({
        code: literals(['overdue_tasks', 'backlog_growing', 'frequent_disagreements', 'slow_decisions'] as const),
        severity: literals(['warning', 'critical'] as const),
        message: Type.String(),
      }),
    ),
  },
  { $id: 'ReviewMetrics', description: 'Indicators within the operator’s clearance' },
);

const Count = Type.Integer({ minimum: 0 });
const DecidedOutcomeSchema = literals(['approved', 'rejected'] as const);

export const DecisionAnalyticsSchema = Type.Object(
  {
    object: Type.Literal('decision_analytics'),
    since: Timestamp,
    until: Timestamp,
    decided: Type.Object(
      { total: Count, approved: Count, rejected: Count, automatic: Count, by_operators: Count, by_keys: Count },
      { description: 'Cases concluded (approved or rejected) in the period, by their current decision: by the checks alone (automatic), by an operator’s review, or by a key' },
    ),
    automation_rate: Type.Union([Type.Number({ minimum: 0, maximum: 1 }), Type.Null()], { description: 'automatic / total (three decimals); null when nothing was decided' }),
    time_to_decision_seconds: Type.Object(
      { p50: Seconds, automatic_p50: Seconds, operators_p50: Seconds, keys_p50: Seconds },
      { description: 'Median seconds from the case’s creation to its decision, overall and per decider' },
    ),
    reasons: Type.Array(
      Type.Object({ outcome: DecidedOutcomeSchema, reason_code: Type.Union([Type.String(), Type.Null()]), count: Count, automatic: Count }),
      { description: 'Decisions per outcome and reason code, most frequent first; `automatic` of them by the checks alone' },
    ),
    daily: Type.Array(
      Type.Object({
        date: Type.String({ format: 'date', description: 'A UTC day' }),
        approved: Count,
        rejected: Count,
        automatic: Count,
        decision_seconds_p50: Seconds,
      }),
      { description: 'One entry per UTC day from the day of since to today (zeros included): the decisions of that day' },
    ),
    reviewers: Type.Array(
      Type.Object({
        operator_id: Type.String(),
        decisions: Count,
        approved: Count,
        rejected: Count,
        resubmission_requested: Count,
        active_days: Type.Integer({ minimum: 0, description: 'UTC days with at least one decision of theirs' }),
      }),
      { description: 'Operators’ decisions on tasks within the clearance (first decisions under double validation included), most first, at most 100' },
    ),
  },
  { $id: 'DecisionAnalytics', description: 'Decisions within the operator’s clearance: outcomes and reasons over time, automation rate, time to decision, reviewer throughput' },
);

/** Required when approving against failed or attention checks, refused otherwise (docs/operators.md#overrides). */
const Justification = Type.String({
  minLength: 1,
  maxLength: JUSTIFICATION_MAX_LENGTH,
  description: `Why the case is approved despite the checks that failed or need attention (at least ${JUSTIFICATION_MIN_LENGTH} characters): required for such an approval (422 justification_required), refused on any other decision. Kept sealed; erased with the case’s personal data`,
});

export const OperatorDecisionSchema = Type.Object(
  {
    outcome: literals(OPERATOR_OUTCOMES),
    reason_code: Type.Optional(ReasonCodeSchema),
    steps: Type.Optional(Type.Array(literals(RESUBMISSION_STEPS), { minItems: 1, maxItems: 2, uniqueItems: true })),
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000, description: 'Kept sealed; erased with the case’s personal data' })),
    justification: Type.Optional(Justification),
  },
  { additionalProperties: false, $id: 'OperatorDecision' },
);

export const CaseDecisionBodySchema = Type.Object(
  {
    outcome: literals(OPERATOR_OUTCOMES),
    reason_code: Type.Optional(ReasonCodeSchema),
    steps: Type.Optional(Type.Array(literals(RESUBMISSION_STEPS), { minItems: 1, maxItems: 2, uniqueItems: true })),
    justification: Type.Optional(Justification),
  },
  { additionalProperties: false, $id: 'CaseDecision' },
);

export const DecisionRecordedSchema = Type.Object(
  {
    object: Type.Literal('decision_recorded'),
    decision: Type.Ref(ReviewDecisionSchema),
    task: Type.Union([Type.Object({ id: Type.String(), status: TaskStatusSchema }), Type.Null()]),
    case: Type.Object({ id: Type.String(), state: CaseStateSchema, status: CaseStatusSchema }),
    concluded: Type.Boolean({ description: 'False while a double validation waits for its second operator or a supervisor' }),
  },
  { $id: 'DecisionRecorded' },
);

export const FieldCorrectionSchema = Type.Object(
  {
    field: literals(CORRECTABLE_FIELDS),
    value: Type.String({ minLength: 1, maxLength: 200 }),
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 500 })),
  },
  { additionalProperties: false, $id: 'FieldCorrection' },
);

export const CorrectionRecordedSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('field_correction'),
    task_id: Type.String(),
    case_id: Type.String(),
    field: literals(CORRECTABLE_FIELDS),
    previous_value_present: Type.Boolean({ description: 'Whether a value was read (or entered) before; the values stay masked' }),
    created_at: Timestamp,
    lock_expires_at: Timestamp,
  },
  { $id: 'CorrectionRecorded' },
);

export const RevisionSchema = Type.Object(
  {
    outcome: literals(['approve', 'reject'] as const),
    reason_code: Type.Optional(ReasonCodeSchema),
    comment: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
    justification: Type.Optional(Justification),
  },
  { additionalProperties: false, $id: 'Revision' },
);

export const RevisionRecordedSchema = Type.Object(
  {
    id: Type.String(),
    object: Type.Literal('revision'),
    case_id: Type.String(),
    task_id: Type.String(),
    revised_by: Type.String(),
    outcome: literals(['approved', 'rejected'] as const),
    reason_code: Type.Union([Type.String(), Type.Null()]),
    previous_outcome: literals(['approved', 'rejected'] as const),
    previous_reason_code: Type.Union([Type.String(), Type.Null()]),
    overridden_checks: OverriddenChecks,
    justification: JustificationShown,
    created_at: Timestamp,
  },
  { $id: 'RevisionRecorded' },
);

/** One compared field of two identities: the two paths and whether their values agree; never a value. */
export const FieldGapSchema = Type.Object(
  {
    field: Type.String({ examples: ['surname'] }),
    paths: Type.Array(Type.String(), { minItems: 2, maxItems: 2, examples: [['declared.surname', 'document.surname']] }),
    status: literals(['match', 'mismatch', 'missing'] as const),
    missing: Type.Array(Type.String(), { description: 'The path without a value, when status is missing' }),
  },
  {
    $id: 'FieldGap',
    description:
      'Computed by the service with domain normalisation: accents, case, hyphens, apostrophes and MRZ transliteration (Ü as UE or U, ß as SS…) are no mismatch',
  },
);

const MaskedSubject = Type.Object(
  {
    masked: Type.Literal(true),
    erased: Type.Boolean({ description: 'True once the personal data of the case was erased' }),
    declared_fields: Type.Array(Type.String(), { description: 'Paths of what the client declared; values need an unmask' }),
    entered_fields: Type.Array(Type.String(), { description: 'Paths of what the person entered in the journey' }),
    read_fields: Type.Array(Type.String(), { description: 'Paths of what was read from the document' }),
    corrected_fields: Type.Array(Type.String(), { description: 'Paths entered by operators as annotations' }),
    comparison: Type.Array(Type.Ref(FieldGapSchema), { description: 'The gap between declared and read values, per field, without values' }),
  },
  { description: 'The subject is masked: paths, not values' },
);

const CorrectionItem = Type.Object({ id: Type.String(), field: Type.String(), entered_by: Type.String(), created_at: Timestamp });
const JournalItem = Type.Object({ actor: Type.String(), action: Type.String(), at: Timestamp });

export const ReviewCaseSchema = Type.Object(
  {
    object: Type.Literal('review_case'),
    task: Type.Ref(ReviewTaskSchema),
    case: Type.Ref(CaseSchema),
    subject: MaskedSubject,
    corrections: Type.Array(CorrectionItem),
    journal: Type.Array(JournalItem, { description: 'The latest 100 entries, newest first' }),
  },
  { $id: 'ReviewCase', description: 'Everything the case screen shows, in one call (one consultation in the journal)' },
);

export const CaseRecordSchema = Type.Object(
  {
    object: Type.Literal('case_record'),
    case: Type.Ref(CaseSchema),
    reviews: Type.Array(Type.Ref(ReviewTaskItemSchema)),
    decisions: Type.Array(Type.Ref(ReviewDecisionSchema), { description: 'Decisions of open double validations stay hidden until this operator gave theirs' }),
    revisions: Type.Array(Type.Ref(RevisionRecordedSchema)),
    subject: MaskedSubject,
    corrections: Type.Array(CorrectionItem),
    journal: Type.Array(JournalItem, { description: 'The latest 100 entries, newest first' }),
  },
  { $id: 'CaseRecord' },
);

export const TaskParams = Type.Object({ task_id: Type.String({ maxLength: 64 }) });
