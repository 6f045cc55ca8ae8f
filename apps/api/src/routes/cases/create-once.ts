import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Static } from '@sinclair/typebox';
import { blockingQuota, createCaseOnce, findIdempotencyEntry, type CaseRow, type FlowRow, type Tenant } from '@idv/db';
import { acceptsCountry, isCountryCode, newId, statusOf } from '@idv/domain';
import type { AppContext } from '../../context.ts';
import { acceptKey, authOf } from '../../http/auth.ts';
import { answerStoredEntry, idempotencyKeyOf, inProgress, requestHashOf, sealJsonText } from '../../http/idempotent.ts';
import { presentCaseCreated } from '../../presenters/case.ts';
import type { NewCaseSchema } from '../../schemas/case.ts';
import { activeFlowOf } from './active-flows.ts';

const HOUR = 3_600_000;

/** A new case as this route writes it, awaiting its applicant. */
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
 * POST /v1/cases in ONE autocommit statement, so ONE commit per creation (createCaseOnce): the
 * key read, the idempotency check, and the entry with its stored response + case + journal entry
 * written together or not at all. Nothing is committed before the work: this route does NOT take
 * the generic path's reservation committed ahead (runIdempotent), a crash loses nothing committed
 * and leaves no half state, and concurrent duplicates are kept apart by the statement's advisory
 * lock (409 while one runs) and the entries' unique index.
 *
 * The response is computed and sealed before the statement, so the flow (its lifetime gives
 * expires_at) comes from this process's memory of active flows; the statement writes only if it
 * is still the active one, else the flow is read again and the statement retried once.
 *
 * Returns false, having answered nothing, for what this path does not cover: a refusal (invalid
 * country, unknown flow, country not accepted: stored and replayed by the generic path; a used-up
 * blocking quota: refused there after the replay check), declared data (its case key is written
 * in a transaction with the case), a flow changing twice.
 */
export async function createCaseInOneStatement(
  ctx: AppContext,
  req: FastifyRequest,
  reply: FastifyReply,
  body: Static<typeof NewCaseSchema>,
): Promise<boolean> {
  if (!isCountryCode(body.country)) return false;
  if (body.declared && Object.keys(body.declared).length > 0) return false;
  const s = ctx.idempotency;
  const { key, tenant } = authOf(req);
  // A used-up blocking quota (production only): the generic path replays a stored creation or refuses.
  if (await blockingQuota(s.db, tenant, 'verification', ctx.now())) return false;
  const idem = idempotencyKeyOf(req);
  for (const refresh of [false, true]) {
    const flow = await activeFlowOf(s.db, tenant, body.flow_name, refresh);
    if (!flow || !acceptsCountry(flow.definition, body.country)) return false;
    const now = ctx.now();
    const row = newCaseRow(flow, tenant, body.country, body.external_ref ?? null, now);
    // Serialised once: this text is sealed for replays and sent now (the route's own serializer
    // writes the same JSON: the presenter's fields are the schema's, in its order).
    const created = JSON.stringify(presentCaseCreated(row));
    const { apiKey, result } = await createCaseOnce(s.db, {
      secretHash: key.secretHash,
      apiKeyId: key.id,
      idempotencyKey: idem,
      requestHash: requestHashOf(req),
      now,
      retainUntil: new Date(now.getTime() + s.retainMs),
      response: { status: 201, body: sealJsonText(s, key.id, idem, created) },
      row,
      journal: { actor: `key:${key.id}`, action: 'case.created', detail: { flow_id: flow.id } },
    });
    // The key as the statement read it: an unknown or revoked key gets its 401 (nothing was written).
    acceptKey(req, key.secretHash, apiKey && apiKey.id === key.id ? { ...key, revokedAt: apiKey.revokedAt } : null);
    switch (result.outcome) {
      case 'created':
        await reply.code(201).type('application/json; charset=utf-8').send(created);
        return true;
      case 'existing':
        await answerStoredEntry(s, req, reply, key.id, result);
        return true;
      case 'locked':
        throw inProgress();
      case 'conflict': {
        // A twin committed between this statement's snapshot and its insert: its entry decides.
        const entry = await findIdempotencyEntry(s.db, key.id, idem);
        if (!entry) throw inProgress();
        await answerStoredEntry(s, req, reply, key.id, { ...entry, status: entry.responseStatus, body: entry.responseBody });
        return true;
      }
      case 'flow_changed':
        continue;
    }
  }
  return false;
}
