import { Type } from '@sinclair/typebox';
import { findOperatorForUpdate, releaseLocksOf, updateOperator } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { errorResponses } from '../../schemas/common.ts';
import { REAUTH_ROUTE_ERRORS } from './errors.ts';
import { OperatorParams } from './schemas.ts';

export function registerRevokeOperator(app: App, ctx: AppContext): void {
  app.post(
    '/v1/operators/:target_id/revoke',
    {
      config: { operator: { ability: 'manageOperators', reauth: true } },
      schema: {
        operationId: 'revokeOperator',
        tags: ['operators'],
        summary: 'Revoke an operator',
        description:
          'Withdraw access (administrator, Op + Re); the operator’s next request fails and their review locks are released. ' +
          'A second revocation answers 409 operator_already_revoked',
        params: OperatorParams,
        response: {
          204: Type.Null({ description: 'Revoked' }),
          ...errorResponses(...REAUTH_ROUTE_ERRORS, 'resource_not_found', 'operator_already_revoked', 'operator_self_change'),
        },
      },
    },
    async (req, reply) => {
      const { tenant, operator: me } = operatorOf(req);
      const now = ctx.now();
      await ctx.db.transaction(async (tx) => {
        const target = await findOperatorForUpdate(tx, tenant, req.params.target_id);
        if (!target) throw new ApiError('resource_not_found', 'No such operator.', 'target_id');
        if (target.id === me.id) throw new ApiError('operator_self_change');
        if (target.status === 'revoked') {
          throw new ApiError('operator_already_revoked', `The operator was already revoked at ${target.revokedAt?.toISOString()}.`);
        }
        await updateOperator(tx, tenant, target.id, { status: 'revoked', revokedAt: now, invitationHash: null, invitationExpiresAt: null, updatedAt: now });
        await releaseLocksOf(tx, tenant, target.id, now);
      });
      return reply.code(204).send(null);
    },
  );
}
