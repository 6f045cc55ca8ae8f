import { test } from 'node:test';
import assert from 'node:assert/strict';
import { STANDARD_FLOW } from '@idv/domain';
import { ApiError } from '../../apps/console/src/web/api/errors.ts';
import { problemsAt, problemsOf, problemsUnder, serverProblem } from '../../apps/console/src/web/screens/flows/flow-problems.ts';

/** The flows editor's problems: the service's rules run in the browser, and the service's refusals placed at their field. */
test('the service refusing a definition at a field is shown at that field; other refusals at none', () => {
  const refusal = ApiError.from(422, { error: { type: 'validation_error', code: 'parameter_invalid', message: 'Expected integer', field: 'definition.checks.min_age' } });
  assert.deepEqual(serverProblem(refusal), { path: '/checks/min_age', message: 'Expected integer' });
  const rule = ApiError.from(422, { error: { type: 'validation_error', code: 'flow_definition_invalid', message: 'each country may appear once', field: 'definition.documents.1.country' } });
  assert.deepEqual(serverProblem(rule), { path: '/documents/1/country', message: 'each country may appear once' });
  assert.deepEqual(serverProblem(ApiError.from(422, { error: { type: 'validation_error', code: 'parameter_missing', message: 'm', field: 'definition' } })), { path: '/', message: 'm' });
  assert.equal(serverProblem(ApiError.from(422, { error: { type: 'validation_error', code: 'parameter_invalid', message: 'm', field: 'cases' } })), null);
  assert.equal(serverProblem(ApiError.from(403, { error: { type: 'authorization_error', code: 'operator_role_insufficient', message: 'm' } })), null);
  assert.equal(serverProblem(new Error('network')), null);
});

test('the rules run here are the service\'s: a valid flow has none; each broken rule is at its pointer, and a group shows what its fields do not', () => {
  assert.deepEqual(problemsOf(STANDARD_FLOW), []);
  const broken = structuredClone(STANDARD_FLOW) as unknown as { checks: { face_match_max_distance: number }; documents: { country: string; types: string[] }[] };
  broken.checks.face_match_max_distance = 1.5;
  broken.documents.push({ country: '*', types: ['passport'] });
  const problems = problemsOf(broken);
  assert.deepEqual(
    problems.map((p) => p.path),
    ['/checks/face_match_max_distance', '/documents/1/country'],
  );
  assert.equal(problemsAt(problems, '/checks/face_match_max_distance').length, 1);
  assert.deepEqual(problemsUnder(problems, '/checks', ['/checks/face_match_max_distance']), []);
  assert.deepEqual(problemsUnder(problems, '/documents').map((p) => p.path), ['/documents/1/country']);
  assert.deepEqual(problemsUnder(problems, '/doc'), [], 'a prefix is a whole segment');
});
