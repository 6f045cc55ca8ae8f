import { Type } from '@sinclair/typebox';
import { findActiveFlows, insertCasesWithResponses, type CaseCreation, type Tenant } from '@idv/db';
import type { App, AppContext } from '../../context.ts';
import { authOf } from '../../http/auth.ts';
import { batchedLookup, batchedWrite } from '../../http/batched-lookup.ts';
import { runIdempotentCreation } from '../../http/idempotent.ts';
import { createCase, type CreationStatements } from '../../services/cases.ts';
import { CaseCreatedSchema, NewCaseSchema } from '../../schemas/case.ts';
import { SIGNED_ERRORS, SignedHeaders, errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';

export function registerCreateCase(app: App, ctx: AppContext): void {
  // The flows of concurrent creations are read in one statement, and their cases written in one.
  const flowKey = (clientId: string, environment: string, name: string) => `${clientId}\u0000${environment}\u0000${name}`;
  const db = ctx.idempotency.db;
  const statements: CreationStatements = {
    activeFlow: batchedLookup(
      (wanted: readonly { tenant: Tenant; name: string }[]) => findActiveFlows(db, wanted),
      (w) => flowKey(w.tenant.clientId, w.tenant.environment, w.name),
      (row) => flowKey(row.clientId, row.environment, row.name),
    ),
    writeCase: batchedWrite((creations: readonly CaseCreation[]) => insertCasesWithResponses(db, creations)),
  };

  app.post(
    '/v1/cases',
    {
      config: { signed: true },
      schema: {
        operationId: 'createCase',
        tags: ['cases'],
        summary: 'Open a case',
        description: 'Open a case for a person to verify (signed, idempotent)',
        headers: SignedHeaders,
        body: NewCaseSchema,
        response: {
          201: Type.Ref(CaseCreatedSchema),
          ...errorResponses(...INTEGRATION_ROUTE_ERRORS, ...SIGNED_ERRORS, 'invalid_country', 'unknown_flow', 'country_not_accepted', 'quota_exceeded'),
        },
      },
    },
    async (req, reply) => {
      const { key, tenant } = authOf(req);
      // The case and the request's stored response commit together, in one statement.
      return runIdempotentCreation(ctx.idempotency, req, reply, (entryOf) => createCase(ctx, db, statements, entryOf, { tenant, keyId: key.id }, req.body));
    },
  );
}
