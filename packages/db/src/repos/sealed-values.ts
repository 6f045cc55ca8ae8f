import { and, asc, eq, gt, isNotNull, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Executor } from '../connect.ts';
import {
  apiKeys,
  caseKeys,
  caseRevisions,
  cases,
  faceIndexKeys,
  idempotencyKeys,
  reviewCorrections,
  reviewDecisions,
  walletRequests,
  walletSandboxIssuer,
  walletVerifiers,
  webhookEndpoints,
} from '../schema.ts';

/**
 * The values sealed under the master key or a case key, walked in primary-key order and replaced
 * by compare-and-set (`WHERE … AND column = <old value>`): a value changed meanwhile is left as
 * it is. For the master key rotation.
 */

const afterKey = (column: SQL | PgColumn, after: string | null) => (after === null ? sql`true` : gt(column as SQL, after));

interface SealedColumn {
  table: PgTable;
  /** The row's key: a column, or an expression for a table keyed by several (`client:environment`). */
  id: PgColumn | SQL;
  value: PgColumn;
  /** The value's field name in the table's rows. */
  field: string;
  caseId: PgColumn | null;
  /** Erasing such a value deletes its row (a correction is nothing without its value). */
  deleteWhenErased?: boolean;
}

const SEALED = {
  api_key_signing_secret: { table: apiKeys, id: apiKeys.id, value: apiKeys.signingSecretSealed, field: 'signingSecretSealed', caseId: null },
  webhook_secret: { table: webhookEndpoints, id: webhookEndpoints.id, value: webhookEndpoints.secretSealed, field: 'secretSealed', caseId: null },
  webhook_previous_secret: {
    table: webhookEndpoints,
    id: webhookEndpoints.id,
    value: webhookEndpoints.previousSecretSealed,
    field: 'previousSecretSealed',
    caseId: null,
  },
  declared: { table: cases, id: cases.id, value: cases.declaredSealed, field: 'declaredSealed', caseId: cases.id },
  decision_comment: { table: reviewDecisions, id: reviewDecisions.id, value: reviewDecisions.commentSealed, field: 'commentSealed', caseId: reviewDecisions.caseId },
  revision_comment: { table: caseRevisions, id: caseRevisions.id, value: caseRevisions.commentSealed, field: 'commentSealed', caseId: caseRevisions.caseId },
  correction: { table: reviewCorrections, id: reviewCorrections.id, value: reviewCorrections.sealed, field: 'sealed', caseId: reviewCorrections.caseId, deleteWhenErased: true },
  // The wallet's secrets under the master key (docs/wallet.md): a request's ephemeral key, a
  // client's verifier key (keyed `client:environment`), the sandbox test issuer.
  wallet_request_key: { table: walletRequests, id: walletRequests.id, value: walletRequests.encryptionKeySealed, field: 'encryptionKeySealed', caseId: null },
  wallet_verifier_key: {
    table: walletVerifiers,
    id: sql`${walletVerifiers.clientId} || ':' || ${walletVerifiers.environment}`,
    value: walletVerifiers.privateKeySealed,
    field: 'privateKeySealed',
    caseId: null,
  },
  wallet_sandbox_issuer: { table: walletSandboxIssuer, id: walletSandboxIssuer.id, value: walletSandboxIssuer.issuerSealed, field: 'issuerSealed', caseId: null },
} satisfies Record<string, SealedColumn>;

export type SealedValueKind = keyof typeof SEALED;

export interface SealedValue {
  /** The row's id (the walk's key). */
  k: string;
  caseId: string | null;
  sealed: string;
}

/** A page of a column's sealed values after `after`; with `prefix`, only values starting with it. */
export async function sealedValuesPage(db: Executor, kind: SealedValueKind, after: string | null, limit: number, prefix?: string): Promise<SealedValue[]> {
  const c: SealedColumn = SEALED[kind];
  // An empty value is an erased secret (a deleted webhook endpoint's, whose column cannot be null).
  const where = [isNotNull(c.value), sql`${c.value} <> ''`, afterKey(c.id, after)];
  if (prefix !== undefined) where.push(sql`starts_with(${c.value}, ${prefix})`);
  return (await db
    .select({ k: c.id, caseId: c.caseId ?? sql<null>`NULL`, sealed: c.value })
    .from(c.table)
    .where(and(...where))
    .orderBy(asc(c.id))
    .limit(limit)) as SealedValue[];
}

