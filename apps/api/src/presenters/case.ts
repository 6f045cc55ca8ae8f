import type { CaseRow } from '@idv/db';

/** The parts of a case that carry no personal data (GET results, and the tail of GET case). */
export function presentResults(row: CaseRow) {
  return {
    state: row.state,
    decision: (row.decision as { outcome: 'approved' | 'rejected'; reason_code: string | null; decided_at: string } | null) ?? null,
    resubmission: (row.resubmission as { steps: ('document' | 'face')[] } | null) ?? null,
    checks: row.checks as { type: string; status: 'ok' | 'attention' | 'failed'; reasons: string[]; measures: Record<string, number> }[],
    duplicates: row.duplicates,
    // Pieces arrive with the hosted journey; until then a case has none.
    pieces: [] as { id: string; kind: string; available: boolean; received_at: string }[],
  };
}

export function presentCase(row: CaseRow) {
  return {
    id: row.id,
    object: 'case' as const,
    status: row.status,
    flow_name: row.flowName,
    flow_version: row.flowVersion,
    country: row.country,
    external_ref: row.externalRef,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
    ...presentResults(row),
  };
}

export function presentCaseCreated(row: CaseRow) {
  return {
    id: row.id,
    object: 'case' as const,
    status: row.status,
    state: row.state,
    flow_name: row.flowName,
    flow_version: row.flowVersion,
    country: row.country,
    external_ref: row.externalRef,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}
