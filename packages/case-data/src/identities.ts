import { findJourneyPersonalData, latestDocumentReading, type CaseRow, type DocumentReadingRow, type Executor } from '@idv/db';
import type { IdentityValues } from '@idv/domain';
import type { MasterKeyring } from '@idv/vault';
import type { CaseVault } from './case-vault.ts';
import { CaseOpener, LEGACY_AAD, PURPOSE } from './personal-data.ts';

/** Everything personal a case holds about the person, opened under its keys (null where absent or erased). */
export interface CaseIdentities {
  /** True once the personal data of the case was erased (its keys destroyed). */
  erased: boolean;
  /** What the client declared at creation. */
  declared: IdentityValues | null;
  /** What the person entered in the journey. */
  entered: IdentityValues | null;
  /** Questionnaire answers (question id → answer id). */
  answers: Record<string, string> | null;
  questionnaireScore: { points: number; flags: string[] } | null;
  /** The identity and document fields read from the document (latest round). */
  read: IdentityValues | null;
  reading: DocumentReadingRow | null;
}

/** Opens the personal data of a case, each key unwrapped once. Reads only: the caller journals first. */
export async function readIdentities(db: Executor, ctx: { vault: CaseVault; keyring: MasterKeyring }, row: CaseRow): Promise<CaseIdentities> {
  const open = new CaseOpener(ctx.vault, ctx.keyring, db, row.id);
  const journey = await findJourneyPersonalData(db, row.id);
  const reading = await latestDocumentReading(db, row.id);
  return {
    erased: await open.erased(),
    declared: await open.json<IdentityValues>('data', PURPOSE.declared, row.declaredSealed, LEGACY_AAD.declared(row.id)),
    entered: await open.json<IdentityValues>('data', PURPOSE.applicant, journey?.applicantSealed),
    answers: await open.json<Record<string, string>>('data', PURPOSE.answers, journey?.answersSealed),
    questionnaireScore: journey?.questionnaireScore ?? null,
    read: reading ? await open.json<IdentityValues>('data', PURPOSE.documentReading(reading.round), reading.fieldsSealed) : null,
    reading,
  };
}