/** Replaces a sealed value if it is still `old` (null erases it); whether it was replaced. */
export async function replaceSealedValue(db: Executor, kind: SealedValueKind, id: string, old: string, next: string | null): Promise<boolean> {
  const c: SealedColumn = SEALED[kind];
  const match = and(eq(c.id as SQL, id), eq(c.value, old));
  if (next === null && c.deleteWhenErased) return (await db.delete(c.table).where(match).returning({ id: c.id })).length > 0;
  return (await db.update(c.table).set({ [c.field]: next } as never).where(match).returning({ id: c.id })).length > 0;
}

const caseKeyId = sql<string>`${caseKeys.caseId} || ':' || ${caseKeys.keyClass}`;

/** A page of wrapped case keys, by `case_id:key_class`. */
export async function wrappedCaseKeysPage(db: Executor, after: string | null, limit: number) {
  return db
    .select({ k: caseKeyId, caseId: caseKeys.caseId, keyClass: caseKeys.keyClass, wrapped: caseKeys.wrapped })
    .from(caseKeys)
    .where(and(isNotNull(caseKeys.wrapped), afterKey(caseKeyId, after)))
    .orderBy(asc(caseKeyId))
    .limit(limit);
}

export async function replaceWrappedCaseKey(db: Executor, key: { caseId: string; keyClass: 'data' | 'biometric' }, old: string, next: string): Promise<boolean> {
  const rows = await db
    .update(caseKeys)
    .set({ wrapped: next })
    .where(and(eq(caseKeys.caseId, key.caseId), eq(caseKeys.keyClass, key.keyClass), eq(caseKeys.wrapped, old)))
    .returning({ caseId: caseKeys.caseId });
  return rows.length > 0;
}

const faceKeyId = sql<string>`${faceIndexKeys.clientId} || ':' || ${faceIndexKeys.environment}`;

/** A page of the face index keys (one per client and environment), by `client:environment`. */
export async function faceIndexKeysPage(db: Executor, after: string | null, limit: number) {
  return db
    .select({ k: faceKeyId, clientId: faceIndexKeys.clientId, environment: faceIndexKeys.environment, wrapped: faceIndexKeys.wrapped })
    .from(faceIndexKeys)
    .where(afterKey(faceKeyId, after))
    .orderBy(asc(faceKeyId))
    .limit(limit);
}

export async function replaceFaceIndexKey(db: Executor, key: { clientId: string; environment: typeof faceIndexKeys.$inferSelect.environment }, old: string, next: string): Promise<boolean> {
  const rows = await db
    .update(faceIndexKeys)
    .set({ wrapped: next })
    .where(and(eq(faceIndexKeys.clientId, key.clientId), eq(faceIndexKeys.environment, key.environment), eq(faceIndexKeys.wrapped, old)))
    .returning({ clientId: faceIndexKeys.clientId });
  return rows.length > 0;
}

const idemId = sql<string>`${idempotencyKeys.apiKeyId} || ' ' || ${idempotencyKeys.key}`;

/** A page of stored idempotent responses, by `api_key_id key`. */
export async function storedResponsesPage(db: Executor, after: string | null, limit: number) {
  return db
    .select({ k: idemId, apiKeyId: idempotencyKeys.apiKeyId, key: idempotencyKeys.key, body: idempotencyKeys.responseBody })
    .from(idempotencyKeys)
    .where(and(isNotNull(idempotencyKeys.responseBody), afterKey(idemId, after)))
    .orderBy(asc(idemId))
    .limit(limit);
}

/** Replaces a stored response sealed as `{ sealed }` if its sealed text is still `old`. */
export async function replaceStoredResponse(db: Executor, entry: { apiKeyId: string; key: string }, old: string, next: { sealed: string }): Promise<boolean> {
  const rows = await db
    .update(idempotencyKeys)
    .set({ responseBody: next })
    .where(and(eq(idempotencyKeys.apiKeyId, entry.apiKeyId), eq(idempotencyKeys.key, entry.key), sql`${idempotencyKeys.responseBody} ->> 'sealed' = ${old}`))
    .returning({ key: idempotencyKeys.key });
  return rows.length > 0;
}
