import {
  faceIndexKeysPage,
  replaceFaceIndexKey,
  replaceSealedValue,
  replaceStoredResponse,
  replaceWrappedCaseKey,
  sealedValuesPage,
  storedResponsesPage,
  wrappedCaseKeysPage,
  type Db,
  type SealedValueKind,
} from '@idv/db';
import { rewrapCaseKey, type KeyWrapper, type MasterKeyring } from '@idv/vault';
import { LEGACY_AAD, PURPOSE, faceIndexKeyContext, isMasterSealed, type CaseVault } from '@idv/case-data';

/**
 * Master key rotation without downtime. Every instance first runs with the new key as
 * MASTER_KEY and the old one in MASTER_KEYS_PREVIOUS (values sealed under either open, new ones
 * are sealed under the new key); then this pass, safe to run while the service serves, re-wraps
 * every case key and re-seals every secret still sealed under an old key; when it reports
 * nothing stale, the old key can leave MASTER_KEYS_PREVIOUS. The data sealed under the case keys
 * (images, identities, comments…) is not touched: only the keys that protect it are re-wrapped.
 *
 * Each value is replaced by compare-and-set, so a value changed meanwhile (a key destroyed by an
 * erasure, a response replaced) is left as it is. Rows are walked in primary-key order in
 * batches, never all at once (repos/sealed-values.ts).
 *
 * Personal data that earlier versions sealed under the master key (declared data, comments,
 * corrections) is moved under the case keys by the same pass.
 */

interface RotationCounts {
  /** Values found sealed (or wrapped) under an older master key. */
  stale: number;
  /** Of those, replaced by this pass (0 in a dry run). */
  rewritten: number;
}

export type RotationReport = Record<
  'case_keys' | 'face_index_keys' | 'api_key_signing_secrets' | 'webhook_secrets' | 'wallet_secrets' | 'idempotent_responses' | 'legacy_personal_data',
  RotationCounts
> & { current_key_id: string; dry_run: boolean };

export interface RotationOptions {
  /** Count only. */
  dryRun?: boolean;
  batchSize?: number;
  now?: () => Date;
}

/** Walks a table by its (text) key in batches, counting what `visit` found stale and rewrote. */
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

const done = (replaced: boolean) => (replaced ? 'rewritten' : 'stale') as 'rewritten' | 'stale';

/** The personal data that earlier versions sealed under the master key: its purpose under a case key, its legacy AAD. */
const LEGACY: { kind: SealedValueKind; json: boolean; purpose: (id: string) => string; aad: (id: string) => string }[] = [
  { kind: 'declared', json: true, purpose: () => PURPOSE.declared, aad: LEGACY_AAD.declared },
  { kind: 'decision_comment', json: false, purpose: PURPOSE.decisionComment, aad: LEGACY_AAD.decisionComment },
  { kind: 'revision_comment', json: false, purpose: PURPOSE.revisionComment, aad: LEGACY_AAD.revisionComment },
  { kind: 'correction', json: true, purpose: PURPOSE.correction, aad: LEGACY_AAD.correction },
];

