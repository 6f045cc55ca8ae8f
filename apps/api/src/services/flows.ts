import {
  activateFlowVersion,
  appendClientJournal,
  createFlowVersion,
  findActiveFlow,
  findFlowsByIds,
  findFlowVersion,
  listDecidedCaseReports,
  type Executor,
  type FlowRow,
  type Tenant,
} from '@idv/db';
import { ApiError, dryRunFlow, flowDefinitionProblems, type DryRunResult, type FlowDefinition } from '@idv/domain';

/**
 * Flow versions, created and activated: the one place that validates a definition and journals the
 * change, called by the API routes (actor `key:…` or `op:…`) and by the admin command line
 * (actor `admin`). Run inside a transaction.
 */

/** The API field of a definition problem: `/checks/face_match_max_distance` → `definition.checks.face_match_max_distance`. */
function definitionField(pointer: string): string {
  return ['definition', ...pointer.split('/').filter(Boolean)].join('.');
}

/** Refuses a definition that breaks the flow schema or its rules, naming the first offending field. */
export function checkDefinition(definition: unknown): asserts definition is FlowDefinition {
  const problems = flowDefinitionProblems(definition);
  if (problems.length === 0) return;
  const [first] = problems;
  const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : '';
  throw new ApiError('flow_definition_invalid', `${definitionField(first.path)}: ${first.message}${more}.`, definitionField(first.path));
}

export async function createVersion(
  tx: Executor,
  tenant: Tenant,
  input: { name: string; definition: unknown; activate?: boolean; actor: string; now: Date },
): Promise<FlowRow> {
  checkDefinition(input.definition);
  const row = await createFlowVersion(tx, tenant, input.name, input.definition, input.now, false);
  await appendClientJournal(tx, tenant, { actor: input.actor, action: 'flow.version_created', detail: { name: row.name, version: row.version }, at: input.now });
  return input.activate ? activateVersion(tx, tenant, { name: row.name, version: row.version, actor: input.actor, now: input.now }) : row;
}

/**
 * Makes a version the one new cases use; the version active until then is retired (it may be
 * activated again later: a rollback). Cases keep the version they were opened with (cases.flow_id).
 * Activating the version already active changes nothing and journals nothing.
 */
export async function activateVersion(tx: Executor, tenant: Tenant, input: { name: string; version: number; actor: string; now: Date }): Promise<FlowRow> {
  const target = await findFlowVersion(tx, tenant, input.name, input.version);
  if (!target) throw new ApiError('resource_not_found', `The flow ${input.name} has no version ${input.version}.`);
  if (target.status === 'active') return target;
  const previous = (await findActiveFlow(tx, tenant, input.name))?.version ?? null;
  const row = await activateFlowVersion(tx, tenant, input.name, input.version, input.now);
  await appendClientJournal(tx, tenant, {
    actor: input.actor,
    action: 'flow.version_activated',
    detail: { name: row.name, version: row.version, previous_version: previous },
    at: input.now,
  });
  return row;
}

/** The draft (a definition, or a stored version) applied to the newest `cases` decided cases of the flow name. */
export async function dryRun(db: Executor, tenant: Tenant, name: string, draft: FlowDefinition, cases: number): Promise<DryRunResult> {
  const decided = await listDecidedCaseReports(db, tenant, name, cases);
  const ids = [...new Set(decided.map((c) => c.flowId))];
  const versions = new Map((await findFlowsByIds(db, tenant, ids)).map((f) => [f.id, f.definition]));
  return dryRunFlow(
    draft,
    decided.map((c) => ({ id: c.id, flowId: c.flowId, reports: c.reports, resubmissions: c.round - 1 })),
    versions,
  );
}
