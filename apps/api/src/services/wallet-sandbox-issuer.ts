import { findWalletSandboxIssuer, insertWalletSandboxIssuer, type Executor } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import type { TrustAnchor } from '@idv/wallet';
import { createTestIssuer, loadTestIssuer, saveTestIssuer, type TestIssuer } from '@idv/wallet/testing';

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
