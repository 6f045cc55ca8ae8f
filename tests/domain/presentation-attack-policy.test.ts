import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  ATTACK_ACTIONS,
  ATTACK_REASONS,
  CHECK_REASONS,
  CHECK_REASON_LIST,
  CHECK_TYPES,
  FLOW_TEMPLATES,
  PRESENTATION_ATTACKS,
  REASON_CODES,
  STANDARD_FLOW,
  decideCase,
  flowDefinitionProblems,
  riskScore,
  type AttackReason,
  type CheckReport,
  type FlowDefinition,
  type PresentationAttackSettings,
} from '@idv/domain';

const NOW = new Date('2026-03-01T10:00:00Z');
const ok = (type: CheckReport['type']): CheckReport => ({ type, status: 'ok', reasons: [], measures: {} });
const clean = (): CheckReport[] =>
  (['document_quality', 'mrz', 'document_validity', 'face_match', 'liveness', 'duplicates', 'data_comparison', 'questionnaire'] as const).map(ok);
/** The clean case with one attack reason raised by its own check, at the given status. */
const attacked = (reason: AttackReason, status: CheckReport['status'] = 'failed', ...more: CheckReport['reasons']): CheckReport[] => {
  const type = CHECK_REASONS[reason].check;
  return clean().map((c) => (c.type === type ? { type, status, reasons: [reason, ...more], measures: {} } : c));
};
const flow = (attacks?: PresentationAttackSettings, decision: Partial<FlowDefinition['decision']> = {}): FlowDefinition => ({
  ...STANDARD_FLOW,
  decision: { ...STANDARD_FLOW.decision, ...decision, ...(attacks ? { presentation_attacks: attacks } : {}) },
});

