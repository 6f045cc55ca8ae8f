import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseSandboxValue, sandboxForce } from '@idv/domain';

describe('sandbox test values', () => {
  test('the documented values force each outcome', () => {
    assert.deepEqual(parseSandboxValue('Sandbox Approve'), { outcome: 'approve' });
    assert.deepEqual(parseSandboxValue('SANDBOX REVIEW'), { outcome: 'review' });
    assert.deepEqual(parseSandboxValue('sandbox reject'), { outcome: 'reject', reasonCode: 'suspected_fraud' });
    assert.deepEqual(parseSandboxValue('Sandbox-Reject document_expired'), { outcome: 'reject', reasonCode: 'document_expired' });
    assert.deepEqual(parseSandboxValue('Sandbox Resubmit'), { outcome: 'resubmit', steps: ['document', 'face'], reasonCode: null });
    assert.deepEqual(parseSandboxValue('sandbox resubmit face document_glare'), { outcome: 'resubmit', steps: ['face'], reasonCode: 'document_glare' });
    assert.deepEqual(parseSandboxValue('  sandbox   resubmit face document '), { outcome: 'resubmit', steps: ['document', 'face'], reasonCode: null });
  });

  test('anything else is an ordinary name', () => {
    for (const v of ['Sandra', 'Sandbox', 'Sandbox Approve now', 'Sandbox Reject document_blurred', 'Sandbox Reject nope', 'Sandbox Resubmit passport', 'Approve Sandbox', '', 42, null]) {
      assert.equal(parseSandboxValue(v), null, String(v));
    }
  });

  test('only in the sandbox: declared names first, then entered names', () => {
    const declared = { given_names: 'Sandbox Approve' };
    const entered = { given_names: 'Sandbox Review' };
    assert.equal(sandboxForce('prod', { declared, entered }), null);
    assert.deepEqual(sandboxForce('sandbox', { declared, entered }), { outcome: 'approve' });
    assert.deepEqual(sandboxForce('sandbox', { declared: { given_names: 'Ada' }, entered }), { outcome: 'review' });
    assert.equal(sandboxForce('sandbox', { declared: null, entered: null }), null);
  });
});
