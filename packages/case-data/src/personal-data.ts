import type { Executor } from '@idv/db';
import type { CaseKey, KeyClass, MasterKeyring } from '@idv/vault';
import type { CaseVault } from './case-vault.ts';

/**
 * Where each piece of personal data of a case is sealed, and under which of the case's keys: the
 * purpose is bound to the ciphertext as associated data, so a value copied to another field or
 * case does not open. Nothing here is sealed under the master key: destroying the case's keys
 * (erasure) makes all of it unreadable, backups included.
 */
export const PURPOSE = {
  declared: 'declared',
  /** What the person entered in the journey (journeys.applicant_sealed). */
  applicant: 'applicant',
  /** Questionnaire answers (journeys.answers_sealed). */
  answers: 'answers',
  decisionComment: (decisionId: string) => `review_decision:${decisionId}:comment`,
  /** Why a decision went against failed or attention checks (review_decisions.justification_sealed). */
  decisionJustification: (decisionId: string) => `review_decision:${decisionId}:justification`,
  correction: (correctionId: string) => `review_correction:${correctionId}`,
  revisionComment: (revisionId: string) => `case_revision:${revisionId}:comment`,
  /** Why a revision to approved went against failed or attention checks (case_revisions.justification_sealed). */
  revisionJustification: (revisionId: string) => `case_revision:${revisionId}:justification`,
  documentReading: (round: number) => `document_reading:${round}`,
  faceTemplates: (round: number) => `face_templates:${round}`,
  grantReason: (grantId: string) => `support_grant:${grantId}:reason`,
} as const;

/**
 * Before per-case keys, a few values were sealed with the master keyring (`v1.<key id>.<…>`, associated
 * data as below). They still open, and `npm run admin -- keys rewrap` re-seals them under the case
 * keys; case-key values are plain base64 and never contain a dot.
 */
export const LEGACY_AAD = {
  declared: (caseId: string) => `case:${caseId}:declared`,
  decisionComment: (decisionId: string) => `review_decision:${decisionId}:comment`,
  correction: (correctionId: string) => `review_correction:${correctionId}`,
  revisionComment: (revisionId: string) => `case_revision:${revisionId}:comment`,
} as const;

export function isMasterSealed(sealed: string): boolean {
  return sealed.startsWith('v1.');
}

/**
 * Opens the personal data of one case, unwrapping each key class at most once. Every `open*`
 * answers null once the case has been erased (its keys destroyed).
 */
export class CaseOpener {
  private readonly keys = new Map<KeyClass, Promise<CaseKey | null>>();

  constructor(
    private readonly vault: CaseVault,
    private readonly keyring: MasterKeyring,
    private readonly db: Executor,
    readonly caseId: string,
  ) {}

  private key(keyClass: KeyClass): Promise<CaseKey | null> {
    let key = this.keys.get(keyClass);
    if (!key) {
      key = this.vault.existingKey(this.db, this.caseId, keyClass);
      this.keys.set(keyClass, key);
    }
    return key;
  }

  /** True once the case's keys were destroyed (nothing sealed for it opens any more). */
  async erased(): Promise<boolean> {
    return this.vault.isErased(this.db, this.caseId);
  }

  async json<T>(keyClass: KeyClass, purpose: string, sealed: string | null | undefined, legacyAad?: string): Promise<T | null> {
    if (!sealed) return null;
    if (isMasterSealed(sealed)) {
      if (!legacyAad || (await this.erased())) return null;
      const text = this.keyring.openText(sealed, legacyAad);
      return parseLegacy<T>(text);
    }
    const key = await this.key(keyClass);
    return key ? key.openJson<T>(sealed, purpose) : null;
  }
}

/** Legacy values were JSON objects (declared, corrections) or bare text (comments). */
function parseLegacy<T>(text: string): T {
  try {
    const value = JSON.parse(text) as unknown;
    if (value !== null && typeof value === 'object') return value as T;
  } catch {
    // bare text
  }
  return text as T;
}

export function caseOpener(ctx: { vault: CaseVault; keyring: MasterKeyring }, db: Executor, caseId: string): CaseOpener {
  return new CaseOpener(ctx.vault, ctx.keyring, db, caseId);
}
