import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { anyClientUnderLock, createClient, createFlowVersion, setSubscription, type Db, type NewSubscription } from '@idv/db';
import { STANDARD_FLOW, USAGE_SERVICES } from '@idv/domain';
import type { MasterKeyring } from '@idv/vault';
import { issueApiKey } from './services/api-keys.ts';

export interface DemoCredentials {
  client_id: string;
  flow_name: string;
  api_key: { id: string; secret: string; signing_secret: string };
}

/**
 * The demo client's contract: every service, a generous quota that only notifies, so the quick
 * start is never blocked (the sandbox never counts against a quota anyway; this holds for a
 * production key made for the demo client too).
 */
const DEMO_SUBSCRIPTION: Pick<NewSubscription, 'offer' | 'monthlyQuota' | 'overQuota'> = {
  offer: 'demo',
  monthlyQuota: 10_000,
  overQuota: 'notify',
};

/** Any constant: keeps two instances starting on one empty database from both creating a demo client. */
const BOOTSTRAP_LOCK = 7_414_022;

/**
 * On the first start against an empty database: a demo client in the sandbox with the activated
 * flow `standard`, one sandbox key holding both permissions and the DEMO_SUBSCRIPTION to every
 * service. Returns null when clients exist.
 */
export async function bootstrapDemoClient(db: Db, keyring: MasterKeyring, now: Date): Promise<DemoCredentials | null> {
  return db.transaction(async (tx) => {
    if (await anyClientUnderLock(tx, BOOTSTRAP_LOCK)) return null;
    const client = await createClient(tx, 'Demo client', now);
    const tenant = { clientId: client.id, environment: 'sandbox' as const };
    const flow = await createFlowVersion(tx, tenant, 'standard', STANDARD_FLOW, now, true);
    for (const service of USAGE_SERVICES) {
      await setSubscription(tx, { clientId: client.id, service, ...DEMO_SUBSCRIPTION, startsAt: now, endsAt: null }, now);
    }
    const key = await issueApiKey(tx, keyring, {
      ...tenant,
      name: 'demo',
      permissions: ['personal_data', 'decisions'],
      createdBy: 'system:bootstrap',
      now,
    });
    return { client_id: client.id, flow_name: flow.name, api_key: { id: key.row.id, secret: key.secret, signing_secret: key.signingSecret } };
  });
}

export function credentialsPath(dataDir: string): string {
  return join(dataDir, 'bootstrap-credentials.json');
}

/** Written once, readable by the owner only; later starts leave it as it is. */
export function writeCredentials(dataDir: string, creds: DemoCredentials): string {
  const path = credentialsPath(dataDir);
  writeFileSync(path, JSON.stringify(creds, null, 2) + '\n', { mode: 0o600 });
  return path;
}

export function hasCredentialsFile(dataDir: string): boolean {
  return existsSync(credentialsPath(dataDir));
}
