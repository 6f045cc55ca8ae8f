import { Type } from '@sinclair/typebox';
import { findOperatorByInvitation, findOperatorBySubject, updateOperator } from '@idv/db';
import { ROLE_ABILITIES, roleCan, type RoleAbility } from '@idv/domain';
import { secretHash } from '@idv/vault';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { OperatorResolvedSchema, SubjectPresentedSchema } from './schemas.ts';

export function registerResolveOperator(app: App, ctx: AppContext): void {
  app.post(
    '/v1/operators/resolve',
    {
      config: { console: true },
      schema: {
        operationId: 'resolveOperator',
        tags: ['operators'],
        summary: 'Resolve an operator',
        description:
          'Which operator a subject is and what they may see (console credential only; does not authenticate). ' +
          'At the first connection the invitation token attaches the subject, in the same transaction as the resolution',
        body: Type.Ref(SubjectPresentedSchema),
        response: {
          200: Type.Ref(OperatorResolvedSchema),
          ...errorResponses(
            ...BODY_ERRORS,
            'console_credential_required',
            'subject_unknown',
            'invitation_invalid',
            'subject_already_attached',
            'operator_revoked',
          ),
        },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const { subject, invitation_token: token } = req.body as { subject: string; invitation_token?: string };
      const now = ctx.now();
      // Attach and resolve in one transaction: the attachment cannot commit while the resolution fails.
      const { operator, consumed } = await ctx.db.transaction(async (tx) => {
        const invited = token ? await findOperatorByInvitation(tx, tenant, secretHash(token)) : null;
        const attached = await findOperatorBySubject(tx, tenant, subject);
        if (attached) {
          if (attached.status === 'revoked') throw new ApiError('operator_revoked');
          if (invited && invited.id !== attached.id) {
            throw new ApiError('subject_already_attached', 'This subject is already attached to another operator; the invitation stays unused.', 'subject');
          }
          return { operator: await updateOperator(tx, tenant, attached.id, { lastConnectionAt: now }), consumed: false };
        }
        if (!token) throw new ApiError('subject_unknown', undefined, 'subject');
        if (!invited || invited.status !== 'invited' || !invited.invitationExpiresAt || invited.invitationExpiresAt <= now) {
          throw new ApiError('invitation_invalid', undefined, 'invitation_token');
        }
        const operator = await updateOperator(tx, tenant, invited.id, {
          subject,
          status: 'active',
          invitationHash: null,
          invitationExpiresAt: null,
          lastConnectionAt: now,
          updatedAt: now,
        });
        return { operator, consumed: true };
      });
      return {
        object: 'operator_resolution' as const,
        operator: { id: operator.id, name: operator.name, role: operator.role, countries: operator.countries, sensitivity: operator.sensitivity },
        abilities: (Object.keys(ROLE_ABILITIES) as RoleAbility[]).filter((a) => roleCan(operator.role, a)),
        invitation_consumed: consumed,
      };
    },
  );
}
