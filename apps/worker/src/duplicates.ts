import { duplicateCandidates, type Executor, type Tenant } from '@idv/db';
import type { CheckReason, CheckReport } from '@idv/domain';
import { faceDistance } from '@idv/engine';
import type { CaseVault } from '@idv/case-data';

export interface DuplicateSettings {
  /**
   * Face templates compared at most, the client's most recent readings first. Each comparison
   * unwraps another case's biometric key and opens its templates (about a millisecond each on
   * the embedded database, measured by bench:checks), so the search is bounded: a duplicate face
   * older than the last `faceCandidates` readings of the client in that environment is not found.
   * The document fingerprint search has no such bound (an indexed JSON containment query).
   */
  faceCandidates: number;
  /**
   * Strict: well under the flow's face match threshold, so that two different people are almost
   * never reported as the same face. bench:checks (docs/liveness.md): no different-person pair of
   * the fixtures is under 0.61 on the engine's descriptor, 37% of same-person pairs under 0.48.
   */
  faceMaxDistance: number;
}

export const DUPLICATE_DEFAULTS: DuplicateSettings = { faceCandidates: 200, faceMaxDistance: 0.48 };

type Templates = { portrait: number[] | null; selfie: number[] | null };

/**
 * Other cases of the same client and environment carrying the same document (same keyed
 * fingerprint of issuing country + number) or the same face (selfie or portrait against their
 * selfie or portrait, within `faceMaxDistance`). Reported as `attention`: the same person may
 * legitimately apply twice; a person decides.
 */
export async function findDuplicates(
  db: Executor,
  vault: CaseVault,
  tenant: Tenant,
  caseId: string,
  fingerprints: readonly string[],
  templates: Templates,
  settings: Partial<DuplicateSettings> = {},
): Promise<{ report: CheckReport; caseIds: string[] }> {
  const s = { ...DUPLICATE_DEFAULTS, ...settings };
  const mine = [templates.selfie, templates.portrait].filter((t): t is number[] => t !== null);
  const candidates = await duplicateCandidates(db, tenant, caseId, fingerprints, mine.length ? s.faceCandidates : 0);
  const sameFace = new Set<string>();
  let compared = 0;
  for (const c of candidates.faceTemplates) {
    if (sameFace.has(c.caseId)) continue;
    const key = await vault.existingKey(db, c.caseId, 'biometric');
    if (!key) continue; // erased meanwhile
    const theirs = key.openJson<Templates>(c.sealed, `face_templates:${c.round}`);
    compared += 1;
    const others = [theirs.selfie, theirs.portrait].filter((t): t is number[] => Array.isArray(t));
    // Templates from another descriptor version (another length) are not comparable: skipped.
    if (mine.some((a) => others.some((b) => b.length === a.length && faceDistance(a, b) <= s.faceMaxDistance))) sameFace.add(c.caseId);
  }
  const reasons: CheckReason[] = [];
  if (candidates.sameDocument.length) reasons.push('duplicate_document');
  if (sameFace.size) reasons.push('duplicate_face');
  const caseIds = [...new Set([...candidates.sameDocument, ...sameFace])].sort();
  return {
    report: {
      type: 'duplicates',
      status: reasons.length ? 'attention' : 'ok',
      reasons,
      measures: { same_document: candidates.sameDocument.length, same_face: sameFace.size, faces_compared: compared },
    },
    caseIds,
  };
}
