import { and, asc, eq, gt, isNotNull, sql, type SQL } from 'drizzle-orm';
import { schema, type Db } from '@idv/db';
import { rewrapCaseKey, type KeyWrapper, type MasterKeyring } from '@idv/vault';
import { LEGACY_AAD, PURPOSE, faceIndexKeyContext, isMasterSealed, type CaseVault } from '@idv/case-data';

const { apiKeys, caseKeys, faceIndexKeys, caseRevisions, cases, idempotencyKeys, reviewCorrections, reviewDecisions, webhookEndpoints } = schema;

/**
 * Master key rotation without downtime. Every instance first runs with the new key as
 * MASTER_KEY and the old one in MASTER_KEYS_PREVIOUS (values sealed under either open, new ones
 * are sealed under the new key); then this pass, safe to run while the service serves, re-wraps
 * every case key and re-seals every secret still sealed under an old key; when it reports
 * nothing stale, the old key can leave MASTER_KEYS_PREVIOUS. The data sealed under the case keys
 * (images, identities, comments…) is not touched: only the keys that protect it are re-wrapped.
 *
 * Each value is replaced by compare-and-set (`WHERE … AND column = <old value>`), so a value
 * changed meanwhile (a key destroyed by an erasure, a response replaced) is left as it is. Rows
 * are walked in primary-key order in batches, never all at once.
 *
 * Personal data that earlier versions sealed under the master key (declared data, comments,
 * corrections) is moved under the case keys by the same pass.
 */

export interface RotationCounts {
  /** Values found sealed (or wrapped) under an older master key. */
  stale: number;
  /** Of those, replaced by this pass (0 in a dry run). */
  rewritten: number;
}

export type RotationReport = Record<
  'case_keys' | 'face_index_keys' | 'api_key_signing_secrets' | 'webhook_secrets' | 'idempotent_responses' | 'legacy_personal_data',
  RotationCounts
> & { current_key_id: string; dry_run: boolean };

export interface RotationOptions {
  /** Count only. */
  dryRun?: boolean;
  batchSize?: number;
  now?: () => Date;
}

/** Walks a table by its (text) key in batches; `visit` returns how many of the batch it rewrote. */
async function walk<Row extends { k: string }>(
  page: (after: string | null, limit: number) => Promise<Row[]>,
  visit: (row: Row) => Promise<'fresh' | 'stale' | 'rewritten'>,
  batchSize: number,
): Promise<RotationCounts> {
  const counts: RotationCounts = { stale: 0, rewritten: 0 };
  let after: string | null = null;
  for (;;) {
    const rows = await page(after, batchSize);
    for (const row of rows) {
      const outcome = await visit(row);
      if (outcome !== 'fresh') counts.stale += 1;
      if (outcome === 'rewritten') counts.rewritten += 1;
    }
    if (rows.length < batchSize) return counts;
    after = rows[rows.length - 1].k;
  }
}

const afterKey = (column: SQL, after: string | null) => (after === null ? sql`true` : gt(column, after));

