import { Type } from '@sinclair/typebox';
import { listFlowSummaries, listFlowVersions } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { VALIDATION_ERRORS, errorResponses } from '../../schemas/common.ts';
import { ALSO_CONSOLE_ROUTE_ERRORS } from '../operators/errors.ts';
import { FlowListSchema, FlowNameParam, FlowSchema, presentFlowVersion } from './schemas.ts';

/** GET /v1/flows and GET /v1/flows/{name}: integration keys, and operators who may read flows. */
export function registerReadFlows(app: App, ctx: AppContext): void {
  app.get(
    '/v1/flows',
    {
      config: { operator: { ability: 'readFlows', alsoIntegration: true } },
      schema: {
        operationId: 'listFlows',
        tags: ['flows'],
        summary: 'List flows',
        description: 'The flows of this client and environment, by name, with their active and latest version (one page: flows are few)',
        response: { 200: Type.Ref(FlowListSchema), ...errorResponses(...ALSO_CONSOLE_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const rows = await listFlowSummaries(ctx.db, authOf(req).tenant);
      return {
        object: 'list' as const,
        data: rows.map((r) => ({
          object: 'flow' as const,
          name: r.name,
          active_version: r.activeVersion,
          latest_version: r.latestVersion,
          versions: r.versions,
          updated_at: r.updatedAt.toISOString(),
        })),
        has_more: false,
        next_cursor: null,
      };
    },
  );

  app.get(
    '/v1/flows/:name',
    {
      config: { operator: { ability: 'readFlows', alsoIntegration: true } },
      schema: {
        operationId: 'getFlow',
        tags: ['flows'],
        summary: 'Get a flow',
        description: 'A flow and every version of it, newest first, definitions included',
        params: Type.Object({ name: FlowNameParam }),
        response: { 200: Type.Ref(FlowSchema), ...errorResponses(...VALIDATION_ERRORS, ...ALSO_CONSOLE_ROUTE_ERRORS, 'resource_not_found') },
      },
    },
    async (req) => {
      const versions = await listFlowVersions(ctx.db, authOf(req).tenant, req.params.name);
      if (versions.length === 0) throw new ApiError('resource_not_found', `No flow is named ${req.params.name}.`);
      return {
        object: 'flow' as const,
        name: req.params.name,
        active_version: versions.find((v) => v.status === 'active')?.version ?? null,
        versions: versions.map(presentFlowVersion),
      };
    },
  );
}
