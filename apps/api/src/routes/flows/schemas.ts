import { Type } from '@sinclair/typebox';
import type { FlowRow } from '@idv/db';
import {
  DRY_RUN_DEFAULT_CASES,
  DRY_RUN_MAX_CASES,
  DRY_RUN_OUTCOMES,
  DRY_RUN_SAMPLE_IDS,
  FLOW_NAME_PATTERN,
  FlowDefinitionSchema,
  type DryRunResult,
} from '@idv/domain';
import { ListOf, Timestamp } from '../../schemas/common.ts';

/** The flow schema of packages/domain, named in the OpenAPI document; bodies are validated against it. */
export const FlowDefinitionRefSchema = Type.Object(FlowDefinitionSchema.properties, { additionalProperties: false, $id: 'FlowDefinition' });
const Definition = Type.Ref('FlowDefinition');

export const FlowNameParam = Type.String({ pattern: FLOW_NAME_PATTERN, maxLength: 64 });
export const FlowVersionParam = Type.Integer({ minimum: 1, maximum: 2_147_483_647 });
const FlowStatus = Type.Union([Type.Literal('draft'), Type.Literal('active'), Type.Literal('retired')]);

export const FlowVersionSchema = Type.Object(
  {
    object: Type.Literal('flow_version'),
    id: Type.String(),
    name: Type.String(),
    version: Type.Integer(),
    status: FlowStatus,
    definition: Definition,
    created_at: Timestamp,
    activated_at: Type.Union([Timestamp, Type.Null()], { description: 'Last activation; kept once retired' }),
  },
  { $id: 'FlowVersion' },
);

export const FlowSummarySchema = Type.Object(
  {
    object: Type.Literal('flow'),
    name: Type.String(),
    active_version: Type.Union([Type.Integer(), Type.Null()], { description: 'The version new cases use; null when none is active' }),
    latest_version: Type.Integer(),
    versions: Type.Integer({ description: 'How many versions the flow has' }),
    updated_at: Timestamp,
  },
  { $id: 'FlowSummary' },
);
export const FlowListSchema = ListOf(Type.Ref(FlowSummarySchema), 'FlowList');

export const FlowSchema = Type.Object(
  {
    object: Type.Literal('flow'),
    name: Type.String(),
    active_version: Type.Union([Type.Integer(), Type.Null()]),
    versions: Type.Array(Type.Ref(FlowVersionSchema), { description: 'Every version, newest first, definitions included' }),
  },
  { $id: 'Flow' },
);

const Outcome = Type.Union(DRY_RUN_OUTCOMES.map((o) => Type.Literal(o)));

export const FlowDryRunBodySchema = Type.Object(
  {
    definition: Type.Optional(Definition),
    version: Type.Optional(FlowVersionParam),
    cases: Type.Optional(
      Type.Integer({ minimum: 1, maximum: DRY_RUN_MAX_CASES, default: DRY_RUN_DEFAULT_CASES, description: 'How many of the newest decided cases of the flow to decide again' }),
    ),
  },
  { additionalProperties: false, description: 'The draft: either a definition or the number of a stored version' },
);

export const FlowDryRunSchema = Type.Object(
  {
    object: Type.Literal('flow_dry_run'),
    name: Type.String(),
    version: Type.Union([Type.Integer(), Type.Null()], { description: 'The stored version tried; null for a definition sent in the body' }),
    cases_requested: Type.Integer(),
    evaluated: Type.Integer({ description: 'Decided cases whose reports were decided again' }),
    skipped: Type.Integer({ description: 'Cases left out: outcome forced by a sandbox test value' }),
    changed: Type.Integer({ description: 'Cases whose outcome would change' }),
    matrix: Type.Array(
      Type.Object({
        from: Outcome,
        to: Outcome,
        count: Type.Integer(),
        case_ids: Type.Array(Type.String(), { maxItems: DRY_RUN_SAMPLE_IDS, description: 'A few of the cases that change, newest first; empty where from = to' }),
      }),
      { description: 'Non-empty cells of the from → to matrix, the unchanged diagonal included' },
    ),
  },
  { $id: 'FlowDryRun' },
);

export function presentFlowVersion(row: FlowRow) {
  return {
    object: 'flow_version' as const,
    id: row.id,
    name: row.name,
    version: row.version,
    status: row.status,
    definition: row.definition,
    created_at: row.createdAt.toISOString(),
    activated_at: row.activatedAt ? row.activatedAt.toISOString() : null,
  };
}

export function presentDryRun(name: string, version: number | null, requested: number, r: DryRunResult) {
  return {
    object: 'flow_dry_run' as const,
    name,
    version,
    cases_requested: requested,
    evaluated: r.evaluated,
    skipped: r.skipped,
    changed: r.changed,
    matrix: r.cells.map((c) => ({ from: c.from, to: c.to, count: c.count, case_ids: c.caseIds })),
  };
}
