/**
 * The closed lists the console shows, taken from the domain package itself so that a code added
 * there is a type error here until it has its words (see i18n/reasons.ts). Imported file by file:
 * the package's index also holds server-only modules (node:crypto) that have no place in a browser.
 */
import { REASON_CODES, REASON_CODE_LIST } from '../../../../packages/domain/src/review.ts';

export { REASON_CODES, CORRECTABLE_FIELDS, RESUBMISSION_STEPS, TASK_STATUSES } from '../../../../packages/domain/src/review.ts';
export type { ReasonCode, CorrectableField, TaskStatus } from '../../../../packages/domain/src/review.ts';
export { CHECK_REASONS, TASK_ONLY_REASONS } from '../../../../packages/domain/src/check-reasons.ts';
export type { CheckReason, CheckType } from '../../../../packages/domain/src/check-reasons.ts';
export { CHECK_MEASURES, isFlagMeasure } from '../../../../packages/domain/src/check-measures.ts';
export type { CheckMeasures } from '../../../../packages/domain/src/check-measures.ts';
export { CASE_JOURNAL_ACTIONS } from '../../../../packages/domain/src/journal-actions.ts';
export type { CaseJournalAction } from '../../../../packages/domain/src/journal-actions.ts';
export { AA_TEXT_CONTRAST, LOGO_LIMITS, MAX_DISPLAY_NAME, checkAppearance, contrastRatio, buttonLabelColor } from '../../../../packages/domain/src/appearance.ts';
export { OPERATOR_ROLES, SENSITIVITY_LEVELS } from '../../../../packages/domain/src/operators.ts';
export type { OperatorRole, Sensitivity } from '../../../../packages/domain/src/operators.ts';
export { USAGE_SERVICES } from '../../../../packages/domain/src/usage.ts';
export { JUSTIFICATION_MAX_LENGTH, JUSTIFICATION_MIN_LENGTH, overriddenChecks } from '../../../../packages/domain/src/override.ts';
export { CASE_STATES } from '../../../../packages/domain/src/case-state.ts';
export { ATTACK_ACTIONS, ATTACK_REASONS, PRESENTATION_ATTACKS, isAttackReason } from '../../../../packages/domain/src/presentation-attacks.ts';
export type { AttackAction, AttackReason } from '../../../../packages/domain/src/presentation-attacks.ts';

/** The reasons a rejection may give, and those a resubmission may give (the service's own split). */
export const REJECT_REASONS = REASON_CODE_LIST.filter((c) => REASON_CODES[c].applies === 'reject');
export const RESUBMIT_REASONS = REASON_CODE_LIST.filter((c) => REASON_CODES[c].applies === 'resubmit');
