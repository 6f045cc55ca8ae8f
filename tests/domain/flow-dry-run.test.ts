import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  STANDARD_FLOW,
  decideCase,
  dryRunFlow,
  flowDefinitionProblems,
  gradeFaceDistance,
  regradeFaceMatch,
  type CheckReport,
  type DryRunCase,
  type FlowDefinition,
} from '@idv/domain';

const ok = (type: CheckReport['type'], measures: Record<string, number> = {}): CheckReport => ({ type, status: 'ok', reasons: [], measures });
const TYPES: CheckReport['type'][] = ['document_quality', 'mrz', 'document_validity', 'face_match', 'liveness', 'duplicates', 'data_comparison', 'questionnaire'];
const clean = (): CheckReport[] => TYPES.map((t) => ok(t));
const withReport = (r: CheckReport): CheckReport[] => clean().map((c) => (c.type === r.type ? r : c));
const face = (distance: number, reasons: CheckReport['reasons'] = [], status?: CheckReport['status']): CheckReport => {
  const graded = gradeFaceDistance(distance, STANDARD_FLOW.checks);
  return { type: 'face_match', status: status ?? graded.status, reasons: reasons.length || status ? reasons : graded.reason ? [graded.reason] : [], measures: { distance, similarity: Math.max(0, 1 - distance ** 2 / 2) } };
};
const V1 = 'flw_v1';
const versions = new Map<string, FlowDefinition>([[V1, STANDARD_FLOW]]);
let n = 0;
const kase = (reports: CheckReport[], resubmissions = 0): DryRunCase => ({ id: `case_${String(++n).padStart(4, '0')}`, flowId: V1, reports, resubmissions });
const draft = (patch: (d: FlowDefinition) => void): FlowDefinition => {
  const d = structuredClone(STANDARD_FLOW);
  patch(d);
  return d;
};

