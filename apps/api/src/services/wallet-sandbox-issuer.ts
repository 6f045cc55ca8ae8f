import { findWalletSandboxIssuer, insertWalletSandboxIssuer, type Executor } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import type { TrustAnchor } from '@idv/wallet';
import { createTestIssuer, type TestIssuer } from '@idv/wallet/testing';

/**
 * The sandbox ships a test issuer (docs/wallet.md#the-sandbox-test-issuer): generated once per
 * installation on first use (`createTestIssuer`), stored in `wallet_sandbox_issuer` with its
 * private material sealed under the master keyring, and trusted in the sandbox environment only,
 * beside the client's own anchors. Every instance of the installation reads the same row.
 */

const aad = 'wallet_sandbox_issuer:sandbox';
const NAME = 'IDV sandbox test issuer';

/** Per database (one per app; tests start several): read once, kept for the process. */
const cache = new WeakMap<object, Promise<TestIssuer>>();

async function loadOrCreate(db: Executor, keyring: MasterKeyring, now: () => Date): Promise<TestIssuer> {
  const stored = await findWalletSandboxIssuer(db);
  if (stored) return JSON.parse(keyring.openText(stored.issuerSealed, aad)) as TestIssuer;
  const made = await createTestIssuer({ name: NAME, country: 'UT' });
  const row = await insertWalletSandboxIssuer(db, {
    iacaPem: made.iacaPem,
    sdJwtIssuerPem: made.sdJwtIssuerPem,
    issuerSealed: keyring.seal(JSON.stringify(made), aad),
    createdAt: now(),
  });
  return JSON.parse(keyring.openText(row.issuerSealed, aad)) as TestIssuer;
}

/** The installation's sandbox test issuer, with its private material (to issue test credentials). */
export function sandboxTestIssuer(ctx: { db: Executor; keyring: MasterKeyring; now: () => Date }): Promise<TestIssuer> {
  let issuer = cache.get(ctx.db);
  if (!issuer) {
    issuer = loadOrCreate(ctx.db, ctx.keyring, ctx.now).catch((err) => {
      cache.delete(ctx.db);
      throw err;
    });
    cache.set(ctx.db, issuer);
  }
  return issuer;
}

/** What the sandbox trusts beside the client's anchors: the test issuer's IACA and SD-JWT VC issuer certificates. */
export async function sandboxTrustAnchors(ctx: { db: Executor; keyring: MasterKeyring; now: () => Date }): Promise<TrustAnchor[]> {
  const issuer = await sandboxTestIssuer(ctx);
  return [
    { kind: 'iaca', certificatePem: issuer.iacaPem },
    { kind: 'sd_jwt_issuer', certificatePem: issuer.sdJwtIssuerPem },
  ];
}
