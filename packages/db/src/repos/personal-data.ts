import { and, desc, eq, gt, inArray, isNotNull, isNull, lt, ne, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../connect.ts';
import {
  caseJournal,
  caseRevisions,
  cases,
  documentReadings,
  journeys,
  operatorUnmasks,
  operators,
  pieces,
  reviewCorrections,
  reviewDecisions,
  supportGrants,
  walletRequests,
} from '../schema.ts';
import { caseEventObject } from './case-outcomes.ts';
import { caseKeysDestroyed, destroyCaseKeys } from './case-keys.ts';
import type { CaseRow } from './cases.ts';
import { appendJournal } from './journal.ts';
import { tenantFilter, type Tenant } from './tenant.ts';
import { emitEvent } from './webhook-outbox.ts';
import { deleteCaseFaces } from './face-index.ts';

export type DocumentReadingRow = typeof documentReadings.$inferSelect;
export type SupportGrantRow = typeof supportGrants.$inferSelect;
export type JournalRow = typeof caseJournal.$inferSelect;

// ---------------------------------------------------------------- what the journey and the checks hold

/** The sealed values of the journey of a case (what the person entered and answered), if any. */
export async function findJourneyPersonalData(
  db: Executor,
  caseId: string,
): Promise<{ applicantSealed: string | null; answersSealed: string | null; questionnaireScore: { points: number; flags: string[] } | null } | null> {
  const [row] = await db
    .select({ applicantSealed: journeys.applicantSealed, answersSealed: journeys.answersSealed, questionnaireScore: journeys.questionnaireScore })
    .from(journeys)
    .where(eq(journeys.caseId, caseId));
  return row ?? null;
}

/** The latest document reading of a case (the highest round), if the checks read one. */
export async function latestDocumentReading(db: Executor, caseId: string): Promise<DocumentReadingRow | null> {
  const [row] = await db.select().from(documentReadings).where(eq(documentReadings.caseId, caseId)).orderBy(desc(documentReadings.round)).limit(1);
  return row ?? null;
}

/** Writes what the checks read from the document of a round (values sealed by the caller under the case keys). */
export async function saveDocumentReading(tx: Executor, row: typeof documentReadings.$inferInsert): Promise<void> {
  await tx
    .insert(documentReadings)
    .values(row)
    .onConflictDoUpdate({
      target: [documentReadings.caseId, documentReadings.round],
      set: {
        fieldsSealed: row.fieldsSealed ?? null,
        faceTemplatesSealed: row.faceTemplatesSealed ?? null,
        faceTemplatesDescriptor: row.faceTemplatesDescriptor ?? null,
        fingerprints: row.fingerprints ?? null,
        zoneAgreement: row.zoneAgreement ?? {},
        readAt: row.readAt,
      },
    });
}

// ---------------------------------------------------------------- unmask counter

/**
 * Distinct cases, other than `caseId`, this operator unmasked since `since`; and whether `caseId`
 * itself was (unmasking it again does not count as another case). Call it after locking the
 * operator row, so that concurrent unmasks of one operator are counted one after the other.
 */
export async function recentUnmasks(tx: Executor, operatorId: string, caseId: string, since: Date): Promise<{ others: number; thisCase: boolean }> {
  const [row] = await tx
    .select({
      others: sql<number>`(count(*) FILTER (WHERE ${operatorUnmasks.caseId} <> ${caseId}))::int`,
      thisCase: sql<number>`(count(*) FILTER (WHERE ${operatorUnmasks.caseId} = ${caseId}))::int`,
    })
    .from(operatorUnmasks)
    .where(and(eq(operatorUnmasks.operatorId, operatorId), gt(operatorUnmasks.lastAt, since)));
  return { others: Number(row?.others ?? 0), thisCase: Number(row?.thisCase ?? 0) > 0 };
}

export async function recordUnmask(tx: Executor, tenant: Tenant, operatorId: string, caseId: string, now: Date): Promise<void> {
  await tx
    .insert(operatorUnmasks)
    .values({ operatorId, caseId, ...tenant, lastAt: now })
    .onConflictDoUpdate({ target: [operatorUnmasks.operatorId, operatorUnmasks.caseId], set: { lastAt: now } });
}

/** Locks the operator's row until the end of the transaction (serialises one operator's unmasks). */
export async function lockOperatorRow(tx: Executor, tenant: Tenant, operatorId: string): Promise<void> {
  await tx
    .select({ id: operators.id })
    .from(operators)
    .where(and(tenantFilter(operators, tenant), eq(operators.id, operatorId)))
    .for('update');
}

// ---------------------------------------------------------------- support grants

export async function insertSupportGrant(tx: Executor, row: typeof supportGrants.$inferInsert): Promise<SupportGrantRow> {
  const [inserted] = await tx.insert(supportGrants).values(row).returning();
  return inserted;
}

export async function findSupportGrant(db: Executor, tenant: Tenant, id: string, forUpdate = false): Promise<SupportGrantRow | null> {
  const query = db.select().from(supportGrants).where(and(tenantFilter(supportGrants, tenant), eq(supportGrants.id, id)));
  const [row] = forUpdate ? await query.for('update') : await query;
  return row ?? null;
}

/** The client's grants, newest first (ids are time-sortable); `before` is the cursor (an id). */
export async function listSupportGrants(db: Executor, tenant: Tenant, limit: number, before?: string): Promise<SupportGrantRow[]> {
  const where = [tenantFilter(supportGrants, tenant)];
  if (before) where.push(lt(supportGrants.id, before));
  return db
    .select()
    .from(supportGrants)
    .where(and(...where))
    .orderBy(desc(supportGrants.id))
    .limit(limit + 1);
}

const live = (now: Date) => and(isNull(supportGrants.revokedAt), gt(supportGrants.expiresAt, now));

/** Grants of a support account in force at `now`, newest first. */
export async function liveGrantsOf(db: Executor, tenant: Tenant, operatorId: string, now: Date): Promise<SupportGrantRow[]> {
  return db
    .select()
    .from(supportGrants)
    .where(and(tenantFilter(supportGrants, tenant), eq(supportGrants.operatorId, operatorId), live(now)))
    .orderBy(desc(supportGrants.id));
}

/** The grant in force that opens this case to this support account, if any. */
export async function liveGrantFor(db: Executor, tenant: Tenant, operatorId: string, caseId: string, now: Date): Promise<SupportGrantRow | null> {
  const [row] = await db
    .select()
    .from(supportGrants)
    .where(and(tenantFilter(supportGrants, tenant), eq(supportGrants.operatorId, operatorId), eq(supportGrants.caseId, caseId), live(now)))
    .orderBy(desc(supportGrants.expiresAt))
    .limit(1);
  return row ?? null;
}

export async function revokeSupportGrant(tx: Executor, tenant: Tenant, id: string, by: string, now: Date): Promise<SupportGrantRow> {
  const [row] = await tx
    .update(supportGrants)
    .set({ revokedAt: now, revokedBy: by })
    .where(and(tenantFilter(supportGrants, tenant), eq(supportGrants.id, id)))
    .returning();
  return row;
}

// ---------------------------------------------------------------- access log

/** Journal entries of a case whose action is one of `actions`, newest first; `before` is the cursor (an entry id). */
export async function accessEntries(db: Executor, tenant: Tenant, caseId: string, actions: readonly string[], limit: number, before?: string): Promise<JournalRow[]> {
  const where = [tenantFilter(caseJournal, tenant), eq(caseJournal.caseId, caseId), inArray(caseJournal.action, [...actions])];
  if (before) where.push(lt(caseJournal.id, before));
  return db
    .select()
    .from(caseJournal)
    .where(and(...where))
    .orderBy(desc(caseJournal.id))
    .limit(limit + 1);
}

/** Names and roles of operators by id (for the access log). */
export async function operatorsByIds(db: Executor, tenant: Tenant, ids: string[]): Promise<Map<string, { name: string; role: string }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .select({ id: operators.id, name: operators.name, role: operators.role })
    .from(operators)
    .where(and(tenantFilter(operators, tenant), inArray(operators.id, ids)));
  return new Map(rows.map((r) => [r.id, { name: r.name, role: r.role }]));
}

