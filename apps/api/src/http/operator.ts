import type { FastifyInstance, FastifyRequest } from 'fastify';
import { findOperator, type OperatorRow, type Tenant } from '@idv/db';
import { isId, roleCan, type RoleAbility } from '@idv/domain';
import type { AppContext } from '../context.ts';
import { ApiError } from './api-error.ts';
import { authOf } from './auth.ts';

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * Operator-bound route (Op): a console credential only, X-Service-Operator naming an active
     * operator whose role has `ability`, and with `reauth` a recent re-authentication (Re).
     * `console: true` alone: a console credential without an operator (resolve). With
     * `alsoIntegration` (case search), an integration key passes unchecked as on any keyed route,
     * and a console credential must name an operator, whose clearance then limits the answer.
     */
    operator?: { ability: RoleAbility; reauth?: boolean; alsoIntegration?: boolean };
    console?: boolean;
  }
  interface FastifyRequest {
    operator?: OperatorRow;
  }
}

export const OPERATOR_HEADER = 'x-service-operator';
export const REAUTH_HEADER = 'x-service-reauthenticated-at';

/** The acting operator of an operator-bound route, as read from the database for this request. */
export function operatorOf(req: FastifyRequest): { operator: OperatorRow; tenant: Tenant; actor: string } {
  if (!req.operator) throw new Error(`route ${req.routeOptions.url} used operatorOf without an operator`);
  return { operator: req.operator, tenant: authOf(req).tenant, actor: `op:${req.operator.id}` };
}

/**
 * Who acts on a route open to integration keys and to the console (`alsoIntegration`): the operator
 * when the console credential named one, otherwise the key. Written into journals and `created_by`.
 */
export function actorOf(req: FastifyRequest): string {
  return req.operator ? `op:${req.operator.id}` : `key:${authOf(req).key.id}`;
}

/**
 * Checks, in this order: console credential, operator header, operator (read from the database on
 * every call, so a change of clearance or a revocation applies to the next request), role, then
 * re-authentication. Runs before body validation, like the signature check.
 */
export function installOperatorAuth(app: FastifyInstance, ctx: AppContext): void {
  app.addHook('preValidation', async (req) => {
    const config = req.routeOptions.config;
    if (!config.operator && !config.console) return;
    const { key, tenant } = authOf(req);
    if (config.operator?.alsoIntegration && key.kind !== 'console') return;
    if (key.kind !== 'console') {
      throw new ApiError('console_credential_required', 'This route is called by the console server with its console credential, never with an integration key.');
    }
    if (!config.operator) return;
    const header = req.headers[OPERATOR_HEADER];
    if (typeof header !== 'string' || !isId('op', header)) {
      throw new ApiError('operator_required', 'X-Service-Operator must carry the id of the acting operator (op_…).', 'X-Service-Operator');
    }
    const operator = await findOperator(ctx.db, tenant, header);
    if (!operator || operator.status === 'invited') {
      throw new ApiError('operator_unknown', undefined, 'X-Service-Operator');
    }
    if (operator.status === 'revoked') throw new ApiError('operator_revoked', undefined, 'X-Service-Operator');
    if (!roleCan(operator.role, config.operator.ability)) {
      throw new ApiError('operator_role_insufficient', `The role ${operator.role} does not allow this action.`);
    }
    if (config.operator.reauth) {
      if (!ctx.reauth) throw new ApiError('reauth_required', 'Re-authentication is not configured on this service (OIDC_ISSUER, OIDC_JWKS_URL, OIDC_AUDIENCE).');
      const proof = req.headers[REAUTH_HEADER];
      await ctx.reauth.verify(typeof proof === 'string' ? proof : undefined, operator.subject);
    }
    req.operator = operator;
  });
}
