import { test } from 'node:test';
import assert from 'node:assert/strict';
import { FLOW_TEMPLATES, FLOW_TEMPLATE_NAMES, STANDARD_FLOW, flowDefinitionProblems } from '@idv/domain';

test('every flow template is a definition the service accepts, and says what its name says', () => {
  assert.deepEqual(FLOW_TEMPLATE_NAMES, ['standard', 'document_and_selfie', 'document_only', 'enhanced_due_diligence']);
  for (const name of FLOW_TEMPLATE_NAMES) assert.deepEqual(flowDefinitionProblems(FLOW_TEMPLATES[name]), [], name);
  assert.equal(FLOW_TEMPLATES.standard, STANDARD_FLOW);
  assert.deepEqual(FLOW_TEMPLATES.document_and_selfie.steps, ['consent', 'document', 'face']);
  assert.deepEqual(FLOW_TEMPLATES.document_only.steps, ['consent', 'document']);
  assert.deepEqual(FLOW_TEMPLATES.document_only.liveness.challenges, []);
  const edd = FLOW_TEMPLATES.enhanced_due_diligence;
  assert.deepEqual([edd.double_validation, edd.capture.allow_file_upload, edd.liveness.challenges.length, edd.decision.max_resubmissions], [true, false, 4, 1]);
  assert.ok(edd.applicant.fields.some((f) => f.name === 'address' && f.required));
  // A template never moves the calibrated face thresholds.
  for (const name of FLOW_TEMPLATE_NAMES) assert.deepEqual(FLOW_TEMPLATES[name].checks, STANDARD_FLOW.checks, name);
});
