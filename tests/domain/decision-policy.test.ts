import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { STANDARD_FLOW, decideCase, riskScore, type CheckReport, type FlowDefinition } from '@idv/domain';

const NOW = new Date('2026-03-01T10:00:00Z');
const ok = (type: CheckReport['type']): CheckReport => ({ type, status: 'ok', reasons: [], measures: {} });
const report = (type: CheckReport['type'], status: CheckReport['status'], ...reasons: CheckReport['reasons']): CheckReport => ({ type, status, reasons, measures: {} });
const clean = (): CheckReport[] => ['document_quality', 'mrz', 'document_validity', 'face_match', 'liveness', 'duplicates', 'data_comparison', 'questionnaire'].map((t) => ok(t as CheckReport['type']));
const withReport = (r: CheckReport): CheckReport[] => clean().map((c) => (c.type === r.type ? r : c));
const flow = (patch: Partial<FlowDefinition['decision']> = {}): FlowDefinition => ({ ...STANDARD_FLOW, decision: { ...STANDARD_FLOW.decision, ...patch } });

describe('decision policy', () => {
  test('every check ok: approved', () => {
    assert.deepEqual(decideCase({ reports: clean(), flow: flow(), resubmissions: 0, now: NOW }), { outcome: 'approved', reasons: [] });
  });

  test('a definitive failure rejects with its reason code, even beside a capture problem', () => {
    const reports = withReport(report('document_validity', 'failed', 'document_expired'));
    reports[0] = report('document_quality', 'failed', 'image_glare');
    const d = decideCase({ reports, flow: flow(), resubmissions: 0, now: NOW });
    assert.deepEqual(d, { outcome: 'rejected', reasonCode: 'document_expired', reasons: ['document_expired'] });
    assert.equal(decideCase({ reports: withReport(report('document_validity', 'failed', 'under_minimum_age')), flow: flow(), resubmissions: 0, now: NOW }).outcome, 'rejected');
  });

  test('document quality failures ask for the document step again, face capture problems for the face step', () => {
    const doc = decideCase({ reports: withReport(report('document_quality', 'failed', 'image_blurred')), flow: flow(), resubmissions: 0, now: NOW });
    assert.deepEqual(doc, { outcome: 'resubmission_requested', steps: ['document'], reasonCode: 'document_blurred', reasons: ['image_blurred'] });
    const face = decideCase({ reports: withReport(report('face_match', 'attention', 'selfie_several_faces')), flow: flow({ on_attention: 'reject' }), resubmissions: 1, now: NOW });
    assert.deepEqual(face, { outcome: 'resubmission_requested', steps: ['face'], reasonCode: 'face_unclear', reasons: ['selfie_several_faces'] });
    const both = [report('document_quality', 'failed', 'document_cut_off'), report('liveness', 'failed', 'challenge_face_not_found')];
    const d = decideCase({ reports: [...clean().slice(1, 4), ...both], flow: flow(), resubmissions: 0, now: NOW });
    assert.equal(d.outcome, 'resubmission_requested');
    assert.deepEqual(d.outcome === 'resubmission_requested' && d.steps, ['document', 'face']);
  });

  test('capture problems beyond max_resubmissions go to review, not to a refusal', () => {
    const reports = withReport(report('document_quality', 'failed', 'image_glare'));
    const d = decideCase({ reports, flow: flow({ max_resubmissions: 2 }), resubmissions: 2, now: NOW });
    assert.equal(d.outcome, 'in_review');
    assert.ok(d.outcome === 'in_review' && d.reasons.includes('image_glare'));
    assert.equal(decideCase({ reports, flow: flow({ max_resubmissions: 0 }), resubmissions: 0, now: NOW }).outcome, 'in_review');
  });

  test('other failures reject with the reason code naming them', () => {
    const cases: [CheckReport, string][] = [
      [report('face_match', 'failed', 'faces_differ'), 'face_mismatch'],
      [report('liveness', 'failed', 'challenge_not_performed'), 'liveness_failed'],
      [report('mrz', 'failed', 'mrz_check_digit_failed'), 'document_tampered'],
      [report('data_comparison', 'failed', 'subject_mismatch'), 'data_mismatch'],
      [report('duplicates', 'failed', 'duplicate_document'), 'duplicate_identity'],
    ];
    for (const [r, code] of cases) {
      const d = decideCase({ reports: withReport(r), flow: flow(), resubmissions: 0, now: NOW });
      assert.equal(d.outcome, 'rejected', r.reasons[0]);
      assert.equal(d.outcome === 'rejected' && d.reasonCode, code);
    }
  });

  test('attention follows on_attention; review carries risk score, reasons and the due date of the flow', () => {
    const reports = withReport(report('face_match', 'attention', 'faces_uncertain'));
    const d = decideCase({ reports, flow: flow({ on_attention: 'review', review_due_hours: 6 }), resubmissions: 0, now: NOW });
    assert.equal(d.outcome, 'in_review');
    if (d.outcome !== 'in_review') return;
    assert.deepEqual(d.reasons, ['faces_uncertain']);
    assert.equal(d.dueAt.toISOString(), '2026-03-01T16:00:00.000Z');
    assert.equal(d.riskScore, riskScore(reports));
    const r = decideCase({ reports, flow: flow({ on_attention: 'reject' }), resubmissions: 0, now: NOW });
    assert.deepEqual(r, { outcome: 'rejected', reasonCode: 'face_mismatch', reasons: ['faces_uncertain'] });
  });

  test('questionnaire threshold or flags send to review even when the flow rejects on attention', () => {
    const reports = withReport(report('questionnaire', 'attention', 'questionnaire_threshold', 'questionnaire_flagged'));
    const d = decideCase({ reports, flow: flow({ on_attention: 'reject' }), resubmissions: 0, now: NOW });
    assert.equal(d.outcome, 'in_review');
    assert.deepEqual(d.reasons, ['questionnaire_threshold', 'questionnaire_flagged']);
  });

  test('risk score grows with failures, attention and duplicates, within 0..100', () => {
    assert.equal(riskScore(clean()), 10);
    const dup = withReport(report('duplicates', 'attention', 'duplicate_face'));
    assert.equal(riskScore(dup), 45);
    const all = clean().map((c) => ({ ...c, status: 'failed' as const }));
    assert.equal(riskScore(all), 100);
  });

  test('a sandbox value forces the outcome with sandbox_forced, resubmissions within the same limit', () => {
    const failing = withReport(report('face_match', 'failed', 'faces_differ'));
    assert.deepEqual(decideCase({ reports: failing, flow: flow(), resubmissions: 0, now: NOW, forced: { outcome: 'approve' } }), { outcome: 'approved', reasons: ['sandbox_forced'] });
    assert.deepEqual(decideCase({ reports: clean(), flow: flow(), resubmissions: 0, now: NOW, forced: { outcome: 'reject', reasonCode: 'underage' } }), {
      outcome: 'rejected',
      reasonCode: 'underage',
      reasons: ['sandbox_forced'],
    });
    assert.equal(decideCase({ reports: clean(), flow: flow(), resubmissions: 0, now: NOW, forced: { outcome: 'review' } }).outcome, 'in_review');
    const resubmit = { outcome: 'resubmit' as const, steps: ['face' as const], reasonCode: null };
    assert.deepEqual(decideCase({ reports: clean(), flow: flow(), resubmissions: 1, now: NOW, forced: resubmit }), {
      outcome: 'resubmission_requested',
      steps: ['face'],
      reasonCode: null,
      reasons: ['sandbox_forced'],
    });
    assert.equal(decideCase({ reports: clean(), flow: flow({ max_resubmissions: 2 }), resubmissions: 2, now: NOW, forced: resubmit }).outcome, 'in_review');
  });
});