// ---------------------------------------------------------------- erasure

/** What an erasure removed, by category (counts of values or rows). */
interface ErasedCounts {
  images: number;
  identity_read: number;
  portraits_and_face_templates: number;
  declared_data: number;
  entered_data: number;
  questionnaire_answers: number;
  document_fingerprints: number;
  review_comments: number;
  corrections: number;
}

/**
 * Deletes the personal data of a case from the database (the caller destroys the case keys in
 * the same transaction, which makes every other copy unreadable): sealed values set to null,
 * corrections deleted, images marked deleted (their blobs are removed by the caller after the
 * commit; the ids returned). The case, its steps, verdicts, decisions and journal stay.
 */
async function erasePersonalRows(tx: Executor, tenant: Tenant, caseId: string, now: Date): Promise<{ counts: ErasedCounts; blobIds: string[] }> {
  const n = (rows: unknown[]) => rows.length;
  const declared = await tx
    .update(cases)
    .set({ declaredSealed: null })
    .where(and(tenantFilter(cases, tenant), eq(cases.id, caseId), isNotNull(cases.declaredSealed)))
    .returning({ id: cases.id });
  const entered = await tx
    .update(journeys)
    .set({ applicantSealed: null })
    .where(and(eq(journeys.caseId, caseId), isNotNull(journeys.applicantSealed)))
    .returning({ id: journeys.caseId });
  const answers = await tx
    .update(journeys)
    .set({ answersSealed: null })
    .where(and(eq(journeys.caseId, caseId), isNotNull(journeys.answersSealed)))
    .returning({ id: journeys.caseId });
  const readings = await tx.select().from(documentReadings).where(and(eq(documentReadings.caseId, caseId), isNull(documentReadings.erasedAt)));
  if (readings.length > 0) {
    await tx
      .update(documentReadings)
      .set({ fieldsSealed: null, faceTemplatesSealed: null, fingerprints: null, erasedAt: now })
      .where(and(eq(documentReadings.caseId, caseId), isNull(documentReadings.erasedAt)));
  }
  // The face search index holds the templates rotated, not sealed: its rows go, whatever the round.
  await deleteCaseFaces(tx, caseId);
  // A wallet presentation's claims (sealed under the keys destroyed next; cleared all the same).
  await tx.update(walletRequests).set({ presentationSealed: null }).where(and(eq(walletRequests.caseId, caseId), isNotNull(walletRequests.presentationSealed)));
  const decisionComments = await tx
    .update(reviewDecisions)
    .set({ commentSealed: null })
    .where(and(eq(reviewDecisions.caseId, caseId), isNotNull(reviewDecisions.commentSealed)))
    .returning({ id: reviewDecisions.id });
  // The checks an override went against stay (codes); why it did may name the person: erased, and
  // counted with the review comments.
  const justifications = [
    ...(await tx
      .update(reviewDecisions)
      .set({ justificationSealed: null })
      .where(and(eq(reviewDecisions.caseId, caseId), isNotNull(reviewDecisions.justificationSealed)))
      .returning({ id: reviewDecisions.id })),
    ...(await tx
      .update(caseRevisions)
      .set({ justificationSealed: null })
      .where(and(eq(caseRevisions.caseId, caseId), isNotNull(caseRevisions.justificationSealed)))
      .returning({ id: caseRevisions.id })),
  ];
  const revisionComments = await tx
    .update(caseRevisions)
    .set({ commentSealed: null })
    .where(and(eq(caseRevisions.caseId, caseId), isNotNull(caseRevisions.commentSealed)))
    .returning({ id: caseRevisions.id });
  const corrections = await tx.delete(reviewCorrections).where(eq(reviewCorrections.caseId, caseId)).returning({ id: reviewCorrections.id });
  await tx.update(supportGrants).set({ reasonSealed: null }).where(and(eq(supportGrants.caseId, caseId), isNotNull(supportGrants.reasonSealed)));
  const images = await tx
    .update(pieces)
    .set({ deletedAt: now })
    .where(and(eq(pieces.caseId, caseId), isNull(pieces.deletedAt)))
    .returning({ blobId: pieces.blobId });
  // Keyed fingerprints of the images would still tell a later upload of the same image: forgotten too.
  await tx.update(pieces).set({ contentHmac: 'erased' }).where(and(eq(pieces.caseId, caseId), ne(pieces.contentHmac, 'erased')));
  // Blobs of pieces deleted earlier (retakes, retention) are already gone; deleting again is harmless.
  const allBlobs = await tx.select({ blobId: pieces.blobId }).from(pieces).where(eq(pieces.caseId, caseId));
  return {
    counts: {
      images: n(images),
      identity_read: readings.filter((r) => r.fieldsSealed !== null).length,
      portraits_and_face_templates: readings.filter((r) => r.faceTemplatesSealed !== null).length,
      declared_data: n(declared),
      entered_data: n(entered),
      questionnaire_answers: n(answers),
      document_fingerprints: readings.filter((r) => r.fingerprints !== null && r.fingerprints.length > 0).length,
      review_comments: n(decisionComments) + n(justifications) + n(revisionComments),
      corrections: n(corrections),
    },
    blobIds: allBlobs.map((b) => b.blobId),
  };
}

