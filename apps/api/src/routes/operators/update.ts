import { Type } from '@sinclair/typebox';
import { findOperatorForUpdate, updateOperator } from '@idv/db';
import type { OperatorRole, Sensitivity } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { clearanceCountries } from './clearance.ts';
import { REAUTH_ROUTE_ERRORS } from './errors.ts';
import { OperatorClearanceSchema, OperatorParams, OperatorSchema, presentOperator } from './schemas.ts';

export function registerUpdateOperator(app: App, ctx: AppContext): void {
  app.patch(
    '/v1/operators/:target_id',
    {
      config: { operator: { ability: 'manageOperators', reauth: true } },
      schema: {
        operationId: 'updateOperatorClearance',
        tags: ['operators'],
        summary: "Change an operator's clearance",
        description: 'Change role, countries or sensitivity (administrator, Op + Re); applies to the operator’s next request',
        params: OperatorParams,
        body: Type.Ref(OperatorClearanceSchema),
        response: {
          200: Type.Ref(OperatorSchema),
          ...errorResponses(...BODY_ERRORS, ...REAUTH_ROUTE_ERRORS, 'invalid_country', 'resource_not_found', 'operator_already_revoked', 'operator_self_change'),
        },
      },
    },
    async (req) => {
      const { tenant, operator: me } = operatorOf(req);
      const body = req.body as { role?: OperatorRole; countries?: string[]; sensitivity?: Sensitivity };
      const countries = body.countries ? clearanceCountries(body.countries) : undefined;
      const now = ctx.now();
      const row = await ctx.db.transaction(async (tx) => {
        const target = await findOperatorForUpdate(tx, tenant, req.params.target_id);
        if (!target) throw new ApiError('resource_not_found', 'No such operator.', 'target_id');
        if (target.id === me.id) throw new ApiError('operator_self_change');
        if (target.status === 'revoked') throw new ApiError('operator_already_revoked', 'The operator is revoked; invite the person again.');
        return updateOperator(tx, tenant, target.id, {
          ...(body.role ? { role: body.role } : {}),
          ...(countries ? { countries } : {}),
          ...(body.sensitivity ? { sensitivity: body.sensitivity } : {}),
          updatedAt: now,
        });
      });
      return presentOperator(row);
    },
  );
}