describe('presentation attacks in the decision policy', () => {
  test('every attack reason is in the catalogue, on a face, liveness or document-quality check, with codes of the closed lists', () => {
    for (const r of ATTACK_REASONS) {
      assert.ok(CHECK_REASON_LIST.includes(r), r);
      const rule = PRESENTATION_ATTACKS[r];
      const check = CHECK_REASONS[r].check;
      assert.equal(rule.step, check === 'document_quality' ? 'document' : 'face', r);
      assert.equal(REASON_CODES[rule.rejectCode].applies, 'reject', r);
      if (rule.retakeCode !== null) assert.equal(REASON_CODES[rule.retakeCode].applies, 'resubmit', r);
    }
  });

  test('reject: the case is refused with the mapped reason code, even beside a capture problem', () => {
    const d = decideCase({ reports: attacked('challenge_not_live'), flow: flow({ challenge_not_live: 'reject' }), resubmissions: 0, now: NOW });
    assert.deepEqual(d, { outcome: 'rejected', reasonCode: 'liveness_failed', reasons: ['challenge_not_live'] });
    const reports = attacked('document_photocopy_suspected', 'attention', 'image_glare');
    const doc = decideCase({ reports, flow: flow({ document_photocopy_suspected: 'reject' }), resubmissions: 0, now: NOW });
    assert.deepEqual(doc, { outcome: 'rejected', reasonCode: 'document_specimen', reasons: ['document_photocopy_suspected'] });
  });

  test('retake: the step of the reason is asked again, face for the face and liveness reasons, document for the document ones', () => {
    const face = decideCase({ reports: attacked('camera_injection_suspected'), flow: flow({ camera_injection_suspected: 'retake' }), resubmissions: 0, now: NOW });
    assert.deepEqual(face, { outcome: 'resubmission_requested', steps: ['face'], reasonCode: 'face_unclear', reasons: ['camera_injection_suspected'] });
    const doc = decideCase({ reports: attacked('document_screen_replay_suspected'), flow: flow({ document_screen_replay_suspected: 'retake' }), resubmissions: 1, now: NOW });
    assert.deepEqual(doc, { outcome: 'resubmission_requested', steps: ['document'], reasonCode: null, reasons: ['document_screen_replay_suspected'] });
    // With a capture problem beside it: both steps, the capture problem's reason code first.
    const both = clean().map((c) =>
      c.type === 'document_quality' ? { ...c, status: 'failed' as const, reasons: ['image_blurred' as const] } : c.type === 'liveness' ? { ...c, status: 'failed' as const, reasons: ['challenge_expired' as const] } : c,
    );
    const d = decideCase({ reports: both, flow: flow(), resubmissions: 0, now: NOW });
    assert.deepEqual(d, { outcome: 'resubmission_requested', steps: ['document', 'face'], reasonCode: 'document_blurred', reasons: ['image_blurred', 'challenge_expired'] });
  });

  test('retake is capped by max_resubmissions, then review', () => {
    const reports = attacked('challenge_expired');
    const d = decideCase({ reports, flow: flow(undefined, { max_resubmissions: 2 }), resubmissions: 2, now: NOW });
    assert.equal(d.outcome, 'in_review');
    assert.deepEqual(d.reasons, ['challenge_expired']);
    assert.equal(decideCase({ reports, flow: flow(undefined, { max_resubmissions: 0 }), resubmissions: 0, now: NOW }).outcome, 'in_review');
  });

  test('review: an operator sees the case before any retake, with every reason raised and a higher risk', () => {
    const reports = attacked('presentation_attack_suspected', 'attention');
    reports[0] = { type: 'document_quality', status: 'failed', reasons: ['image_glare'], measures: {} };
    const d = decideCase({ reports, flow: flow({ presentation_attack_suspected: 'review' }), resubmissions: 0, now: NOW });
    assert.equal(d.outcome, 'in_review');
    assert.deepEqual(new Set(d.reasons), new Set(['image_glare', 'presentation_attack_suspected']));
    const plain = clean().map((c) => (c.type === 'face_match' ? { ...c, status: 'attention' as const, reasons: ['faces_uncertain' as const] } : c));
    assert.equal(riskScore(attacked('presentation_attack_suspected', 'attention')), riskScore(plain) + 20);
  });

  test('the most severe answer wins: reject before review before retake', () => {
    const reports = clean().map((c) =>
      c.type === 'liveness' ? { ...c, status: 'failed' as const, reasons: ['challenge_expired' as const, 'camera_injection_suspected' as const] } : c,
    );
    assert.equal(decideCase({ reports, flow: flow(), resubmissions: 0, now: NOW }).outcome, 'in_review');
    assert.equal(decideCase({ reports, flow: flow({ challenge_expired: 'reject' }), resubmissions: 0, now: NOW }).outcome, 'rejected');
    assert.equal(decideCase({ reports, flow: flow({ camera_injection_suspected: 'retake' }), resubmissions: 0, now: NOW }).outcome, 'resubmission_requested');
  });

  test('a definitive refusal still comes first', () => {
    const reports = attacked('challenge_expired').map((c) => (c.type === 'document_validity' ? { ...c, status: 'failed' as const, reasons: ['document_expired' as const] } : c));
    assert.deepEqual(decideCase({ reports, flow: flow(), resubmissions: 0, now: NOW }), { outcome: 'rejected', reasonCode: 'document_expired', reasons: ['document_expired'] });
  });

  test('the defaults hold when the flow says nothing, and an empty setting is the defaults', () => {
    const expected = { reject: 'rejected', retake: 'resubmission_requested', review: 'in_review' } as const;
    for (const r of ATTACK_REASONS) {
      assert.equal(decideCase({ reports: attacked(r), flow: flow(), resubmissions: 0, now: NOW }).outcome, expected[PRESENTATION_ATTACKS[r].default], r);
      assert.equal(decideCase({ reports: attacked(r), flow: flow({}), resubmissions: 0, now: NOW }).outcome, expected[PRESENTATION_ATTACKS[r].default], r);
    }
  });

  test('the flow schema takes every reason and action, refuses an unknown reason or action, and keeps older flows valid', () => {
    assert.deepEqual(flowDefinitionProblems(flow(Object.fromEntries(ATTACK_REASONS.map((r) => [r, 'review'])))), []);
    assert.deepEqual(flowDefinitionProblems(STANDARD_FLOW), []);
    const bad = flowDefinitionProblems(flow({ challenge_expired: 'approve' } as never));
    assert.ok(bad.some((p) => p.path.startsWith('/decision/presentation_attacks')), JSON.stringify(bad));
    const unknown = flowDefinitionProblems(flow({ faces_differ: 'review' } as never));
    assert.ok(unknown.length > 0);
    for (const t of Object.values(FLOW_TEMPLATES)) assert.deepEqual(flowDefinitionProblems(t), []);
  });

  test('property: whatever the flow says and whatever the reports, a case carrying an attack reason is never approved', () => {
    const settings = fc.dictionary(fc.constantFrom(...ATTACK_REASONS), fc.constantFrom(...ATTACK_ACTIONS)) as fc.Arbitrary<PresentationAttackSettings>;
    const reportArb = fc.record({
      type: fc.constantFrom(...CHECK_TYPES),
      status: fc.constantFrom('ok' as const, 'attention' as const, 'failed' as const),
      reasons: fc.uniqueArray(fc.constantFrom(...CHECK_REASON_LIST), { maxLength: 4 }),
      measures: fc.constant({}),
    });
    const decision = fc.record({
      on_attention: fc.constantFrom('review' as const, 'reject' as const),
      max_resubmissions: fc.integer({ min: 0, max: 5 }),
      review_due_hours: fc.integer({ min: 1, max: 720 }),
    });
    fc.assert(
      fc.property(
        fc.array(reportArb, { maxLength: 8 }),
        fc.constantFrom(...ATTACK_REASONS),
        fc.constantFrom(...CHECK_TYPES),
        fc.constantFrom('ok' as const, 'attention' as const, 'failed' as const),
        settings,
        decision,
        fc.integer({ min: 0, max: 6 }),
        (others, attack, type, status, attacks, dec, resubmissions) => {
          const reports: CheckReport[] = [...others, { type, status, reasons: [attack], measures: {} }];
          const d = decideCase({ reports, flow: { ...STANDARD_FLOW, decision: { ...dec, presentation_attacks: attacks } }, resubmissions, now: NOW });
          assert.notEqual(d.outcome, 'approved');
          // A rejection or a retake only where some rule of the flow or of the checks asks it.
          if (d.outcome === 'resubmission_requested') assert.ok(resubmissions < dec.max_resubmissions);
        },
      ),
      { numRuns: 2000 },
    );
  });

  test('property: with only attack reasons raised, the outcome is the most severe action the flow gives them', () => {
    const expected = { reject: 'rejected', retake: 'resubmission_requested', review: 'in_review' } as const;
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.constantFrom(...ATTACK_REASONS), { minLength: 1, maxLength: ATTACK_REASONS.length }),
        fc.dictionary(fc.constantFrom(...ATTACK_REASONS), fc.constantFrom(...ATTACK_ACTIONS)) as fc.Arbitrary<PresentationAttackSettings>,
        (raised, attacks) => {
          const reports: CheckReport[] = clean().map((c) => {
            const own = raised.filter((r) => CHECK_REASONS[r].check === c.type);
            return own.length ? { ...c, status: 'failed', reasons: own } : c;
          });
          const actions = raised.map((r) => attacks[r] ?? PRESENTATION_ATTACKS[r].default);
          const worst = actions.includes('reject') ? 'reject' : actions.includes('review') ? 'review' : 'retake';
          const d = decideCase({ reports, flow: flow(attacks), resubmissions: 0, now: NOW });
          assert.equal(d.outcome, expected[worst]);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
