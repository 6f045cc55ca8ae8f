import { insertApiKey, type ApiKeyRow, type Environment, type Executor, type KeyKind, type Permission } from '@idv/db';
import { newId } from '@idv/domain';
import { randomSecret, secretHash, type MasterKeyring } from '@idv/vault';

export interface IssuedKey<K extends KeyKind = KeyKind> {
  row: ApiKeyRow;
  /** Shown once: only its hash is stored. */
  secret: string;
  /**
   * Shown once: stored sealed under the master key. None for a console credential, which signs
   * nothing: it acts for operators, whose routes are not signed (docs/operators.md).
   */
  signingSecret: K extends 'console' ? null : string;
}

const KEY_PREFIX: Record<Environment, string> = { sandbox: 'sk_sandbox_', prod: 'sk_live_' };

/** Creates a key; shared by the API route, the first-start bootstrap and the admin command. */
export async function issueApiKey<K extends KeyKind = 'integration'>(
  db: Executor,
  keyring: MasterKeyring,
  spec: { clientId: string; environment: Environment; kind?: K; name?: string | null; permissions: Permission[]; createdBy: string; now: Date },
): Promise<IssuedKey<K>> {
  const id = newId('key', spec.now.getTime());
  const kind: KeyKind = spec.kind ?? 'integration';
  const secret = randomSecret(KEY_PREFIX[spec.environment]);
  // The column is required: a console credential's holds a random secret that is shown to no one
  // and never checked (the service refuses a console credential on every signed integration route
  // before the signature, and does not read a signature from it where it acts for an operator).
  const signingSecret = randomSecret('ssec_');
  const row = await insertApiKey(db, {
    id,
    clientId: spec.clientId,
    environment: spec.environment,
    kind,
    name: spec.name ?? null,
    secretHash: secretHash(secret),
    secretPrefix: secret.slice(0, KEY_PREFIX[spec.environment].length + 4),
    signingSecretSealed: keyring.seal(signingSecret, `api_key:${id}:signing`),
    permissions: [...new Set(spec.permissions)].sort(),
    createdBy: spec.createdBy,
    createdAt: spec.now,
  });
  return { row, secret, signingSecret: (kind === 'console' ? null : signingSecret) as IssuedKey<K>['signingSecret'] };
}
