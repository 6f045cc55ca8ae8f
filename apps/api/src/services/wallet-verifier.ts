import { appendClientJournal, findClient, findWalletVerifier, insertWalletVerifier, type Executor, type Tenant, type WalletVerifierRow } from '@idv/db';
import type { MasterKeyring } from '@idv/vault';
import type { VerifierIdentity } from '@idv/wallet';
import { walletLibrary } from './wallet-library.ts';

/**
 * The verifier identity a client's wallet requests are signed with (OpenID4VP client identifier
 * `x509_san_dns:<host>`), per client and environment: a P-256 key and a self-signed certificate
 * whose dNSName is the public API host (API_BASE_URL), where the wallet fetches the request and
 * posts its answer. Generated on the first wallet request and stored, the private key sealed with
 * the master keyring as webhook secrets are (aad `wallet_verifier:<client>:<environment>`);
 * journaled `wallet_verifier.created`.
 */

const aad = (t: Tenant) => `wallet_verifier:${t.clientId}:${t.environment}`;

/** The public host of the API (no port: a dNSName), from the configured base URL. */
function verifierDnsName(apiBaseUrl: string): string {
  return new URL(apiBaseUrl).hostname;
}

const PEM = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

function identityOf(row: WalletVerifierRow, keyring: MasterKeyring, dnsName: string): VerifierIdentity {
  return {
    privateJwk: JSON.parse(keyring.openText(row.privateKeySealed, aad(row))) as JsonWebKey,
    certificateChainPem: row.certificateChainPem.match(PEM) ?? [],
    dnsName,
    clientId: `x509_san_dns:${dnsName}`,
  };
}

export async function walletVerifierFor(tx: Executor, keyring: MasterKeyring, tenant: Tenant, apiBaseUrl: string, now: Date): Promise<VerifierIdentity> {
  const dnsName = verifierDnsName(apiBaseUrl);
  const stored = await findWalletVerifier(tx, tenant);
  if (stored) return identityOf(stored, keyring, dnsName);
  const client = await findClient(tx, tenant.clientId);
  const { generateVerifierIdentity } = await walletLibrary();
  const made = await generateVerifierIdentity({ dnsName, organisation: client?.name ?? tenant.clientId, validDays: 3650 });
  const { row, created } = await insertWalletVerifier(tx, {
    clientId: tenant.clientId,
    environment: tenant.environment,
    certificateChainPem: made.certificateChainPem.join('\n'),
    privateKeySealed: keyring.seal(JSON.stringify(made.privateJwk), aad(tenant)),
    createdAt: now,
  });
  if (created) {
    await appendClientJournal(tx, tenant, { actor: 'system', action: 'wallet_verifier.created', detail: { dns_name: dnsName }, at: now });
  }
  return identityOf(row, keyring, dnsName);
}
