import { eq, sql } from 'drizzle-orm';
import type { Executor } from '../connect.ts';
import { queryRows } from '../connect.ts';
import { faceIndexKeys, faceVectors } from '../schema.ts';
import { tenantFilter, type Tenant } from './tenant.ts';

/**
 * The face search index (docs/personal-data.md, "The face search index"): templates rotated by
 * their tenant's secret rotation, searched by Euclidean distance with pgvector's HNSW index on
 * both databases. Nothing here sees a template as the engine made it: callers rotate first.
 */

/** The tenant's wrapped index key, or null when it has none yet. */
export async function findFaceIndexKey(db: Executor, tenant: Tenant): Promise<string | null> {
  const [row] = await db.select({ wrapped: faceIndexKeys.wrapped }).from(faceIndexKeys).where(tenantFilter(faceIndexKeys, tenant));
  return row?.wrapped ?? null;
}

/**
 * Stores a new wrapped key for the tenant unless one exists (two workers making the first one at
 * once both end with the same key); returns the key that is stored.
 */
export async function storeFaceIndexKey(db: Executor, tenant: Tenant, wrapped: string, now: Date): Promise<string> {
  await db
    .insert(faceIndexKeys)
    .values({ ...tenant, wrapped, createdAt: now })
    .onConflictDoNothing();
  const stored = await findFaceIndexKey(db, tenant);
  if (!stored) throw new Error('face index key not stored');
  return stored;
}

export interface IndexedFace {
  caseId: string;
  round: number;
  source: 'selfie' | 'portrait';
  descriptor: string;
  /** Rotated by the tenant's rotation. */
  vector: readonly number[];
}

/** Adds a reading's rotated templates to the index (a retried round replaces its own). */
export async function indexFaces(tx: Executor, tenant: Tenant, faces: readonly IndexedFace[], now: Date): Promise<void> {
  if (faces.length === 0) return;
  await tx
    .insert(faceVectors)
    .values(faces.map((f) => ({ ...tenant, caseId: f.caseId, round: f.round, source: f.source, descriptor: f.descriptor, embedding: [...f.vector], createdAt: now })))
    .onConflictDoUpdate({
      target: [faceVectors.caseId, faceVectors.round, faceVectors.source],
      set: { descriptor: sql`excluded.descriptor`, embedding: sql`excluded.embedding`, createdAt: sql`excluded.created_at` },
    });
}

/** Deletes every indexed template of a case (erasure, retention); returns how many. */
export async function deleteCaseFaces(tx: Executor, caseId: string): Promise<number> {
  const rows = await tx.delete(faceVectors).where(eq(faceVectors.caseId, caseId)).returning({ round: faceVectors.round });
  return rows.length;
}

/** How many templates of a case the index holds (tests, the erasure's own check). */
export async function countCaseFaces(db: Executor, caseId: string): Promise<number> {
  const [row] = await queryRows<{ n: number | string }>(db, sql`SELECT count(*)::int AS n FROM face_vectors WHERE case_id = ${caseId}`);
  return Number(row?.n ?? 0);
}

/**
 * How the HNSW index is searched. `efSearch`: candidates kept while walking the graph (pgvector's
 * default is 40); iterative scans (pgvector 0.8) go on walking while the tenant, version and
 * case filters leave fewer than `k` rows, up to pgvector's `hnsw.max_scan_tuples` (20,000).
 */
export const FACE_SEARCH = { k: 10, efSearch: 100 } as const;

/**
 * The `k` nearest indexed templates of the tenant, of the same descriptor version, outside the
 * case `excludeCaseId`, to a rotated template: case ids and distances, nearest first.
 * In a transaction of its own (or a savepoint of the caller's), whose settings end with it.
 */
export async function nearestFaces(
  db: Executor,
  tenant: Tenant,
  query: { descriptor: string; vector: readonly number[]; excludeCaseId: string | null; k?: number; efSearch?: number },
): Promise<Array<{ caseId: string; distance: number }>> {
  const k = query.k ?? FACE_SEARCH.k;
  const ef = query.efSearch ?? FACE_SEARCH.efSearch;
  if (!Number.isInteger(k) || k < 1 || k > 1000 || !Number.isInteger(ef) || ef < 1 || ef > 1000) throw new Error('face search: k or ef_search out of range');
  const v = vectorText(query.vector);
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true), set_config('hnsw.ef_search', ${String(ef)}, true)`);
    const rows = await queryRows<{ case_id: string; distance: number | string }>(
      tx,
      sql`SELECT case_id, embedding <-> ${v}::vector AS distance
          FROM face_vectors
          WHERE client_id = ${tenant.clientId} AND environment = ${tenant.environment}
            AND descriptor = ${query.descriptor} AND case_id <> ${query.excludeCaseId ?? ''}
          ORDER BY embedding <-> ${v}::vector
          LIMIT ${k}`,
    );
    // relaxed_order may return a few rows out of order: sorted here.
    return rows.map((r) => ({ caseId: r.case_id, distance: Number(r.distance) })).sort((a, b) => a.distance - b.distance);
  });
}

/** pgvector's text form; refuses what is not a finite number. */
function vectorText(v: readonly number[]): string {
  for (const x of v) if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error('face vector: not a finite number');
  return `[${v.join(',')}]`;
}

/**
 * Readings holding sealed face templates and no row in the face index whose templates may give a
 * template of `descriptor` (the current version): those sealed by it, and those sealed before the
 * version was recorded (null: to be opened once). Readings of another descriptor, recorded when
 * sealed or by an earlier pass (`superseded:<length>`), are left out by the query itself, not
 * opened. After `after` in (case, round) order.
 */
export async function readingsMissingFromFaceIndex(
  db: Executor,
  descriptor: string,
  after: { caseId: string; round: number } | null,
  limit: number,
): Promise<Array<{ caseId: string; round: number }>> {
  const rows = await queryRows<{ case_id: string; round: number }>(
    db,
    sql`SELECT r.case_id, r.round FROM document_readings r
        WHERE r.face_templates_sealed IS NOT NULL AND r.erased_at IS NULL
          AND (r.face_templates_descriptor IS NULL OR r.face_templates_descriptor = ${descriptor})
          AND NOT EXISTS (SELECT 1 FROM face_vectors v WHERE v.case_id = r.case_id AND v.round = r.round)
          AND (r.case_id, r.round) > (${after?.caseId ?? ''}, ${after?.round ?? 0})
        ORDER BY r.case_id, r.round
        LIMIT ${limit}`,
  );
  return rows.map((r) => ({ caseId: r.case_id, round: Number(r.round) }));
}

/** Records the descriptor version of a reading's sealed templates (in the transaction that locked it). */
export async function markReadingDescriptor(tx: Executor, caseId: string, round: number, descriptor: string): Promise<void> {
  await tx.execute(sql`UPDATE document_readings SET face_templates_descriptor = ${descriptor} WHERE case_id = ${caseId} AND round = ${round}`);
}

/** The reading locked against a concurrent erasure (which updates it), if it still holds templates. */
export async function lockReadingTemplates(
  tx: Executor,
  caseId: string,
  round: number,
): Promise<{ clientId: string; environment: string; sealed: string } | null> {
  const [row] = await queryRows<{ client_id: string; environment: string; sealed: string | null }>(
    tx,
    sql`SELECT client_id, environment, face_templates_sealed AS sealed FROM document_readings
        WHERE case_id = ${caseId} AND round = ${round} AND erased_at IS NULL FOR UPDATE`,
  );
  return row?.sealed ? { clientId: row.client_id, environment: row.environment, sealed: row.sealed } : null;
}
