import { Type } from '@sinclair/typebox';
import {
  appendJournal,
  findCaseForUpdate,
  findOperator,
  findSupportGrant,
  insertSupportGrant,
  listSupportGrants,
  liveGrantsOf,
  revokeSupportGrant,
  type Executor,
  type OperatorRow,
  type SupportGrantRow,
  type Tenant,
} from '@idv/db';
import { SUPPORT_GRANT_MS, newId, supportGrantStatus } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { operatorOf } from '../../http/operator.ts';
import { BODY_ERRORS, VALIDATION_ERRORS, errorResponses, page } from '../../schemas/common.ts';
import { caseForOperator } from '../../services/case-access.ts';
import { CaseOpener, PURPOSE } from '@idv/case-data';
import { OPERATOR_ROUTE_ERRORS, REAUTH_ROUTE_ERRORS } from '../operators/errors.ts';
import { GrantParams, SupportAccessRequestSchema, SupportGrantListQuery, SupportGrantListSchema, SupportGrantSchema, presentGrant } from './schemas.ts';

/**
 * Grants with their reasons opened (each under its case's key; null once the case was erased).
 * With `reader`, a reason is shown only for a case within the reader's clearance: it is free text
 * about a case they may not otherwise read.
 */
async function presentAll(ctx: AppContext, db: Executor, grants: SupportGrantRow[], now: Date, reader?: { op: OperatorRow; tenant: Tenant }) {
  const openers = new Map<string, CaseOpener>();
  const out = [];
  for (const g of grants) {
    if (reader && !(await caseForOperator(db, reader.tenant, reader.op, g.caseId, now).then(() => true, () => false))) {
      out.push(presentGrant(g, null, now));
      continue;
    }
    let open = openers.get(g.caseId);
    if (!open) {
      open = new CaseOpener(ctx.vault, ctx.keyring, db, g.caseId);
      openers.set(g.caseId, open);
    }
    out.push(presentGrant(g, await open.json<string>('data', PURPOSE.grantReason(g.id), g.reasonSealed), now));
  }
  return out;
}

