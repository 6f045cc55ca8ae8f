import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { insertActiveOperator, type Db } from '@idv/db';
import { newId } from '@idv/domain';
import type { MasterKeyring } from '@idv/vault';
import { credentialsPath, type DemoCredentials } from './bootstrap.ts';
import { issueApiKey } from './services/api-keys.ts';

/**
 * The console's part of the first start (with the demo client): a console credential for the
 * demo client's sandbox, and, when the development provider runs, a demo administrator attached
 * to a new provider account. The credential is kept in DATA_DIR/console-credential (0600) so the
 * all-in-one start finds it again at every start; it is a secret like MASTER_KEY's file beside it,
 * and a deployment sets CONSOLE_API_KEY instead.
 */
const DEMO_LOGIN = 'admin@demo.test';

function consoleCredentialPath(dataDir: string): string {
  return join(dataDir, 'console-credential');
}

export function readConsoleCredential(dataDir: string): string | null {
  const path = consoleCredentialPath(dataDir);
  return existsSync(path) ? readFileSync(path, 'utf8').trim() : null;
}

export async function bootstrapConsole(
  db: Db,
  keyring: MasterKeyring,
  opts: { dataDir: string; demo: DemoCredentials; consoleUrl: string; now: Date; addAccount: ((login: string, password: string) => string) | null },
): Promise<{ credential: string; console: { url: string; login: string; password: string } | null }> {
  const tenant = { clientId: opts.demo.client_id, environment: 'sandbox' as const };
  const key = await issueApiKey(db, keyring, { ...tenant, kind: 'console', name: 'console', permissions: [], createdBy: 'system:bootstrap', now: opts.now });
  writeFileSync(consoleCredentialPath(opts.dataDir), key.secret + '\n', { mode: 0o600 });
  if (!opts.addAccount) return { credential: key.secret, console: null };
  const password = randomBytes(12).toString('base64url');
  const subject = opts.addAccount(DEMO_LOGIN, password);
  await insertActiveOperator(db, tenant, { id: newId('op', opts.now.getTime()), name: 'Demo administrator', role: 'administrator', subject, createdBy: 'system:bootstrap' }, opts.now);
  const console = { url: opts.consoleUrl, login: DEMO_LOGIN, password };
  // Beside the API key in bootstrap-credentials.json (0600), shown once like it.
  const path = credentialsPath(opts.dataDir);
  const creds = existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : {};
  writeFileSync(path, JSON.stringify({ ...creds, console }, null, 2) + '\n', { mode: 0o600 });
  chmodSync(path, 0o600);
  return { credential: key.secret, console };
}