// ---------------------------------------------------------------- pieces (images)

export type PieceOfCase = typeof pieces.$inferSelect;

/** A piece of a case (the case already checked to be the caller's). */
export async function findPieceOfCase(db: Executor, caseId: string, pieceId: string): Promise<PieceOfCase | null> {
  const [row] = await db.select().from(pieces).where(and(eq(pieces.caseId, caseId), eq(pieces.id, pieceId)));
  return row ?? null;
}

// ---------------------------------------------------------------- erasure and retention

export interface ErasureResult {
  counts: ErasedCounts;
  caseKeysDestroyed: number;
  /** Blobs to delete once the transaction has committed (they are unreadable already). */
  blobIds: string[];
  /** False when the case had been erased before (nothing more to do, no second event). */
  first: boolean;
}

/**
 * Erases the personal data of a closed case, in the caller's transaction (the case row locked by
 * the caller): values deleted, case keys destroyed and tombstoned (crypto-shredding), the
 * erasure journaled, and `case.personal_data_erased` written to the outbox the first time.
 */
export async function erasePersonalData(
  tx: Executor,
  tenant: Tenant,
  row: CaseRow,
  actor: string,
  now: Date,
  detail: Record<string, unknown> = {},
): Promise<ErasureResult> {
  const wasErased = await caseKeysDestroyed(tx, row.id);
  const erased = await erasePersonalRows(tx, tenant, row.id, now);
  const destroyed = await destroyCaseKeys(tx, row.id, now);
  await appendJournal(tx, tenant, {
    caseId: row.id,
    actor,
    action: 'personal_data.erased',
    detail: { ...detail, erased: erased.counts, case_keys_destroyed: destroyed },
    at: now,
  });
  if (!wasErased) await emitEvent(tx, tenant, { type: 'case.personal_data_erased', object: caseEventObject(row), data: {} }, now);
  return { counts: erased.counts, caseKeysDestroyed: destroyed, blobIds: erased.blobIds, first: !wasErased };
}

