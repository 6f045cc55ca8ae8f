import { schema, type Db, type FlowRow, type Tenant } from '@idv/db';
import { gradeFaceDistance, newId, statusOf, type CaseState, type CheckReport, type FlowDefinition } from '@idv/domain';
import { newCaseRow } from '../../apps/api/src/services/cases.ts';

/**
 * Decided cases with stored check reports, as the checks runner leaves them (cases.checks, state
 * and status), written directly in batches: the dry run reads nothing else of a case. The reports
 * are realistic in shape (every check of the standard flow, with the measures the engine writes).
 */

const CLEAN: CheckReport['type'][] = ['document_quality', 'mrz', 'document_validity', 'liveness', 'duplicates', 'data_comparison', 'questionnaire'];

/** Reports of one case: `distance` for face_match, plus any report replacing the clean one of its type. */
export function caseReports(flow: FlowDefinition, distance: number, ...replace: CheckReport[]): CheckReport[] {
  const graded = gradeFaceDistance(distance, flow.checks);
  const face: CheckReport = {
    type: 'face_match',
    status: graded.status,
    reasons: graded.reason ? [graded.reason] : [],
    measures: { document_faces: 1, selfie_faces: 1, document_face_size: 0.081, selfie_face_size: 0.34, selfie_yaw: 3, selfie_pitch: -2, distance, similarity: Math.round(Math.max(0, 1 - distance ** 2 / 2) * 1000) / 1000 },
  };
  const clean = CLEAN.map((type): CheckReport => ({ type, status: 'ok', reasons: [], measures: type === 'document_quality' ? { sharpness: 212, glare_ratio: 0.01, width: 1600, height: 1200 } : {} }));
  return [...clean, face].map((r) => replace.find((x) => x.type === r.type) ?? r);
}

/**
 * The i-th case of a realistic mix: most approved, some uncertain faces (review), a few different
 * faces or expired documents (rejected), blurred photos (resubmission), declared risks (review).
 */
export function realisticReports(flow: FlowDefinition, i: number): { reports: CheckReport[]; state: CaseState } {
  const k = (i * 7919) % 100;
  const { face_match_max_distance: match, face_review_max_distance: review } = flow.checks;
  if (k < 68) return { reports: caseReports(flow, 0.5 + ((i * 31) % 30) / 100), state: 'approved' };
  // Spread over the review band, its width whatever the flow's thresholds.
  if (k < 80) return { reports: caseReports(flow, round3(match + 0.001 + (((i * 13) % 7) / 7) * (review - match - 0.002))), state: 'in_review' };
  if (k < 85) return { reports: caseReports(flow, round3(review + 0.02 + ((i * 17) % 30) / 100)), state: 'rejected' };
  if (k < 88) return { reports: caseReports(flow, 0.6, { type: 'document_validity', status: 'failed', reasons: ['document_expired'], measures: {} }), state: 'rejected' };
  if (k < 94) {
    const blurred: CheckReport = { type: 'document_quality', status: 'failed', reasons: ['image_blurred'], measures: { sharpness: 41, glare_ratio: 0.02, width: 1600, height: 1200 } };
    return { reports: caseReports(flow, 0.5, blurred), state: 'in_review' };
  }
  const risky: CheckReport = { type: 'questionnaire', status: 'attention', reasons: ['questionnaire_threshold'], measures: { points: 50 } };
  return { reports: caseReports(flow, 0.4, risky), state: 'in_review' };
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

/** Writes decided cases of `flow` in batches of 1,000; returns their ids, oldest first. */
export async function seedDecidedCases(
  db: Db,
  tenant: Tenant,
  flow: FlowRow,
  cases: readonly { reports: CheckReport[]; state: CaseState }[],
  now: Date,
): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < cases.length; start += 1000) {
    const rows = cases.slice(start, start + 1000).map((c, j) => {
      const at = new Date(now.getTime() - (cases.length - start - j) * 1000);
      const id = newId('case', at.getTime());
      ids.push(id);
      return { ...newCaseRow(flow, tenant, 'FR', null, at, id), state: c.state, status: statusOf(c.state, true), journeyStarted: 1, checks: c.reports };
    });
    await db.insert(schema.cases).values(rows);
  }
  return ids;
}
