import { createClient, createFlowVersion, type Environment, type KeyKind, type Permission } from '@idv/db';
import { STANDARD_FLOW } from '@idv/domain';
import { issueApiKey } from '../../apps/api/src/services/api-keys.ts';
import type { ConsoleCredentials, Credentials, TestApp } from './app.ts';

/** Issues a key directly (as the admin command would), for a client and environment of the test's choosing. */
export async function issueKey<K extends KeyKind = 'integration'>(
  t: TestApp,
  spec: { clientId: string; environment?: Environment; kind?: K; permissions?: Permission[]; name?: string },
): Promise<K extends 'console' ? ConsoleCredentials : Credentials> {
  const issued = await issueApiKey(t.database.db, t.ctx.keyring, {
    clientId: spec.clientId,
    environment: spec.environment ?? 'sandbox',
    kind: spec.kind,
    name: spec.name ?? null,
    permissions: spec.permissions ?? [],
    createdBy: 'test',
    now: t.clock.now(),
  });
  return { id: issued.row.id, secret: issued.secret, signingSecret: issued.signingSecret } as K extends 'console' ? ConsoleCredentials : Credentials;
}

/** An activated `standard` flow for a client in an environment. */
export async function activateStandardFlow(t: TestApp, clientId: string, environment: Environment): Promise<void> {
  await t.database.db.transaction((tx) => createFlowVersion(tx, { clientId, environment }, 'standard', STANDARD_FLOW, t.clock.now(), true));
}

/** A second client with its own activated `standard` flow and one sandbox key holding both permissions. */
export async function otherClient(t: TestApp): Promise<{ clientId: string; key: Credentials }> {
  const client = await createClient(t.database.db, 'Other client', t.clock.now());
  await activateStandardFlow(t, client.id, 'sandbox');
  const key = await issueKey(t, { clientId: client.id, permissions: ['personal_data', 'decisions'] });
  return { clientId: client.id, key };
}
