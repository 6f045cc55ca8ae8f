import { Type } from '@sinclair/typebox';
import { blockingQuota, insertCaseWithJournal } from '@idv/db';
import { acceptsCountry, isCountryCode, newId } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotentStatement } from '../../http/idempotent.ts';
import { quotaExceeded } from '../../http/quota.ts';
import { presentCaseCreated } from '../../presenters/case.ts';
import { createCaseInOneStatement, newCaseRow } from './create-once.ts';
import { PURPOSE } from '@idv/case-data';
import { CaseCreatedSchema, NewCaseSchema } from '../../schemas/case.ts';
import { SIGNED_ERRORS, SignedHeaders, errorResponses } from '../../schemas/common.ts';

export function registerCreateCase(app: App, ctx: AppContext): void {
  app.post(
    '/v1/cases',
    {
      // The key is read by the reservation's statement when this instance has read it before (see auth.ts).
      config: { signed: true, keyReadWithReservation: true },
      schema: {
        operationId: 'createCase',
        tags: ['cases'],
        summary: 'Open a case for a person to verify (signed, idempotent)',
        headers: SignedHeaders,
        body: NewCaseSchema,
        response: {
          201: Type.Ref(CaseCreatedSchema),
          ...errorResponses(...SIGNED_ERRORS, 'invalid_country', 'unknown_flow', 'country_not_accepted', 'quota_exceeded'),
        },
      },
    },
    async (req, reply) => {
      // The common creation: ONE statement, ONE commit, nothing committed before the work (create-once.ts).
      if (await createCaseInOneStatement(ctx, req, reply, req.body)) return;
      // Refusals (stored and replayed) and declared data: the generic path. The flow is read by the
      // reservation's statement; then case + journal entry + stored response in one statement (see
      // runIdempotentStatement), in one transaction with the case key when declared data needs one.
      return runIdempotentStatement(ctx.idempotency, req, reply, async (db, store, flow) => {
        const { key, tenant } = authOf(req);
        const body = req.body;
        if (!isCountryCode(body.country)) {
          throw new ApiError('invalid_country', `${body.country} is not an assigned ISO 3166-1 alpha-2 code.`, 'country');
        }
        if (!flow) throw new ApiError('unknown_flow', `No activated flow is named ${body.flow_name}.`, 'flow_name');
        if (!acceptsCountry(flow.definition, body.country)) {
          throw new ApiError('country_not_accepted', `The flow ${flow.name} accepts no document from ${body.country}.`, 'country');
        }
        const now = ctx.now();
        const blocked = await blockingQuota(db, tenant, 'verification', now);
        if (blocked) throw quotaExceeded('verification', blocked.terms, blocked.used, now);
        const id = newId('case', now.getTime());
        const declared = body.declared && Object.keys(body.declared).length > 0 ? body.declared : null;
        // Declared data is personal: sealed under a data key of the new case, stored with the case.
        const declaredKey = declared ? await ctx.vault.newKey(id, 'data', now) : null;
        const declaredSealed = declared && declaredKey ? declaredKey.key.sealJson(declared, PURPOSE.declared) : null;
        const row = newCaseRow(flow, tenant, body.country, body.external_ref ?? null, now, id, declaredSealed);
        const outcome = { status: 201, body: presentCaseCreated(row) };
        const journal = { actor: `key:${key.id}`, action: 'case.created', detail: { flow_id: flow.id } };
        if (declaredKey) {
          // The case key refers to the case row: both (and the journal entry and stored response) in one transaction.
          await db.transaction(async (tx) => {
            await insertCaseWithJournal(tx, row, journal, store(outcome));
            await declaredKey.store(tx);
          });
        } else {
          await insertCaseWithJournal(db, row, journal, store(outcome));
        }
        return outcome;
      }, req.body.flow_name);
    },
  );
}
