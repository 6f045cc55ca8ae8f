import { Type } from '@sinclair/typebox';
import type { SupportGrantRow } from '@idv/db';
import { supportGrantStatus } from '@idv/domain';
import { literals } from '../../schemas/case.ts';
import { ListOf, Timestamp } from '../../schemas/common.ts';

export const SupportAccessRequestSchema = Type.Object(
  {
    case_id: Type.String({ maxLength: 64, description: 'A case in review' }),
    operator_id: Type.String({ maxLength: 64, description: 'The support account (an operator of role support) the case is opened to' }),
    reason: Type.String({ minLength: 1, maxLength: 500, description: 'Why; kept sealed under the case’s data key (erased with the case’s personal data)' }),
  },
  { additionalProperties: false, $id: 'SupportAccessRequest' },
);

export const SupportGrantSchema = Type.Object(
  {
    id: Type.String({ examples: ['grt_01m7ym09t80f4fggxqxy1yr50c'] }),
    object: Type.Literal('support_grant'),
    case_id: Type.String(),
    operator_id: Type.String({ description: 'The support account' }),
    reason: Type.Union([Type.String(), Type.Null()], {
      description: 'Null once the case’s personal data was erased, and in listings for a case outside the reader’s clearance',
    }),
    status: literals(['active', 'revoked', 'expired'] as const),
    granted_by: Type.String({ description: 'op:<id> of the administrator or supervisor' }),
    created_at: Timestamp,
    expires_at: Timestamp,
    revoked_at: Type.Union([Timestamp, Type.Null()]),
    revoked_by: Type.Union([Type.String(), Type.Null()]),
  },
  { $id: 'SupportGrant', description: 'A case opened to a support account of the provider for four hours, with a reason' },
);

export const SupportGrantListSchema = ListOf(Type.Ref(SupportGrantSchema), 'SupportGrantList');

export const SupportGrantListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 64 })),
  },
  { additionalProperties: false },
);

export const GrantParams = Type.Object({ grant_id: Type.String({ maxLength: 64 }) });

export function presentGrant(g: SupportGrantRow, reason: string | null, now: Date) {
  return {
    id: g.id,
    object: 'support_grant' as const,
    case_id: g.caseId,
    operator_id: g.operatorId,
    reason,
    status: supportGrantStatus(g, now),
    granted_by: g.grantedBy,
    created_at: g.createdAt.toISOString(),
    expires_at: g.expiresAt.toISOString(),
    revoked_at: g.revokedAt?.toISOString() ?? null,
    revoked_by: g.revokedBy,
  };
}
