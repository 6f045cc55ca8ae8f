import type { Static } from '@sinclair/typebox';
import { blockingQuota, insertCasesWithResponses, type CaseCreation, type CaseRow, type Db, type FlowRow, type Tenant } from '@idv/db';
import { acceptsCountry, isCountryCode, newId, statusOf } from '@idv/domain';
import { PURPOSE } from '@idv/case-data';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/api-error.ts';
import type { EntryOf, Outcome } from '../http/idempotent.ts';
import { quotaExceeded } from '../http/quota.ts';
import { presentCaseCreated } from '../presenters/case.ts';
import type { NewCaseSchema } from '../schemas/case.ts';

const HOUR = 3_600_000;

/**
 * The statements of a creation, batched with those of concurrent creations (routes/cases/create.ts):
 * the activated flow of a name, and the write of a case with its journal entry and stored response.
 */
export interface CreationStatements {
  activeFlow: { load(wanted: { tenant: Tenant; name: string }): Promise<FlowRow | null> };
  writeCase: { load(creation: CaseCreation): Promise<boolean> };
}

/** A new case awaiting its applicant. */
export function newCaseRow(
  flow: FlowRow,
  tenant: Tenant,
  country: string,
  externalRef: string | null,
  now: Date,
  id = newId('case', now.getTime()),
  declaredSealed: string | null = null,
): CaseRow {
  return {
    id,
    ...tenant,
    flowId: flow.id,
    flowName: flow.name,
    flowVersion: flow.version,
    country,
    externalRef,
    declaredSealed,
    state: 'awaiting_applicant',
    status: statusOf('awaiting_applicant', false),
    journeyStarted: 0,
    checks: [],
    duplicates: [],
    decision: null,
    resubmission: null,
    createdAt: now,
    updatedAt: now,
    expiresAt: new Date(now.getTime() + flow.definition.case_lifetime_hours * HOUR),
  };
}

/**
 * Opens a case under the key's tenant: refuses an invalid country, a name with no active flow, a
 * country the flow does not accept and a used-up blocking quota; writes the case, its journal
 * entry and the request's idempotency entry `entryOf(outcome)` in one statement, shared with
 * concurrent creations (in one transaction with the case's data key when declared data needs one). `written` is false, and
 * nothing written, when a live entry of the Idempotency-Key decides instead.
 */
export async function createCase(
  ctx: Pick<AppContext, 'vault' | 'now'>,
  db: Db,
  statements: CreationStatements,
  entryOf: EntryOf,
  by: { tenant: Tenant; keyId: string },
  body: Static<typeof NewCaseSchema>,
): Promise<{ outcome: Outcome; written: boolean }> {
  if (!isCountryCode(body.country)) {
    throw new ApiError('invalid_country', `${body.country} is not an assigned ISO 3166-1 alpha-2 code.`, 'country');
  }
  const flow = await statements.activeFlow.load({ tenant: by.tenant, name: body.flow_name });
  if (!flow) throw new ApiError('unknown_flow', `No activated flow is named ${body.flow_name}.`, 'flow_name');
  if (!acceptsCountry(flow.definition, body.country)) {
    throw new ApiError('country_not_accepted', `The flow ${flow.name} accepts no document from ${body.country}.`, 'country');
  }
  const now = ctx.now();
  const blocked = await blockingQuota(db, by.tenant, 'verification', now);
  if (blocked) throw quotaExceeded('verification', blocked.terms, blocked.used, now);
  const id = newId('case', now.getTime());
  const declared = body.declared && Object.keys(body.declared).length > 0 ? body.declared : null;
  // Declared data is personal: sealed under a data key of the new case, stored with the case.
  const declaredKey = declared ? await ctx.vault.newKey(id, 'data', now) : null;
  const declaredSealed = declared && declaredKey ? declaredKey.key.sealJson(declared, PURPOSE.declared) : null;
  const row = newCaseRow(flow, by.tenant, body.country, body.external_ref ?? null, now, id, declaredSealed);
  const outcome = { status: 201, body: presentCaseCreated(row) };
  const creation: CaseCreation = {
    row,
    journal: { actor: `key:${by.keyId}`, action: 'case.created', detail: { flow_id: flow.id } },
    entry: entryOf(outcome),
  };
  if (!declaredKey) return { outcome, written: await statements.writeCase.load(creation) };
  // The case key refers to the case row: both in one transaction, outside the batches.
  const written = await db.transaction(async (tx) => {
    const [done] = await insertCasesWithResponses(tx, [creation]);
    if (!done) return false;
    await declaredKey.store(tx);
    return true;
  });
  return { outcome, written };
}
