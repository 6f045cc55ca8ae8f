/**
 * Rules of access to personal data, as pure functions: the unmask counter, the access log's
 * vocabulary, support grants and erasure categories.
 */

/** Unmasking more than this many distinct cases within the window needs a recent re-authentication (spec §5.7, §8). */
export const UNMASK_FREE_CASES = 20;
export const UNMASK_WINDOW_MS = 3_600_000;

/**
 * Whether unmasking one more case needs a recent re-authentication: `others` is the number of
 * distinct other cases this operator unmasked within the window. A case already unmasked within
 * the window does not count again.
 */
export function unmaskNeedsReauth(others: number, caseAlreadyCounted: boolean): boolean {
  return !caseAlreadyCounted && others >= UNMASK_FREE_CASES;
}


const FIELD_PATH = /^(declared|entered|document|corrected|answers)(\.[a-z][a-z0-9_]{0,39}(\.[a-z][a-z0-9_]{0,39})?)?$/;

/** A field path of an unmask request: a source (`document`) or one of its fields (`document.surname`). */
export function isFieldPath(value: string): boolean {
  return FIELD_PATH.test(value);
}

/** True when `path` is `wanted` or lies under it (`document.surname` under `document`). */
export function pathWithin(path: string, wanted: string): boolean {
  return path === wanted || path.startsWith(`${wanted}.`);
}

// ---------------------------------------------------------------- access log

/** Journal actions that are accesses to personal data, and the kind each is in the access log. */
export const ACCESS_ACTIONS = {
  'case.consulted': 'consulted',
  'personal_data.consulted': 'consulted',
  'personal_data.unmasked': 'unmasked',
  'piece.downloaded': 'downloaded',
} as const;
export type AccessAction = keyof typeof ACCESS_ACTIONS;
export const ACCESS_ACTION_LIST = Object.keys(ACCESS_ACTIONS) as AccessAction[];

// ---------------------------------------------------------------- support access

/** A support grant lasts four hours (spec §8). */
export const SUPPORT_GRANT_MS = 4 * 3_600_000;

export type SupportGrantStatus = 'active' | 'revoked' | 'expired';

export function supportGrantStatus(grant: { revokedAt: Date | null; expiresAt: Date }, now: Date): SupportGrantStatus {
  if (grant.revokedAt) return 'revoked';
  return grant.expiresAt > now ? 'active' : 'expired';
}

// ---------------------------------------------------------------- erasure

/** What an erasure removes, by category (spec: POST /v1/cases/{id}/erasure). */
export const ERASURE_CATEGORIES = [
  'images',
  'identity_read',
  'portraits_and_face_templates',
  'declared_data',
  'entered_data',
  'questionnaire_answers',
  'document_fingerprints',
  'review_comments',
  'corrections',
] as const;

/** What an erasure keeps. */
export const ERASURE_KEEPS = ['case', 'steps', 'verdicts', 'decisions', 'journal'] as const;
