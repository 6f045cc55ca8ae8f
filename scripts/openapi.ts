// Generates the OpenAPI document from the routes' own schemas into openapi/openapi.json, with
// every operation's code samples.
// `npm run openapi -- --check` fails when the committed document differs (CI runs it).
import { build } from '@idv/api';
import { openDatabase } from '@idv/db';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import { loadConfig } from '@idv/config';
import { IdvClient } from '@idv/sdk';
import { withCodeSamples } from './code-samples/generate.ts';
import { writeOrCheck } from './generated-file.ts';

const target = new URL('../openapi/openapi.json', import.meta.url);
const database = await openDatabase({ kind: 'pglite', memory: true });
const config = loadConfig({ LOG_LEVEL: 'silent', DOCS_URL: 'https://docs.example.com' });
const { app } = await build({ config, db: database.db, keyring: new MasterKeyring(Buffer.from(generateMasterKey(), 'base64')), logger: false });
// Each operation's curl and Node.js samples (scripts/code-samples), shown by the reference.
const sdkMethods = new Set(Object.getOwnPropertyNames(IdvClient.prototype));
const text = JSON.stringify(withCodeSamples(app.swagger() as unknown as Parameters<typeof withCodeSamples>[0], sdkMethods), null, 2) + '\n';
await app.close();
await database.close();

writeOrCheck(target, text, 'npm run openapi');