/** When a closed case closed: its decision time, or its last change for one that expired or was abandoned. */
const CLOSED_AT = sql`COALESCE((c.decision ->> 'decided_at')::timestamptz, c.updated_at)`;
const CLOSED = sql`c.state IN ('approved', 'rejected', 'expired', 'abandoned')`;

/**
 * Images past the retention of their flow (`retention.images_days` after the case closed),
 * not deleted yet; oldest cases first, at most `limit`.
 */
export async function piecesPastRetention(db: Executor, now: Date, limit: number): Promise<{ id: string; case_id: string; client_id: string; environment: string; blob_id: string }[]> {
  return queryRows(
    db,
    sql`SELECT p.id, p.case_id, p.client_id, p.environment, p.blob_id
        FROM pieces p
        JOIN cases c ON c.id = p.case_id
        JOIN flows f ON f.id = c.flow_id
        WHERE p.deleted_at IS NULL AND ${CLOSED}
          AND ${CLOSED_AT} + make_interval(days => (f.definition -> 'retention' ->> 'images_days')::int) <= ${now.toISOString()}::timestamptz
        ORDER BY p.case_id, p.id
        LIMIT ${limit}`,
  );
}

/** Marks pieces deleted (retention); returns those it changed (another sweeper may have taken some). */
export async function markPiecesDeleted(tx: Executor, ids: string[], now: Date): Promise<{ id: string; caseId: string; blobId: string }[]> {
  if (ids.length === 0) return [];
  return tx
    .update(pieces)
    .set({ deletedAt: now })
    .where(and(inArray(pieces.id, ids), isNull(pieces.deletedAt)))
    .returning({ id: pieces.id, caseId: pieces.caseId, blobId: pieces.blobId });
}

/**
 * Closed cases whose personal data is past the retention of their flow (`retention.data_days`
 * after the case closed) and not erased yet; at most `limit`.
 */
export async function casesPastDataRetention(db: Executor, now: Date, limit: number): Promise<{ id: string; client_id: string; environment: string }[]> {
  return queryRows(
    db,
    sql`SELECT c.id, c.client_id, c.environment
        FROM cases c
        JOIN flows f ON f.id = c.flow_id
        WHERE ${CLOSED}
          AND ${CLOSED_AT} + make_interval(days => (f.definition -> 'retention' ->> 'data_days')::int) <= ${now.toISOString()}::timestamptz
          AND NOT EXISTS (SELECT 1 FROM case_keys k WHERE k.case_id = c.id AND k.destroyed_at IS NOT NULL)
        ORDER BY c.id
        LIMIT ${limit}`,
  );
}