describe('flow dry run', () => {
  test('a draft answering a presentation attack differently moves exactly the cases that carry it', () => {
    const expired = kase(withReport({ ...ok('liveness'), status: 'failed', reasons: ['challenge_expired'] }));
    const injected = kase(withReport({ ...ok('liveness'), status: 'failed', reasons: ['camera_injection_suspected'] }));
    const plain = kase(clean());
    const r = dryRunFlow(draft((d) => (d.decision.presentation_attacks = { challenge_expired: 'reject' })), [expired, injected, plain], versions);
    assert.equal(r.evaluated, 3);
    assert.equal(r.changed, 1);
    const moved = r.cells.find((c) => c.from !== c.to);
    assert.deepEqual(moved && [moved.from, moved.to, moved.caseIds], ['resubmission_requested', 'rejected', [expired.id]]);
  });

  test('the same definition changes nothing: every case stays on the diagonal', () => {
    const cases = [kase(clean()), kase(withReport(face(1.1))), kase(withReport(face(1.37))), kase(withReport({ ...ok('document_quality'), status: 'failed', reasons: ['image_blurred'] }))];
    const r = dryRunFlow(STANDARD_FLOW, cases, versions);
    assert.equal(r.evaluated, 4);
    assert.equal(r.changed, 0);
    assert.deepEqual(
      r.cells.map((c) => [c.from, c.to, c.count, c.caseIds.length]),
      [['approved', 'approved', 1, 0], ['rejected', 'rejected', 1, 0], ['in_review', 'in_review', 1, 0], ['resubmission_requested', 'resubmission_requested', 1, 0]],
    );
  });

  test('"from" is what the case’s own version decided on the stored reports, with decideCase itself', () => {
    const reports = withReport(face(1.1));
    const r = dryRunFlow(STANDARD_FLOW, [kase(reports)], versions);
    assert.equal(r.cells[0].from, decideCase({ reports, flow: STANDARD_FLOW, resubmissions: 0, now: new Date() }).outcome);
  });

  test('on_attention reject turns the uncertain faces from review to rejected, and says which cases', () => {
    const uncertain = [kase(withReport(face(1.09))), kase(withReport(face(1.135)))];
    const approved = kase(clean());
    const r = dryRunFlow(draft((d) => (d.decision.on_attention = 'reject')), [...uncertain, approved], versions);
    assert.equal(r.changed, 2);
    const moved = r.cells.find((c) => c.from === 'in_review' && c.to === 'rejected');
    assert.deepEqual(moved && { count: moved.count, ids: moved.caseIds }, { count: 2, ids: uncertain.map((c) => c.id) });
    assert.deepEqual(r.cells.find((c) => c.from === 'approved')?.to, 'approved');
  });

  test('a wider face match threshold approves what was uncertain; a narrower one sends matches to review or rejects', () => {
    const cases = [kase(withReport(face(0.92))), kase(withReport(face(1.057))), kase(withReport(face(1.1))), kase(withReport(face(1.2)))];
    const wider = dryRunFlow(draft((d) => (d.checks.face_match_max_distance = 1.12)), cases, versions);
    assert.deepEqual(wider.cells.filter((c) => c.from !== c.to).map((c) => [c.from, c.to, c.count]), [['in_review', 'approved', 1]]);
    const narrower = dryRunFlow(draft((d) => Object.assign(d.checks, { face_match_max_distance: 0.98, face_review_max_distance: 1.03 })), cases, versions);
    assert.deepEqual(
      narrower.cells.filter((c) => c.from !== c.to).map((c) => [c.from, c.to, c.count]),
      [['approved', 'rejected', 1], ['in_review', 'rejected', 1]],
    );
    assert.equal(narrower.changed, 2);
  });

  test('stored verdicts stand while the face thresholds stay: a distance rounded onto the threshold keeps its verdict', () => {
    // The engine graded a score of 1.0674 as uncertain and stored it as 1.067 (three decimals).
    const stored = face(1.067, ['faces_uncertain'], 'attention');
    const r = dryRunFlow(draft((d) => (d.decision.max_resubmissions = 1)), [kase(withReport(stored))], versions);
    assert.deepEqual(r.cells.map((c) => [c.from, c.to]), [['in_review', 'in_review']]);
  });

  test('a report with a quality-corrected match_score is regraded on it, one made before it on its distance', () => {
    const t = { face_match_max_distance: 1.067, face_review_max_distance: 1.148 };
    // Two poor faces: distance 1.09 (uncertain by itself), score 1.05 (a match): graded ok by the engine.
    const scored: CheckReport = { type: 'face_match', status: 'ok', reasons: [], measures: { distance: 1.09, similarity: 0.406, match_score: 1.05 } };
    assert.deepEqual(regradeFaceMatch(scored, t), scored);
    assert.deepEqual(regradeFaceMatch(scored, { ...t, face_match_max_distance: 1.04 }).reasons, ['faces_uncertain']);
    const older: CheckReport = { type: 'face_match', status: 'attention', reasons: ['faces_uncertain'], measures: { distance: 1.09, similarity: 0.406 } };
    assert.deepEqual(regradeFaceMatch(older, t), older);
    assert.equal(regradeFaceMatch(older, { ...t, face_match_max_distance: 1.1 }).status, 'ok');
  });

  test('a face report with a capture problem is never regraded on its distance', () => {
    const capture = face(0.9, ['selfie_not_frontal'], 'attention');
    assert.deepEqual(regradeFaceMatch(capture, { face_match_max_distance: 1, face_review_max_distance: 1 }), capture);
    const noDistance: CheckReport = { type: 'face_match', status: 'attention', reasons: ['selfie_face_not_found'], measures: {} };
    assert.equal(regradeFaceMatch(noDistance, { face_match_max_distance: 0, face_review_max_distance: 0 }), noDistance);
  });

  test('fewer resubmissions allowed: a capture problem on a second round goes to review instead of a retake', () => {
    const blurred = withReport({ ...ok('document_quality'), status: 'failed', reasons: ['image_blurred'] });
    const r = dryRunFlow(draft((d) => (d.decision.max_resubmissions = 1)), [kase(blurred, 0), kase(blurred, 1)], versions);
    assert.deepEqual(r.cells.filter((c) => c.from !== c.to).map((c) => [c.from, c.to, c.count]), [['resubmission_requested', 'in_review', 1]]);
  });

  test('sandbox-forced outcomes and unknown versions are skipped, not compared', () => {
    const forced = withReport({ ...ok('document_validity'), reasons: ['sandbox_forced'] });
    const r = dryRunFlow(STANDARD_FLOW, [kase(forced), { ...kase(clean()), flowId: 'flw_gone' }, kase(clean())], versions);
    assert.deepEqual([r.evaluated, r.skipped, r.changed], [1, 2, 0]);
  });

  test('at most five case ids per changed cell, newest (first given) first; counts stay exact', () => {
    const cases = Array.from({ length: 12 }, () => kase(withReport(face(1.1))));
    const r = dryRunFlow(draft((d) => (d.decision.on_attention = 'reject')), cases, versions);
    assert.equal(r.cells[0].count, 12);
    assert.deepEqual(r.cells[0].caseIds, cases.slice(0, 5).map((c) => c.id));
  });

  test('10,000 cases decide twice within the dry run’s budget (2 s, shared machine)', () => {
    const cases = Array.from({ length: 10_000 }, (_, i) => kase(withReport(face(0.4 + (i % 40) / 100))));
    const started = performance.now();
    const r = dryRunFlow(draft((d) => (d.checks.face_match_max_distance = 0.6)), cases, versions);
    const ms = performance.now() - started;
    assert.equal(r.evaluated, 10_000);
    assert.ok(r.changed > 0);
    assert.ok(ms < 2000, `${ms} ms`);
  });
});

describe('flow definition problems', () => {
  test('a valid definition has none', () => {
    assert.deepEqual(flowDefinitionProblems(STANDARD_FLOW), []);
  });

  test('schema errors and rules point at the offending path', () => {
    assert.equal(flowDefinitionProblems(draft((d) => (d.checks.face_match_max_distance = 3)))[0].path, '/checks/face_match_max_distance');
    assert.deepEqual(flowDefinitionProblems(draft((d) => (d.checks.face_match_max_distance = 1.2))), [
      { path: '/checks/face_match_max_distance', message: 'face_match_max_distance must not exceed face_review_max_distance' },
    ]);
    assert.deepEqual(flowDefinitionProblems(draft((d) => d.documents.push({ country: '*', types: ['passport'] }))).map((p) => p.path), ['/documents/1/country']);
    assert.deepEqual(flowDefinitionProblems(draft((d) => (d.steps = ['document', 'consent']))).map((p) => p.path), ['/steps/1']);
  });
});
