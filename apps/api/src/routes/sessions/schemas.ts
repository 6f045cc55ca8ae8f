import { Type } from '@sinclair/typebox';
import type { SessionRow } from '@idv/db';
import { Timestamp } from '../../schemas/common.ts';

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