export function registerSupportAccessRoutes(app: App, ctx: AppContext): void {
  app.post(
    '/v1/support-access',
    {
      config: { operator: { ability: 'grantSupport', reauth: true } },
      schema: {
        operationId: 'openSupportAccess',
        tags: ['support-access'],
        summary: 'Open support access',
        description:
          'Open a case in review to a support account of the provider for four hours, with a reason (administrator or supervisor, Op + Re). ' +
          'The support account reads that case only, and every read shows in the case’s access log',
        body: Type.Ref(SupportAccessRequestSchema),
        response: {
          201: Type.Ref(SupportGrantSchema),
          ...errorResponses(...BODY_ERRORS, ...REAUTH_ROUTE_ERRORS, 'resource_not_found', 'case_not_in_review', 'support_account_invalid'),
        },
      },
    },
    async (req, reply) => {
      const { operator, tenant, actor } = operatorOf(req);
      const body = req.body as { case_id: string; operator_id: string; reason: string };
      const now = ctx.now();
      const reason = body.reason.trim();
      if (!reason) throw new ApiError('parameter_invalid', 'The reason must say why the case is opened.', 'reason');
      const grant = await ctx.db.transaction(async (tx) => {
        // The case within the granting operator's own clearance, locked while it is checked to be in review.
        const { row } = await caseForOperator(tx, tenant, operator, body.case_id, now);
        const locked = (await findCaseForUpdate(tx, tenant, row.id))!;
        if (locked.state !== 'in_review') {
          throw new ApiError('case_not_in_review', `The case is ${locked.state} (status ${locked.status}); only a case in review can be opened to support.`, 'case_id');
        }
        const support = await findOperator(tx, tenant, body.operator_id);
        if (!support || support.role !== 'support' || support.status !== 'active') {
          throw new ApiError('support_account_invalid', undefined, 'operator_id');
        }
        const id = newId('grt', now.getTime());
        const inserted = await insertSupportGrant(tx, {
          id,
          ...tenant,
          caseId: row.id,
          operatorId: support.id,
          reasonSealed: await ctx.vault.sealJson(tx, row.id, 'data', PURPOSE.grantReason(id), reason, now),
          grantedBy: actor,
          createdAt: now,
          expiresAt: new Date(now.getTime() + SUPPORT_GRANT_MS),
        });
        await appendJournal(tx, tenant, {
          caseId: row.id,
          actor,
          action: 'support_access.granted',
          detail: { support_grant_id: id, operator_id: support.id, expires_at: inserted.expiresAt.toISOString() },
          at: now,
        });
        return inserted;
      });
      return reply.code(201).send(presentGrant(grant, reason, now));
    },
  );

  app.get(
    '/v1/support-access',
    {
      config: { operator: { ability: 'grantSupport' } },
      schema: {
        operationId: 'listSupportAccess',
        tags: ['support-access'],
        summary: 'List support grants',
        description: 'The client’s support grants, newest first, with their status at read time (administrator or supervisor, Op)',
        querystring: SupportGrantListQuery,
        response: { 200: Type.Ref(SupportGrantListSchema), ...errorResponses(...VALIDATION_ERRORS, ...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const now = ctx.now();
      const limit = req.query.limit ?? 20;
      const rows = await listSupportGrants(ctx.db, tenant, limit, req.query.cursor);
      const shown = await presentAll(ctx, ctx.db, rows.slice(0, limit), now, { op: operator, tenant });
      const byId = new Map(shown.map((g) => [g.id, g]));
      return page(rows, limit, (r) => byId.get(r.id)!);
    },
  );

  app.post(
    '/v1/support-access/:grant_id/revoke',
    {
      config: { operator: { ability: 'grantSupport' } },
      schema: {
        operationId: 'revokeSupportAccess',
        tags: ['support-access'],
        summary: 'Close a support grant',
        description: 'Close a support grant before its term (administrator or supervisor, Op; no re-authentication needed). A grant already closed: 409 support_grant_closed',
        params: GrantParams,
        response: { 200: Type.Ref(SupportGrantSchema), ...errorResponses(...OPERATOR_ROUTE_ERRORS, 'resource_not_found', 'support_grant_closed') },
      },
    },
    async (req) => {
      const { operator, tenant, actor } = operatorOf(req);
      const now = ctx.now();
      return ctx.db.transaction(async (tx) => {
        const grant = await findSupportGrant(tx, tenant, req.params.grant_id, true);
        if (!grant) throw new ApiError('resource_not_found', 'No such support grant.', 'grant_id');
        const status = supportGrantStatus(grant, now);
        if (status !== 'active') {
          throw new ApiError('support_grant_closed', `The grant is already ${status} (${(grant.revokedAt ?? grant.expiresAt).toISOString()}).`);
        }
        const revoked = await revokeSupportGrant(tx, tenant, grant.id, actor, now);
        await appendJournal(tx, tenant, { caseId: grant.caseId, actor, action: 'support_access.revoked', detail: { support_grant_id: grant.id }, at: now });
        return (await presentAll(ctx, tx, [revoked], now, { op: operator, tenant }))[0];
      });
    },
  );

  app.get(
    '/v1/reviews/support-access',
    {
      config: { operator: { ability: 'supportDesk' } },
      schema: {
        operationId: 'listMySupportAccess',
        tags: ['reviews'],
        summary: 'List my support grants',
        description: 'The grants in force of the acting support account (Op, role support): the only cases it may read, and until when',
        response: { 200: Type.Ref(SupportGrantListSchema), ...errorResponses(...OPERATOR_ROUTE_ERRORS) },
      },
    },
    async (req) => {
      const { operator, tenant } = operatorOf(req);
      const now = ctx.now();
      const rows = await liveGrantsOf(ctx.db, tenant, operator.id, now);
      return { object: 'list' as const, data: await presentAll(ctx, ctx.db, rows, now), has_more: false, next_cursor: null };
    },
  );
}
