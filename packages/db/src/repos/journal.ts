import { newId, type CaseJournalAction } from '@idv/domain';
import type { Executor } from '../connect.ts';
import { caseJournal } from '../schema.ts';
import type { Tenant } from './tenant.ts';

/**
 * Actors are written `key:<key_id>`, `op:<operator_id>`, `person` (the journey) or `system`.
 * Callers pass their transaction so the entry commits or rolls back with the act itself.
 */
export async function appendJournal(
  tx: Executor,
  tenant: Tenant,
  entry: { caseId: string; actor: string; action: CaseJournalAction; detail?: Record<string, unknown>; at: Date },
) {
  await tx.insert(caseJournal).values({
    id: newId('jrn', entry.at.getTime()),
    ...tenant,
    caseId: entry.caseId,
    actor: entry.actor,
    action: entry.action,
    detail: entry.detail ?? {},
    at: entry.at,
  });
}
