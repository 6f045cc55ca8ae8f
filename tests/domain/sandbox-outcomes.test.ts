import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { ATTACK_REASONS, CHECK_REASONS, parseSandboxValue, sandboxForce, withSandboxAttack, type CheckReport } from '@idv/domain';

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

  test('Sandbox Attack <reason> names each presentation-attack reason, and raises it failed on its own check', () => {
    for (const r of ATTACK_REASONS) assert.deepEqual(parseSandboxValue(`Sandbox Attack ${r}`), { outcome: 'attack', reason: r });
    assert.deepEqual(parseSandboxValue('sandbox-attack CHALLENGE_EXPIRED'), { outcome: 'attack', reason: 'challenge_expired' });
    const reports: CheckReport[] = [
      { type: 'liveness', status: 'ok', reasons: [], measures: { yaw: 20 } },
      { type: 'face_match', status: 'attention', reasons: ['faces_uncertain'], measures: {} },
    ];
    assert.deepEqual(withSandboxAttack(reports, 'challenge_not_live')[0], { type: 'liveness', status: 'failed', reasons: ['challenge_not_live'], measures: { yaw: 20 } });
    assert.deepEqual(withSandboxAttack(reports, 'selfie_is_document_portrait')[1].reasons, ['faces_uncertain', 'selfie_is_document_portrait']);
    const added = withSandboxAttack(reports, 'document_photocopy_suspected');
    assert.deepEqual(added[2], { type: CHECK_REASONS.document_photocopy_suspected.check, status: 'failed', reasons: ['document_photocopy_suspected'], measures: {} });
    assert.equal(reports[0].status, 'ok', 'the input reports are left as they were');
  });

  test('anything else is an ordinary name', () => {
    for (const v of ['Sandbox Attack', 'Sandbox Attack faces_differ', 'Sandbox Attack challenge_expired challenge_not_live', 'Sandra', 'Sandbox', 'Sandbox Approve now', 'Sandbox Reject document_blurred', 'Sandbox Reject nope', 'Sandbox Resubmit passport', 'Approve Sandbox', '', 42, null]) {
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
