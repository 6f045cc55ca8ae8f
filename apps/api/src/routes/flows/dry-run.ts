import { Type } from '@sinclair/typebox';
import { findFlowVersion } from '@idv/db';
import { DRY_RUN_DEFAULT_CASES } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { BODY_ERRORS, errorResponses } from '../../schemas/common.ts';
import { checkDefinition, dryRun } from '../../services/flows.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { FlowDryRunBodySchema, FlowDryRunSchema, FlowNameParam, presentDryRun } from './schemas.ts';

/**
 * POST /v1/flows/{name}/dry-run: a draft decided on the stored check reports of the newest decided
 * cases of the flow. It changes nothing (neither signed nor idempotent: a read that needs a body).
 */
export function registerDryRunFlow(app: App, ctx: AppContext): void {
  app.post(
    '/v1/flows/:name/dry-run',
    {
      config: { operator: { ability: 'readFlows', alsoIntegration: true } },
      schema: {
        operationId: 'dryRunFlow',
        tags: ['flows'],
        summary: 'Dry-run a flow',
        description: 'How the outcomes of the newest decided cases would change under a draft (a definition, or a stored version): counts from → to and a few case ids; no image read, no personal data returned',
        params: Type.Object({ name: FlowNameParam }),
        body: FlowDryRunBodySchema,
        response: { 200: Type.Ref(FlowDryRunSchema), ...errorResponses(...BODY_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS, 'flow_definition_invalid', 'resource_not_found') },
      },
    },
    async (req) => {
      const { tenant } = authOf(req);
      const { name } = req.params;
      const { definition, version } = req.body;
      if ((definition === undefined) === (version === undefined)) {
        throw new ApiError('parameter_invalid', 'Send either definition (a draft) or version (a stored version), not both and not neither.', 'definition');
      }
      const cases = req.body.cases ?? DRY_RUN_DEFAULT_CASES;
      let draft;
      if (definition !== undefined) {
        checkDefinition(definition);
        draft = definition;
      } else {
        const row = await findFlowVersion(ctx.db, tenant, name, version!);
        if (!row) throw new ApiError('resource_not_found', `The flow ${name} has no version ${version}.`);
        draft = row.definition;
      }
      const result = await dryRun(ctx.db, tenant, name, draft, cases);
      return presentDryRun(name, version ?? null, cases, result);
    },
  );
}
