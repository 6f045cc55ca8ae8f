import { Type } from '@sinclair/typebox';
import { erasePersonalData, findCaseForUpdate, recordUsageWithQuota } from '@idv/db';
import { ERASURE_KEEPS, isClosed, usageSourceKey } from '@idv/domain';
import type { App, AppContext } from '../../context.ts';
import { ApiError } from '../../http/api-error.ts';
import { authOf } from '../../http/auth.ts';
import { runIdempotent } from '../../http/idempotent.ts';
import { SIGNED_ERRORS, SignedHeaders, errorResponses } from '../../schemas/common.ts';
import { INTEGRATION_ROUTE_ERRORS } from '../operators/errors.ts';
import { CaseParams } from '../cases/get.ts';
import { ErasureSchema } from './schemas.ts';

export function registerErasure(app: App, ctx: AppContext): void {
  app.post(
    '/v1/cases/:case_id/erasure',
    {
      config: { signed: true, permission: 'personal_data' },
      schema: {
        operationId: 'eraseCasePersonalData',
        tags: ['cases'],
        summary: "Erase a case's personal data",
        description:
          'Erase the personal data of a closed case (signed, idempotent, key permission personal_data): images, identity read, portraits and face ' +
          'templates, declared and entered data, questionnaire answers, fields read from the document and its fingerprints, review comments and ' +
          'corrections; the case keys are destroyed, so every copy, backups included, is unreadable. Kept: case, steps, verdicts, decisions, ' +
          'journal. The answer says what was erased by category; a replay erases nothing more and says 0. An open case: 409 case_open',
        headers: SignedHeaders,
        params: CaseParams,
        response: { 200: Type.Ref(ErasureSchema), ...errorResponses(...INTEGRATION_ROUTE_ERRORS, ...SIGNED_ERRORS, 'permission_denied', 'resource_not_found', 'case_open') },
      },
    },
    async (req, reply) => {
      let blobIds: string[] = [];
      // After the commit and before the answer, the image files go too (already unreadable without the keys).
      const deleteBlobs = async () => {
        for (const id of blobIds) {
          await ctx.blobs.delete(id).catch((err) => req.log.warn({ err, blob: id }, 'blob deletion after erasure failed'));
        }
      };
      await runIdempotent(ctx.idempotency, req, reply, async (tx) => {
        const { key, tenant } = authOf(req);
        const now = ctx.now();
        const row = await findCaseForUpdate(tx, tenant, req.params.case_id);
        if (!row) throw new ApiError('resource_not_found', 'No such case.', 'case_id');
        if (!isClosed(row.state)) {
          throw new ApiError('case_open', `The case is ${row.state} (status ${row.status}); its personal data can be erased once it is closed.`, 'case_id');
        }
        // Crypto-shredding with the values: whatever copy of a value sealed under the case keys
        // exists (a backup of the blob store, a replica, an export) can no longer be opened.
        const erased = await erasePersonalData(tx, tenant, row, `key:${key.id}`, now);
        blobIds = erased.blobIds;
        // Metering (docs/usage.md): the erasure the client asked for, once per case (a case
        // already erased, by an earlier request or by retention, is not erased again).
        if (erased.first) await recordUsageWithQuota(tx, { ...tenant, service: 'erasure', sourceKey: usageSourceKey.erasure(row.id), caseId: row.id, at: now });
        return {
          status: 200,
          body: {
            object: 'erasure' as const,
            case_id: row.id,
            erased: erased.counts,
            case_keys_destroyed: erased.caseKeysDestroyed,
            kept: [...ERASURE_KEEPS],
            erased_at: now.toISOString(),
          },
        };
      }, deleteBlobs);
    },
  );
}
