import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateMasterKey, parseMasterKey } from '@idv/vault';

/**
 * With the embedded database and no MASTER_KEY, a key is generated once into the data directory
 * (mode 0600) so that the quick start needs no setup. Production sets MASTER_KEY (required with
 * DATABASE_URL), ideally from a secrets manager, and never stores it beside the data.
 */
export function localMasterKey(dataDir: string): { key: Buffer; created: boolean; path: string } {
  const path = join(dataDir, 'master.key');
  if (existsSync(path)) return { key: parseMasterKey(readFileSync(path, 'utf8')), created: false, path };
  const text = generateMasterKey();
  writeFileSync(path, text + '\n', { mode: 0o600, flag: 'wx' });
  return { key: parseMasterKey(text), created: true, path };
}