export async function rotateMasterKey(db: Db, keyring: MasterKeyring, wrapper: KeyWrapper, vault: CaseVault, options: RotationOptions = {}): Promise<RotationReport> {
  const dry = options.dryRun ?? false;
  const size = options.batchSize ?? 500;
  const now = options.now ?? (() => new Date());

  const caseKeyCounts = await walk(
    (after, limit) => wrappedCaseKeysPage(db, after, limit),
    async (row) => {
      if (!row.wrapped || !wrapper.isStale(row.wrapped)) return 'fresh';
      if (dry) return 'stale';
      const next = await rewrapCaseKey(wrapper, row.caseId, { keyClass: row.keyClass, wrapped: row.wrapped });
      return done(await replaceWrappedCaseKey(db, row, row.wrapped, next.wrapped!));
    },
    size,
  );

  // Face index keys (one per client and environment): re-wrapped like case keys; the indexed
  // vectors they rotated are not touched (the rotation's seed is the same).
  const faceKeyCounts = await walk(
    (after, limit) => faceIndexKeysPage(db, after, limit),
    async (row) => {
      if (!wrapper.isStale(row.wrapped)) return 'fresh';
      if (dry) return 'stale';
      const context = faceIndexKeyContext({ clientId: row.clientId, environment: row.environment });
      const next = await wrapper.wrap(await wrapper.unwrap(row.wrapped, context), context);
      return done(await replaceFaceIndexKey(db, row, row.wrapped, next));
    },
    size,
  );

  // Secrets sealed under the master key itself, re-sealed under the current one.
  const masterSealed = (kind: SealedValueKind, aad: (id: string) => string) =>
    walk(
      (after, limit) => sealedValuesPage(db, kind, after, limit),
      async (row) => {
        if (!keyring.isStale(row.sealed)) return 'fresh';
        if (dry) return 'stale';
        const next = keyring.seal(keyring.open(row.sealed, aad(row.k)), aad(row.k));
        return done(await replaceSealedValue(db, kind, row.k, row.sealed, next));
      },
      size,
    );
  const signing = await masterSealed('api_key_signing_secret', (id) => `api_key:${id}:signing`);
  const current = await masterSealed('webhook_secret', (id) => `webhook_endpoint:${id}:secret`);
  // A rotation's previous secret, while its overlap lasts, is a webhook secret like the current one.
  const previous = await masterSealed('webhook_previous_secret', (id) => `webhook_endpoint:${id}:previous_secret`);
  const webhooks = { stale: current.stale + previous.stale, rewritten: current.rewritten + previous.rewritten };
  // The wallet's: requests' ephemeral keys, verifier keys, the sandbox test issuer (aads as sealed in apps/api/src/services/wallet*.ts).
  const walletParts = [
    await masterSealed('wallet_request_key', (id) => `wallet_request:${id}:key`),
    await masterSealed('wallet_verifier_key', (id) => `wallet_verifier:${id}`),
    await masterSealed('wallet_sandbox_issuer', (id) => `wallet_sandbox_issuer:${id}`),
  ];
  const wallet = { stale: walletParts.reduce((n, c) => n + c.stale, 0), rewritten: walletParts.reduce((n, c) => n + c.rewritten, 0) };

  // Stored idempotent responses: `{sealed}` in response_body (aad `idempotency:<api key>:<key>`).
  const responses = await walk(
    (after, limit) => storedResponsesPage(db, after, limit),
    async (row) => {
      const sealed = (row.body as { sealed?: unknown } | null)?.sealed;
      if (typeof sealed !== 'string' || !keyring.isStale(sealed)) return 'fresh';
      if (dry) return 'stale';
      const aad = `idempotency:${row.apiKeyId}:${row.key}`;
      return done(await replaceStoredResponse(db, row, sealed, { sealed: keyring.seal(keyring.open(sealed, aad), aad) }));
    },
    size,
  );

  // Personal data sealed under the master key by earlier versions: moved under the case keys.
  const legacy: RotationCounts = { stale: 0, rewritten: 0 };
  for (const { kind, json, purpose, aad } of LEGACY) {
    const counts = await walk(
      (after, limit) => sealedValuesPage(db, kind, after, limit, 'v1.'),
      async (row) => {
        if (!isMasterSealed(row.sealed)) return 'fresh';
        if (dry) return 'stale';
        const text = keyring.openText(row.sealed, aad(row.k));
        const value = json ? (JSON.parse(text) as unknown) : text;
        const caseId = row.caseId!;
        return db.transaction(async (tx) => {
          // An erased case receives no key: its legacy value is simply dropped.
          const next = (await vault.isErased(tx, caseId)) ? null : await vault.sealJson(tx, caseId, 'data', purpose(row.k), value, now());
          return done(await replaceSealedValue(tx, kind, row.k, row.sealed, next));
        });
      },
      size,
    );
    legacy.stale += counts.stale;
    legacy.rewritten += counts.rewritten;
  }

  return {
    current_key_id: keyring.currentKeyId,
    dry_run: dry,
    case_keys: caseKeyCounts,
    face_index_keys: faceKeyCounts,
    api_key_signing_secrets: signing,
    webhook_secrets: webhooks,
    wallet_secrets: wallet,
    idempotent_responses: responses,
    legacy_personal_data: legacy,
  };
}
