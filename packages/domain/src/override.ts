import type { CheckType } from './check-reasons.ts';
import type { OperatorOutcome } from './review.ts';

/**
 * Overrides: a person deciding against what the automated checks found, as pure rules. Approving
 * a case whose face match failed, or whose liveness, duplicates or document needed attention, is
 * the decision an auditor asks about first; it is allowed, but never without a written
 * justification, and the flow may ask a second operator to agree (docs/operators.md#overrides).
 */

/** A justification says why in a sentence, not a letter: shorter than this is refused. */
export const JUSTIFICATION_MIN_LENGTH = 10;
export const JUSTIFICATION_MAX_LENGTH = 2000;

/**
 * The checks a decision goes against: an approval goes against every check that failed or needs
 * attention, in the order of the case's reports. A rejection or a resubmission follows the checks
 * (or asks for better photos) and overrides nothing.
 */
export function overriddenChecks(outcome: OperatorOutcome, checks: readonly { type: string; status: string }[]): CheckType[] {
  if (outcome !== 'approve') return [];
  const types = checks.filter((c) => c.status === 'failed' || c.status === 'attention').map((c) => c.type as CheckType);
  return [...new Set(types)];
}

export type JustificationProblem =
  | { code: 'justification_required'; message: string }
  | { code: 'parameter_invalid'; message: string };

/**
 * What is wrong with the justification of a decision, or null: an override needs one of at least
 * JUSTIFICATION_MIN_LENGTH characters (spaces at either end aside); a decision that overrides
 * nothing takes none, so that a stored justification always explains an override.
 */
export function justificationProblem(overridden: readonly CheckType[], justification: string | null | undefined): JustificationProblem | null {
  const text = justification?.trim() ?? '';
  if (overridden.length === 0) {
    return justification == null ? null : { code: 'parameter_invalid', message: 'This decision goes against no failed or attention check: it takes no justification (use comment).' };
  }
  const list = overridden.join(', ');
  if (text.length === 0) return { code: 'justification_required', message: `Approving goes against checks that failed or need attention (${list}): say why in justification.` };
  if (text.length < JUSTIFICATION_MIN_LENGTH) {
    return { code: 'justification_required', message: `The justification of an override (${list}) needs at least ${JUSTIFICATION_MIN_LENGTH} characters.` };
  }
  return null;
}

/**
 * Whether a task takes a second operator's decision: when the flow asks for double validation
 * (set on the task when it opened), or when this decision is an override and the flow asks that
 * overrides be validated twice (`double_validation_on_override`), even without double validation.
 */
export function needsSecondValidator(
  task: { doubleValidation: boolean },
  overridden: readonly CheckType[],
  flow: { double_validation_on_override?: boolean },
): boolean {
  return task.doubleValidation || (overridden.length > 0 && flow.double_validation_on_override === true);
}