export async function rotateMasterKey(db: Db, keyring: MasterKeyring, wrapper: KeyWrapper, vault: CaseVault, options: RotationOptions = {}): Promise<RotationReport> {
  const dry = options.dryRun ?? false;
  const size = options.batchSize ?? 500;
  const now = options.now ?? (() => new Date());
  const updated = (rows: unknown[]) => (rows.length > 0 ? 'rewritten' : 'stale') as 'rewritten' | 'stale';

  // Case keys: (case, class) walked by the text key `case_id || ':' || key_class`.
  const caseKeyId = sql<string>`${caseKeys.caseId} || ':' || ${caseKeys.keyClass}`;
  const caseKeyCounts = await walk(
    (after, limit) =>
      db
        .select({ k: caseKeyId, caseId: caseKeys.caseId, keyClass: caseKeys.keyClass, wrapped: caseKeys.wrapped })
        .from(caseKeys)
        .where(and(isNotNull(caseKeys.wrapped), afterKey(caseKeyId, after)))
        .orderBy(asc(caseKeyId))
        .limit(limit),
    async (row) => {
      if (!row.wrapped || !wrapper.isStale(row.wrapped)) return 'fresh';
      if (dry) return 'stale';
      const next = await rewrapCaseKey(wrapper, row.caseId, { keyClass: row.keyClass, wrapped: row.wrapped });
      return updated(
        await db
          .update(caseKeys)
          .set({ wrapped: next.wrapped })
          .where(and(eq(caseKeys.caseId, row.caseId), eq(caseKeys.keyClass, row.keyClass), eq(caseKeys.wrapped, row.wrapped)))
          .returning({ caseId: caseKeys.caseId }),
      );
    },
    size,
  );

  // Face index keys (one per client and environment): re-wrapped like case keys; the indexed
  // vectors they rotated are not touched (the rotation's seed is the same).
  const faceKeyId = sql<string>`${faceIndexKeys.clientId} || ':' || ${faceIndexKeys.environment}`;
  const faceKeyCounts = await walk(
    (after, limit) =>
      db
        .select({ k: faceKeyId, clientId: faceIndexKeys.clientId, environment: faceIndexKeys.environment, wrapped: faceIndexKeys.wrapped })
        .from(faceIndexKeys)
        .where(afterKey(faceKeyId, after))
        .orderBy(asc(faceKeyId))
        .limit(limit),
    async (row) => {
      if (!wrapper.isStale(row.wrapped)) return 'fresh';
      if (dry) return 'stale';
      const context = faceIndexKeyContext({ clientId: row.clientId, environment: row.environment });
      const next = await wrapper.wrap(await wrapper.unwrap(row.wrapped, context), context);
      return updated(
        await db
          .update(faceIndexKeys)
          .set({ wrapped: next })
          .where(and(eq(faceIndexKeys.clientId, row.clientId), eq(faceIndexKeys.environment, row.environment), eq(faceIndexKeys.wrapped, row.wrapped)))
          .returning({ clientId: faceIndexKeys.clientId }),
      );
    },
    size,
  );

  const signing = await walk(
    (after, limit) =>
      db
        .select({ k: apiKeys.id, sealed: apiKeys.signingSecretSealed })
        .from(apiKeys)
        .where(afterKey(sql`${apiKeys.id}`, after))
        .orderBy(asc(apiKeys.id))
        .limit(limit),
    async (row) => {
      if (!keyring.isStale(row.sealed)) return 'fresh';
      if (dry) return 'stale';
      const aad = `api_key:${row.k}:signing`;
      const next = keyring.seal(keyring.open(row.sealed, aad), aad);
      return updated(
        await db
          .update(apiKeys)
          .set({ signingSecretSealed: next })
          .where(and(eq(apiKeys.id, row.k), eq(apiKeys.signingSecretSealed, row.sealed)))
          .returning({ id: apiKeys.id }),
      );
    },
    size,
  );

  const webhooks = await walk(
    (after, limit) =>
      db
        .select({ k: webhookEndpoints.id, sealed: webhookEndpoints.secretSealed })
        .from(webhookEndpoints)
        .where(afterKey(sql`${webhookEndpoints.id}`, after))
        .orderBy(asc(webhookEndpoints.id))
        .limit(limit),
    async (row) => {
      if (!keyring.isStale(row.sealed)) return 'fresh';
      if (dry) return 'stale';
      const aad = `webhook_endpoint:${row.k}:secret`;
      const next = keyring.seal(keyring.open(row.sealed, aad), aad);
      return updated(
        await db
          .update(webhookEndpoints)
          .set({ secretSealed: next })
          .where(and(eq(webhookEndpoints.id, row.k), eq(webhookEndpoints.secretSealed, row.sealed)))
          .returning({ id: webhookEndpoints.id }),
      );
    },
    size,
  );

  // Stored idempotent responses: `{sealed}` in response_body (aad `idempotency:<api key>:<key>`).
  const idemId = sql<string>`${idempotencyKeys.apiKeyId} || ' ' || ${idempotencyKeys.key}`;
  const responses = await walk(
    (after, limit) =>
      db
        .select({ k: idemId, apiKeyId: idempotencyKeys.apiKeyId, key: idempotencyKeys.key, body: idempotencyKeys.responseBody })
        .from(idempotencyKeys)
        .where(and(isNotNull(idempotencyKeys.responseBody), afterKey(idemId, after)))
        .orderBy(asc(idemId))
        .limit(limit),
    async (row) => {
      const sealed = (row.body as { sealed?: unknown } | null)?.sealed;
      if (typeof sealed !== 'string' || !keyring.isStale(sealed)) return 'fresh';
      if (dry) return 'stale';
      const aad = `idempotency:${row.apiKeyId}:${row.key}`;
      const next = { sealed: keyring.seal(keyring.open(sealed, aad), aad) };
      return updated(
        await db
          .update(idempotencyKeys)
          .set({ responseBody: next })
          .where(
            and(
              eq(idempotencyKeys.apiKeyId, row.apiKeyId),
              eq(idempotencyKeys.key, row.key),
              sql`${idempotencyKeys.responseBody} ->> 'sealed' = ${sealed}`,
            ),
          )
          .returning({ key: idempotencyKeys.key }),
      );
    },
    size,
  );

  // Personal data sealed under the master key by earlier versions: moved under the case keys.
  const legacy: RotationCounts = { stale: 0, rewritten: 0 };
  const add = (c: RotationCounts) => {
    legacy.stale += c.stale;
    legacy.rewritten += c.rewritten;
  };
  const reseal = async (caseId: string, purpose: string, legacyAad: string, sealed: string, json: boolean, write: (value: string | null, tx: Db) => Promise<unknown[]>) => {
    if (dry) return 'stale' as const;
    const text = keyring.openText(sealed, legacyAad);
    const value = json ? (JSON.parse(text) as unknown) : text;
    return db.transaction(async (tx) => {
      // An erased case receives no key: its legacy value is simply dropped.
      const next = (await vault.isErased(tx, caseId)) ? null : await vault.sealJson(tx, caseId, 'data', purpose, value, now());
      return updated(await write(next, tx as unknown as Db));
    }) as Promise<'rewritten' | 'stale'>;
  };
  add(
    await walk(
      (after, limit) =>
        db
          .select({ k: cases.id, sealed: cases.declaredSealed })
          .from(cases)
          .where(and(sql`${cases.declaredSealed} LIKE 'v1.%'`, afterKey(sql`${cases.id}`, after)))
          .orderBy(asc(cases.id))
          .limit(limit),
      async (row) =>
        !row.sealed || !isMasterSealed(row.sealed)
          ? 'fresh'
          : reseal(row.k, PURPOSE.declared, LEGACY_AAD.declared(row.k), row.sealed, true, (value, tx) =>
              tx.update(cases).set({ declaredSealed: value }).where(and(eq(cases.id, row.k), eq(cases.declaredSealed, row.sealed!))).returning({ id: cases.id }),
            ),
      size,
    ),
  );
  add(
    await walk(
      (after, limit) =>
        db
          .select({ k: reviewDecisions.id, caseId: reviewDecisions.caseId, sealed: reviewDecisions.commentSealed })
          .from(reviewDecisions)
          .where(and(sql`${reviewDecisions.commentSealed} LIKE 'v1.%'`, afterKey(sql`${reviewDecisions.id}`, after)))
          .orderBy(asc(reviewDecisions.id))
          .limit(limit),
      async (row) =>
        !row.sealed || !isMasterSealed(row.sealed)
          ? 'fresh'
          : reseal(row.caseId, PURPOSE.decisionComment(row.k), LEGACY_AAD.decisionComment(row.k), row.sealed, false, (value, tx) =>
              tx
                .update(reviewDecisions)
                .set({ commentSealed: value })
                .where(and(eq(reviewDecisions.id, row.k), eq(reviewDecisions.commentSealed, row.sealed!)))
                .returning({ id: reviewDecisions.id }),
            ),
      size,
    ),
  );
  add(
    await walk(
      (after, limit) =>
        db
          .select({ k: caseRevisions.id, caseId: caseRevisions.caseId, sealed: caseRevisions.commentSealed })
          .from(caseRevisions)
          .where(and(sql`${caseRevisions.commentSealed} LIKE 'v1.%'`, afterKey(sql`${caseRevisions.id}`, after)))
          .orderBy(asc(caseRevisions.id))
          .limit(limit),
      async (row) =>
        !row.sealed || !isMasterSealed(row.sealed)
          ? 'fresh'
          : reseal(row.caseId, PURPOSE.revisionComment(row.k), LEGACY_AAD.revisionComment(row.k), row.sealed, false, (value, tx) =>
              tx
                .update(caseRevisions)
                .set({ commentSealed: value })
                .where(and(eq(caseRevisions.id, row.k), eq(caseRevisions.commentSealed, row.sealed!)))
                .returning({ id: caseRevisions.id }),
            ),
      size,
    ),
  );
  add(
    await walk(
      (after, limit) =>
        db
          .select({ k: reviewCorrections.id, caseId: reviewCorrections.caseId, sealed: reviewCorrections.sealed })
          .from(reviewCorrections)
          .where(and(sql`${reviewCorrections.sealed} LIKE 'v1.%'`, afterKey(sql`${reviewCorrections.id}`, after)))
          .orderBy(asc(reviewCorrections.id))
          .limit(limit),
      async (row) =>
        !isMasterSealed(row.sealed)
          ? 'fresh'
          : reseal(row.caseId, PURPOSE.correction(row.k), LEGACY_AAD.correction(row.k), row.sealed, true, async (value, tx) =>
              value === null
                ? tx.delete(reviewCorrections).where(and(eq(reviewCorrections.id, row.k), eq(reviewCorrections.sealed, row.sealed))).returning({ id: reviewCorrections.id })
                : tx
                    .update(reviewCorrections)
                    .set({ sealed: value })
                    .where(and(eq(reviewCorrections.id, row.k), eq(reviewCorrections.sealed, row.sealed)))
                    .returning({ id: reviewCorrections.id }),
            ),
      size,
    ),
  );

  return {
    current_key_id: keyring.currentKeyId,
    dry_run: dry,
    case_keys: caseKeyCounts,
    face_index_keys: faceKeyCounts,
    api_key_signing_secrets: signing,
    webhook_secrets: webhooks,
    idempotent_responses: responses,
    legacy_personal_data: legacy,
  };
}
