import { insertApiKey, type ApiKeyRow, type Environment, type Executor, type KeyKind, type Permission } from '@idv/db';
import { newId } from '@idv/domain';
import { randomSecret, secretHash, type MasterKeyring } from '@idv/vault';

export interface IssuedKey {
  row: ApiKeyRow;
  /** Shown once: only its hash is stored. */
  secret: string;
  /** Shown once: stored sealed under the master key. */
  signingSecret: string;
}

const KEY_PREFIX: Record<Environment, string> = { sandbox: 'sk_sandbox_', prod: 'sk_live_' };

/** Creates a key; shared by the API route, the first-start bootstrap and the admin command. */
export async function issueApiKey(
  db: Executor,
  keyring: MasterKeyring,
  spec: { clientId: string; environment: Environment; kind?: KeyKind; name?: string | null; permissions: Permission[]; createdBy: string; now: Date },
): Promise<IssuedKey> {
  const id = newId('key', spec.now.getTime());
  const secret = randomSecret(KEY_PREFIX[spec.environment]);
  const signingSecret = randomSecret('ssec_');
  const row = await insertApiKey(db, {
    id,
    clientId: spec.clientId,
    environment: spec.environment,
    kind: spec.kind ?? 'integration',
    name: spec.name ?? null,
    secretHash: secretHash(secret),
    secretPrefix: secret.slice(0, KEY_PREFIX[spec.environment].length + 4),
    signingSecretSealed: keyring.seal(signingSecret, `api_key:${id}:signing`),
    permissions: [...new Set(spec.permissions)].sort(),
    createdBy: spec.createdBy,
    createdAt: spec.now,
  });
  return { row, secret, signingSecret };
}
