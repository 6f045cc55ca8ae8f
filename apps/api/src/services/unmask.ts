import type { FastifyRequest } from 'fastify';
import {
  appendJournal,
  correctionsOfCase,
  findTask,
  lockOperatorRow,
  recentUnmasks,
  recordUnmask,
  type CaseRow,
  type Executor,
  type SupportGrantRow,
  type Tenant,
} from '@idv/db';
import { UNMASK_FREE_CASES, UNMASK_WINDOW_MS, identityGap, isFieldPath, pathWithin, unmaskNeedsReauth, type FieldGap, type IdentityValues } from '@idv/domain';
import type { AppContext } from '../context.ts';
import { ApiError } from '../http/api-error.ts';
import { REAUTH_HEADER, operatorOf } from '../http/operator.ts';
import { accessDetail } from './case-access.ts';
import { CaseOpener, LEGACY_AAD, PURPOSE, readIdentities, type CaseIdentities } from '@idv/case-data';

export type UnmaskScope = 'review' | 'identity' | 'questionnaire' | 'applicant_data';

export interface UnmaskTarget {
  row: CaseRow;
  taskId: string | null;
  grant: SupportGrantRow | null;
}

/** Values under a path prefix: `{surname: 'X'}` under `declared` → `{'declared.surname': 'X'}`. */
function flatten(out: Record<string, string>, prefix: string, values: IdentityValues | Record<string, string> | null | undefined): void {
  if (!values) return;
  for (const [k, v] of Object.entries(values)) {
    if (typeof v === 'string' && v.trim() !== '') out[`${prefix}.${k}`] = v;
  }
}

/** The latest value entered by operators per corrected field (`corrected.subject.surname`). */
async function correctedValues(db: Executor, ctx: Pick<AppContext, 'vault' | 'keyring'>, tenant: Tenant, caseId: string): Promise<Record<string, string>> {
  const open = new CaseOpener(ctx.vault, ctx.keyring, db, caseId);
  const out: Record<string, string> = {};
  for (const c of await correctionsOfCase(db, tenant, caseId)) {
    const sealed = await open.json<{ value: string }>('data', PURPOSE.correction(c.id), c.sealed, LEGACY_AAD.correction(c.id));
    if (sealed) out[`corrected.${c.field}`] = sealed.value;
  }
  return out;
}

function reveal(scope: UnmaskScope, id: CaseIdentities, corrected: Record<string, string>): { values: Record<string, string>; gap: FieldGap[] } {
  const values: Record<string, string> = {};
  const declaredVsRead = () => identityGap({ name: 'declared', values: id.declared }, { name: 'document', values: id.read });
  switch (scope) {
    case 'review':
      flatten(values, 'declared', id.declared);
      flatten(values, 'entered', id.entered);
      flatten(values, 'document', id.read);
      Object.assign(values, corrected);
      flatten(values, 'answers', id.answers);
      return { values, gap: declaredVsRead() };
    case 'identity':
      flatten(values, 'document', id.read);
      return { values, gap: declaredVsRead() };
    case 'questionnaire':
      flatten(values, 'answers', id.answers);
      return { values, gap: [] };
    case 'applicant_data':
      flatten(values, 'entered', id.entered);
      flatten(values, 'declared', id.declared);
      return { values, gap: identityGap({ name: 'entered', values: id.entered }, { name: 'declared', values: id.declared }) };
  }
}

/**
 * An unmask by an operator, on any of the four unmask routes. One counter per operator over all
 * of them: unmasking a case beyond twenty distinct cases in the past hour needs a recent
 * re-authentication (the proof is verified only when it is needed, before the transaction, as
 * the provider may have to be asked for its keys). Then, in ONE transaction: the target is
 * resolved within the operator's clearance (or support grant), the operator row is locked (one
 * operator's unmasks are counted one after the other), the counter is checked, the unmask is
 * journaled FIRST, and only then is anything opened: if the journal write fails, nothing is
 * read and nothing is returned.
 */
export async function unmask(
  ctx: AppContext,
  req: FastifyRequest,
  scope: UnmaskScope,
  caseIdHint: (db: Executor, tenant: Tenant) => Promise<string | null>,
  resolve: (tx: Executor) => Promise<UnmaskTarget>,
  fieldPath?: string,
) {
  const { operator, tenant, actor } = operatorOf(req);
  if (fieldPath !== undefined && !isFieldPath(fieldPath)) {
    throw new ApiError('parameter_invalid', 'field_path must be a source (declared, entered, document, corrected, answers) or one of its fields, such as document.surname.', 'field_path');
  }
  const now = ctx.now();
  const since = new Date(now.getTime() - UNMASK_WINDOW_MS);
  const proof = req.headers[REAUTH_HEADER];
  let reauthenticated = false;
  const hint = await caseIdHint(ctx.db, tenant);
  if (hint && typeof proof === 'string' && proof !== '') {
    const seen = await recentUnmasks(ctx.db, operator.id, hint, since);
    if (unmaskNeedsReauth(seen.others, seen.thisCase)) {
      if (!ctx.reauth) throw new ApiError('reauth_required', 'Re-authentication is not configured on this service (OIDC_ISSUER, OIDC_JWKS_URL, OIDC_AUDIENCE).');
      await ctx.reauth.verify(proof, operator.subject);
      reauthenticated = true;
    }
  }
  return ctx.db.transaction(async (tx) => {
    const target = await resolve(tx);
    await lockOperatorRow(tx, tenant, operator.id);
    const recent = await recentUnmasks(tx, operator.id, target.row.id, since);
    if (unmaskNeedsReauth(recent.others, recent.thisCase) && !reauthenticated) {
      throw new ApiError(
        'reauth_required',
        `This operator unmasked ${recent.others} other cases in the past hour: beyond ${UNMASK_FREE_CASES}, each further case needs a re-authentication (X-Service-Reauthenticated-At).`,
      );
    }
    // Journal first: the read below happens only once the entry is written in this transaction.
    await appendJournal(tx, tenant, {
      caseId: target.row.id,
      actor,
      action: 'personal_data.unmasked',
      detail: {
        via: scope,
        ...(target.taskId ? { task_id: target.taskId } : {}),
        ...(fieldPath ? { field_path: fieldPath } : {}),
        ...accessDetail(operator, target.grant),
        ...(reauthenticated ? { reauthenticated: true } : {}),
      },
      at: now,
    });
    await recordUnmask(tx, tenant, operator.id, target.row.id, now);
    const identities = await readIdentities(tx, ctx, target.row);
    const corrected = scope === 'review' && !identities.erased ? await correctedValues(tx, ctx, tenant, target.row.id) : {};
    const revealed = reveal(scope, identities, corrected);
    const values = fieldPath ? Object.fromEntries(Object.entries(revealed.values).filter(([p]) => pathWithin(p, fieldPath))) : revealed.values;
    return {
      object: 'unmasked' as const,
      case_id: target.row.id,
      task_id: target.taskId,
      scope,
      field_path: fieldPath ?? null,
      erased: identities.erased,
      values,
      gap: revealed.gap,
      questionnaire: scope === 'questionnaire' || scope === 'review' ? identities.questionnaireScore : null,
    };
  });
}

/** The case id behind a task, for the pre-check outside the transaction (null when there is no such task). */
export function caseOfTask(taskId: string) {
  return async (db: Executor, tenant: Tenant) => (await findTask(db, tenant, taskId))?.caseId ?? null;
}
