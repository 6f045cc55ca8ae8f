import { Type } from '@sinclair/typebox';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { actorOf } from '../../http/operator.ts';
import { SIGNED_ERRORS, SignedOrConsoleHeaders, errorResponses } from '../../schemas/common.ts';
import { activateVersion, createVersion } from '../../services/flows.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { FlowNameParam, FlowVersionParam, presentFlowVersion } from './schemas.ts';

/**
 * Creating a version and activating one: signed like the spec's creations (an integration key), or
 * by the console for an administrator (manageFlows); idempotent; journaled in the client journal.
 */
export function registerWriteFlows(app: App, ctx: AppContext): void {
  app.post(
    '/v1/flows/:name/versions',
    {
      config: { signed: true, operator: { ability: 'manageFlows', alsoIntegration: true } },
      schema: {
        operationId: 'createFlowVersion',
        tags: ['flows'],
        summary: 'Create a flow version',
        description: 'Create the next version of a flow (a draft; the first version creates the flow), validated by the flow schema (signed, idempotent, journaled)',
        headers: SignedOrConsoleHeaders,
        params: Type.Object({ name: FlowNameParam }),
        body: Type.Object({ definition: Type.Ref('FlowDefinition') }, { additionalProperties: false }),
        response: { 201: Type.Ref('FlowVersion'), ...errorResponses(...SIGNED_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS, 'flow_definition_invalid') },
      },
    },
    (req, reply) =>
      runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const row = await createVersion(tx, authOf(req).tenant, { name: req.params.name, definition: req.body.definition, actor: actorOf(req), now: ctx.now() });
        return { status: 201, body: presentFlowVersion(row) };
      }),
  );

  app.post(
    '/v1/flows/:name/versions/:version/activate',
    {
      config: { signed: true, operator: { ability: 'manageFlows', alsoIntegration: true } },
      schema: {
        operationId: 'activateFlowVersion',
        tags: ['flows'],
        summary: 'Activate a flow version',
        description: 'Make a version the one new cases use, retiring the active one; running cases keep their version (signed, idempotent, journaled)',
        headers: SignedOrConsoleHeaders,
        params: Type.Object({ name: FlowNameParam, version: FlowVersionParam }),
        response: { 200: Type.Ref('FlowVersion'), ...errorResponses(...SIGNED_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    (req, reply) =>
      runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { name, version } = req.params;
        const row = await activateVersion(tx, authOf(req).tenant, { name, version, actor: actorOf(req), now: ctx.now() });
        return { status: 200, body: presentFlowVersion(row) };
      }),
  );
}
