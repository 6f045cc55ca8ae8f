import type { CaseRow, PieceRow } from '@idv/db';

/**
 * Pieces received by the journey (retakes replaced by a later image are left out); `available`
 * turns false once the image is deleted (retention or erasure).
 */
function presentPieces(pieces: readonly PieceRow[]) {
  return pieces
    .filter((p) => !p.supersededAt)
    .map((p) => ({ id: p.id, kind: p.kind, available: p.deletedAt === null, received_at: p.receivedAt.toISOString() }));
}

/** The parts of a case that carry no personal data (GET results, and the tail of GET case). */
export function presentResults(row: CaseRow, pieces: readonly PieceRow[] = []) {
  return {
    state: row.state,
    decision: (row.decision as { outcome: 'approved' | 'rejected'; reason_code: string | null; decided_at: string } | null) ?? null,
    resubmission: (row.resubmission as { steps: ('document' | 'face')[] } | null) ?? null,
    checks: row.checks as { type: string; status: 'ok' | 'attention' | 'failed'; reasons: string[]; measures: Record<string, number> }[],
    duplicates: row.duplicates,
    pieces: presentPieces(pieces),
  };
}

export function presentCase(row: CaseRow, pieces: readonly PieceRow[] = []) {
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
    ...presentResults(row, pieces),
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
