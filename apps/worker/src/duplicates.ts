import { sameDocumentCases, type Executor, type Tenant } from '@idv/db';
import type { CheckReason, CheckReport } from '@idv/domain';
import type { FaceSearchIndex, FaceTemplates } from '@idv/case-data';

/**
 * Face distance under which two templates are reported as one person (1:N), for a false positive
 * identification rate ≤ 1e-3 at lfw-dev's gallery size (about 750). The choosing half's own rule
 * gave 0.961, which let 2 of the other half's 742 searches through; 0.9 lets none through on
 * either half (npm run bench:duplicates prints both).
 */
export const DUPLICATE_FACE_THRESHOLD = 0.9;

export interface DuplicateSettings {
  /** Face distance under which another case's template is the same face (DUPLICATE_FACE_THRESHOLD). */
  faceMaxDistance: number;
  /** Nearest templates examined per template searched for (the index's k). */
  faceNeighbours: number;
}

export const DUPLICATE_DEFAULTS: DuplicateSettings = { faceMaxDistance: DUPLICATE_FACE_THRESHOLD, faceNeighbours: 10 };

/**
 * Other cases of the same client and environment carrying the same document (same keyed
 * fingerprint of issuing country + number) or the same face: the case's selfie and portrait
 * searched in the face index among every indexed template of the client and environment of the
 * same descriptor version (the case's own excluded), within `faceMaxDistance`. Reported as
 * `attention`: the same person may legitimately apply twice; a person decides.
 * `faces_compared`: the indexed templates the search examined (the k nearest of each).
 */
export async function findDuplicates(
  db: Executor,
  faces: FaceSearchIndex,
  tenant: Tenant,
  caseId: string,
  fingerprints: readonly string[],
  templates: FaceTemplates,
  now: Date,
  settings: Partial<DuplicateSettings> = {},
): Promise<{ report: CheckReport; caseIds: string[] }> {
  const s = { ...DUPLICATE_DEFAULTS, ...settings };
  const sameDocument = await sameDocumentCases(db, tenant, caseId, fingerprints);
  const found = await faces.search(db, tenant, caseId, templates, s.faceMaxDistance, now, { k: s.faceNeighbours });
  const reasons: CheckReason[] = [];
  if (sameDocument.length) reasons.push('duplicate_document');
  if (found.matches.size) reasons.push('duplicate_face');
  const caseIds = [...new Set([...sameDocument, ...found.matches.keys()])].sort();
  return {
    report: {
      type: 'duplicates',
      status: reasons.length ? 'attention' : 'ok',
      reasons,
      measures: { same_document: sameDocument.length, same_face: found.matches.size, faces_compared: found.examined },
    },
    caseIds,
  };
}
