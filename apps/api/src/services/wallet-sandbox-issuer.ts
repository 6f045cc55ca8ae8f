import { findWalletSandboxIssuer, insertWalletSandboxIssuer, type Executor } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import type { TrustAnchor } from '@idv/wallet';
import type { TestIssuer } from '@idv/wallet/testing';
import { walletTestKit } from './wallet-library.ts';

/**
 * The sandbox ships a test issuer (docs/wallet.md#the-sandbox-test-issuer): generated once per
 * installation on first use (`createTestIssuer`) and stored in `wallet_sandbox_issuer`, so every
 * instance trusts the same IACA and SD-JWT VC issuer certificates in the sandbox environment
 * (never in production), beside the client's own anchors.
 *
 * The certificates are kept in clear (public); `issuer_sealed` (master keyring, aad
 * `wallet_sandbox_issuer:sandbox`) holds the whole issuer with its private keys
 * (`saveTestIssuer`), so every instance can also issue sandbox credentials with it
 * (`sandboxTestIssuer`). They are test keys: nothing outside the sandbox trusts them.
 */

const AAD = 'wallet_sandbox_issuer:sandbox';
const NAME = 'IDV sandbox test issuer';
const COUNTRY = 'UT';

interface Loaded {
  anchors: TrustAnchor[];
  /** The issuer with its private material. */
  issuer: TestIssuer;
}

/** Per database (one per app; tests start several): read once, kept for the process. */
const cache = new WeakMap<object, Promise<Loaded>>();

async function loadOrCreate(db: Executor, keyring: MasterKeyring, now: () => Date): Promise<Loaded> {
  const anchorsOf = (row: { iacaPem: string; sdJwtIssuerPem: string }): TrustAnchor[] => [
    { kind: 'iaca', certificatePem: row.iacaPem },
    { kind: 'sd_jwt_issuer', certificatePem: row.sdJwtIssuerPem },
  ];
  const { createTestIssuer, loadTestIssuer, saveTestIssuer } = await walletTestKit();
  const stored = await findWalletSandboxIssuer(db);
  if (stored) return { anchors: anchorsOf(stored), issuer: await loadTestIssuer(keyring.openText(stored.issuerSealed, AAD)) };
  const made = await createTestIssuer({ name: NAME, country: COUNTRY });
  const row = await insertWalletSandboxIssuer(db, {
    iacaPem: made.iacaPem,
    sdJwtIssuerPem: made.sdJwtIssuerPem,
    issuerSealed: keyring.seal(await saveTestIssuer(made), AAD),
    createdAt: now(),
  });
  // Another instance may have stored its own first: that one is the installation's.
  return { anchors: anchorsOf(row), issuer: row.iacaPem === made.iacaPem ? made : await loadTestIssuer(keyring.openText(row.issuerSealed, AAD)) };
}

function loaded(ctx: { db: Executor; keyring: MasterKeyring; now: () => Date }): Promise<Loaded> {
  let entry = cache.get(ctx.db);
  if (!entry) {
    entry = loadOrCreate(ctx.db, ctx.keyring, ctx.now).catch((err) => {
      cache.delete(ctx.db);
      throw err;
    });
    cache.set(ctx.db, entry);
  }
  return entry;
}

/** What the sandbox trusts beside the client's anchors: the test issuer's IACA and SD-JWT VC issuer certificates. */
export async function sandboxTrustAnchors(ctx: { db: Executor; keyring: MasterKeyring; now: () => Date }): Promise<TrustAnchor[]> {
  return (await loaded(ctx)).anchors;
}

/** The sandbox test issuer with its private material, to issue sandbox credentials. */
export async function sandboxTestIssuer(ctx: { db: Executor; keyring: MasterKeyring; now: () => Date }): Promise<TestIssuer> {
  return (await loaded(ctx)).issuer;
}

/**
 * The sandbox test issuer's token status list, which the service publishes to itself: its
 * SD-JWT VC credentials point at this URI (an `.invalid` host: no one else answers for it), and
 * the sandbox verification reads the list from here instead of the network (wallet-verify-task.ts),
 * checking its signature and reading the credential's bit as for any issuer's list. Index 0 is
 * valid, index 1 revoked (the sandbox test wallet's `revoked` outcome).
 */
export const SANDBOX_STATUS_LIST_URI = 'https://sandbox-status.idv.invalid/lists/1';
export const SANDBOX_STATUS_INDEX = { valid: 0, revoked: 1 } as const;
/** Signed anew after an hour (the list says it expires after a day). */
const STATUS_LIST_TTL_MS = 3_600_000;
const statusLists = new WeakMap<object, { at: number; token: Promise<string> }>();

export async function sandboxStatusList(ctx: { db: Executor; keyring: MasterKeyring; now: () => Date }): Promise<string> {
  const kept = statusLists.get(ctx.db);
  if (kept && Date.now() - kept.at < STATUS_LIST_TTL_MS) return kept.token;
  const token = Promise.all([sandboxTestIssuer(ctx), walletTestKit()]).then(([issuer, { createStatusList }]) =>
    createStatusList(issuer, [SANDBOX_STATUS_INDEX.revoked], SANDBOX_STATUS_LIST_URI),
  );
  statusLists.set(ctx.db, { at: Date.now(), token });
  token.catch(() => statusLists.delete(ctx.db));
  return token;
}
