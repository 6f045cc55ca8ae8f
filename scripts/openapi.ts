// Generates the OpenAPI document from the routes' own schemas into openapi/openapi.json.
// `npm run openapi -- --check` fails when the committed document differs (CI runs it).
import { readFileSync, writeFileSync } from 'node:fs';
import { build } from '@idv/api';
import { openDatabase } from '@idv/db';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import { loadConfig } from '../apps/api/src/config.ts';

const target = new URL('../openapi/openapi.json', import.meta.url);
const database = await openDatabase({ kind: 'pglite', memory: true });
const config = loadConfig({ LOG_LEVEL: 'silent', DOCS_URL: 'https://docs.example.com' });
const { app } = await build({ config, db: database.db, keyring: new MasterKeyring(Buffer.from(generateMasterKey(), 'base64')), logger: false });
const text = JSON.stringify(app.swagger(), null, 2) + '\n';
await app.close();
await database.close();

if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing counts as different
  }
  if (committed !== text) {
    console.error('openapi/openapi.json is out of date: run `npm run openapi` and commit the result.');
    process.exit(1);
  }
  console.log('openapi/openapi.json is up to date');
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target.pathname}`);
}
