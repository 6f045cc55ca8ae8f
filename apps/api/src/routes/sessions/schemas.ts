import { Type } from '@sinclair/typebox';
import type { SessionRow } from '@idv/db';
import { LOCALE_LIST } from '@idv/domain';
import { Timestamp } from '../../schemas/common.ts';

/**
 * The `locale` a journey link is issued with (POST /v1/sessions, and the console's link): kept as
 * given, its language picks the journey's texts (@idv/domain's LOCALES, the one list).
 */
export const LocaleField = Type.String({
  pattern: '^[a-z]{2}(-[A-Z]{2})?$',
  default: 'en',
  description: `Journey language: ${LOCALE_LIST} (ar is written right to left, pt is European Portuguese, zh Simplified Chinese). A region (de-CH) gets its language; another language falls back to en`,
});

const sessionFields = {
  id: Type.String(),
  object: Type.Literal('session'),
  case_id: Type.String(),
  locale: Type.String(),
  created_at: Timestamp,
  expires_at: Timestamp,
};

export const SessionSchema = Type.Object(
  { ...sessionFields, status: Type.Union([Type.Literal('active'), Type.Literal('expired')]) },
  { $id: 'Session', description: 'A journey link; the url itself is never returned after creation' },
);

export const SessionCreatedSchema = Type.Object(
  { ...sessionFields, url: Type.String({ format: 'uri', description: 'Journey link, returned once; valid one hour at most' }) },
  { $id: 'SessionCreated' },
);

export function presentSession(row: SessionRow) {
  return {
    id: row.id,
    object: 'session' as const,
    case_id: row.caseId,
    locale: row.locale,
    created_at: row.createdAt.toISOString(),
    expires_at: row.expiresAt.toISOString(),
  };
}

export function sessionStatus(row: SessionRow, now: Date): 'active' | 'expired' {
  return row.expiresAt > now ? 'active' : 'expired';
}
