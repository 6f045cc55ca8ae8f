import { test } from 'node:test';
import assert from 'node:assert/strict';
import { JUSTIFICATION_MIN_LENGTH, justificationProblem, needsSecondValidator, overriddenChecks } from '@idv/domain';

/** The override rules on their own: which checks a decision goes against, its justification, the second validator. */

const checks = [
  { type: 'document_quality', status: 'ok' },
  { type: 'face_match', status: 'failed' },
  { type: 'liveness', status: 'attention' },
  { type: 'duplicates', status: 'ok' },
];

test('only an approval overrides, and only the checks that failed or need attention, in the reports’ order', () => {
  assert.deepEqual(overriddenChecks('approve', checks), ['face_match', 'liveness']);
  assert.deepEqual(overriddenChecks('reject', checks), []);
  assert.deepEqual(overriddenChecks('resubmit', checks), []);
  assert.deepEqual(overriddenChecks('approve', checks.map((c) => ({ ...c, status: 'ok' }))), []);
  assert.deepEqual(overriddenChecks('approve', []), [], 'no report (checks never ran): nothing to override');
});

test('an override needs a justification of at least the minimum length; a decision without override takes none', () => {
  const over = overriddenChecks('approve', checks);
  assert.equal(justificationProblem(over, undefined)?.code, 'justification_required');
  assert.equal(justificationProblem(over, '   ')?.code, 'justification_required');
  assert.equal(justificationProblem(over, ` ${'x'.repeat(JUSTIFICATION_MIN_LENGTH - 1)} `)?.code, 'justification_required', 'spaces do not count');
  assert.match(justificationProblem(over, null)!.message, /face_match, liveness/);
  assert.equal(justificationProblem(over, 'x'.repeat(JUSTIFICATION_MIN_LENGTH)), null);
  assert.equal(justificationProblem([], undefined), null);
  assert.equal(justificationProblem([], 'Because I said so.')?.code, 'parameter_invalid');
});

test('a second validator: under double validation always; for an override only when the flow says so', () => {
  const over = overriddenChecks('approve', checks);
  assert.equal(needsSecondValidator({ doubleValidation: true }, [], {}), true);
  assert.equal(needsSecondValidator({ doubleValidation: false }, over, {}), false, 'absent: false');
  assert.equal(needsSecondValidator({ doubleValidation: false }, over, { double_validation_on_override: false }), false);
  assert.equal(needsSecondValidator({ doubleValidation: false }, over, { double_validation_on_override: true }), true);
  assert.equal(needsSecondValidator({ doubleValidation: false }, [], { double_validation_on_override: true }), false);
});
