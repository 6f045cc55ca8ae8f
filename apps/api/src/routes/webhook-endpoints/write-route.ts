import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Tx } from '@idv/db';
import type { ErrorCode } from '@idv/domain';
import type { AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { actorOf } from '../../http/operator.ts';
import { SIGNED_ERRORS } from '../../schemas/common.ts';
import { IdParam } from '../../schemas/webhooks.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';

// What every write on an existing endpoint shares with its creation: signed (the console sends an
// Idempotency-Key instead), idempotent, and allowed to whoever may create an endpoint (an
// integration key, or an administrator through the console).

export const endpointWriteConfig = { signed: true, operator: { ability: 'manageIntegration', alsoIntegration: true } } as const;
export const EndpointParams = Type.Object({ endpoint_id: IdParam('A webhook endpoint id (whe_…)') });
export const ENDPOINT_WRITE_ERRORS: ErrorCode[] = [...ALSO_CONSOLE_ROUTE_ERRORS, ...SIGNED_ERRORS, 'resource_not_found'];

/** The acting tenant, actor and time of a write on endpoint `endpoint_id`. */
export function actOf(req: FastifyRequest, ctx: AppContext, tx: Tx) {
  return { tx, tenant: authOf(req).tenant, endpointId: (req.params as { endpoint_id: string }).endpoint_id, actor: actorOf(req), now: ctx.now() };
}
