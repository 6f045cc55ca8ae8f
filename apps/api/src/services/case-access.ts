import { findCase, liveGrantFor, tasksOfCase, type CaseRow, type Executor, type OperatorRow, type SupportGrantRow, type Tenant } from '@idv/db';
import { coversCountry } from '@idv/domain';
import { ApiError } from '../http/api-error.ts';
import { taskWithinClearance } from './review.ts';

/**
 * A case read by its id through an operator route: within the operator's clearance (the case's
 * country, and the sensitivity of every review it had), or, for a support account (the
 * provider's staff), only while a support grant opens that case to it. Anything else is answered
 * as a missing case (404), so nothing is revealed beyond what the operator may read.
 */
export async function caseForOperator(db: Executor, tenant: Tenant, op: OperatorRow, caseId: string, now: Date): Promise<{ row: CaseRow; grant: SupportGrantRow | null }> {
  const row = await findCase(db, tenant, caseId);
  if (!row) throw notFound();
  if (op.role === 'support') {
    const grant = await liveGrantFor(db, tenant, op.id, row.id, now);
    if (!grant) throw notFound();
    return { row, grant };
  }
  const tasks = await tasksOfCase(db, tenant, row.id);
  if (!coversCountry(op, row.country) || !tasks.every((t) => taskWithinClearance(op, t))) throw notFound();
  return { row, grant: null };
}

const notFound = () => new ApiError('resource_not_found', 'No such case.', 'case_id');

/** What the journal records about who accessed, beside the actor: the role then, and the grant for support staff. */
export function accessDetail(op: OperatorRow, grant: SupportGrantRow | null): Record<string, unknown> {
  return grant ? { role: op.role, support_grant_id: grant.id } : { role: op.role };
}
