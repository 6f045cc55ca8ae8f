/**
 * The case life cycle as pure functions. The spec has two vocabularies: `state` (one word, the
 * position of the case) and `status` (the coarser value returned at creation and used to filter
 * lists). `status` is derived from `state` plus whether the person has started the journey.
 */
export const CASE_STATES = [
  'awaiting_applicant',
  'processing',
  'in_review',
  'resubmission_requested',
  'approved',
  'rejected',
  'expired',
  'abandoned',
] as const;
export type CaseState = (typeof CASE_STATES)[number];

export const CASE_STATUSES = ['created', 'collecting', 'processing', 'review', 'decided', 'abandoned', 'expired'] as const;
export type CaseStatus = (typeof CASE_STATUSES)[number];

const CLOSED_STATES: readonly CaseState[] = ['approved', 'rejected', 'expired', 'abandoned'];

export function statusOf(state: CaseState, journeyStarted: boolean): CaseStatus {
  switch (state) {
    case 'awaiting_applicant':
      return journeyStarted ? 'collecting' : 'created';
    case 'resubmission_requested':
      return 'collecting';
    case 'processing':
      return 'processing';
    case 'in_review':
      return 'review';
    case 'approved':
    case 'rejected':
      return 'decided';
    case 'expired':
      return 'expired';
    case 'abandoned':
      return 'abandoned';
  }
}

export function isClosed(state: CaseState): boolean {
  return CLOSED_STATES.includes(state);
}

/** A journey link may be issued only while the case waits for the person (status created or collecting). */
export function awaitsApplicant(state: CaseState): boolean {
  return state === 'awaiting_applicant' || state === 'resubmission_requested';
}

export type CaseTrigger =
  | { type: 'journey_started' }
  | { type: 'submission_complete' }
  | { type: 'routed_to_review' }
  | { type: 'concluded'; outcome: 'approved' | 'rejected' }
  | { type: 'resubmission_requested' }
  | { type: 'expired' }
  | { type: 'abandoned' };

export type Transition =
  | { ok: true; state: CaseState; journeyStarted: boolean }
  | { ok: false; from: CaseState; trigger: CaseTrigger['type'] };

/** Applies a trigger to a case position; refuses transitions the life cycle does not allow. */
export function transition(from: CaseState, journeyStarted: boolean, trigger: CaseTrigger): Transition {
  const refuse: Transition = { ok: false, from, trigger: trigger.type };
  const waiting = awaitsApplicant(from);
  switch (trigger.type) {
    case 'journey_started':
      return waiting ? { ok: true, state: from, journeyStarted: true } : refuse;
    case 'submission_complete':
      return waiting ? { ok: true, state: 'processing', journeyStarted: true } : refuse;
    case 'routed_to_review':
      return from === 'processing' ? { ok: true, state: 'in_review', journeyStarted } : refuse;
    case 'concluded':
      return from === 'processing' || from === 'in_review'
        ? { ok: true, state: trigger.outcome, journeyStarted }
        : refuse;
    case 'resubmission_requested':
      return from === 'processing' || from === 'in_review'
        ? { ok: true, state: 'resubmission_requested', journeyStarted }
        : refuse;
    case 'expired':
    case 'abandoned':
      return waiting ? { ok: true, state: trigger.type, journeyStarted } : refuse;
  }
}
