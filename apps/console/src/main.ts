import { join } from 'node:path';
import { openDatabase } from '@idv/db';
import { MasterKeyring } from '@idv/vault';
import pino from 'pino';
import { loadConsoleConfig } from './config.ts';
import { loadAssets } from './load-assets.ts';
import { createConsoleServer } from './server/index.ts';

/**
 * `npm run console`: the console server alone, for deployments where it runs apart from the
 * service (several instances share sessions through DATABASE_URL). Needs CONSOLE_API_KEY,
 * MASTER_KEY and the provider's OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET.
 */
async function main(): Promise<void> {
  const config = loadConsoleConfig();
  const log = pino({ level: config.logLevel });
  const database = await openDatabase(config.databaseUrl ? { kind: 'postgres', url: config.databaseUrl } : { kind: 'pglite', dataDir: join(config.dataDir, 'console') });
  const console_ = await createConsoleServer({
    assets: await loadAssets(),
    apiBaseUrl: config.apiBaseUrl,
    consoleCredential: config.apiKey,
    oidc: config.oidc,
    consoleUrl: config.consoleUrl,
    docsUrl: config.docsUrl,
    db: database.db,
    keyring: new MasterKeyring(config.masterKey, config.previousMasterKeys),
    logger: log,
    reauthMaxAgeS: config.reauthMaxAgeS,
  });
  await new Promise<void>((resolve) => console_.server.listen(config.port, config.host, resolve));
  log.info({ console: config.consoleUrl }, 'console started');
  const stop = async () => {
    await console_.close();
    await database.close();
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
}

if (import.meta.url === `file://${process.argv[1]}`) {
  main().catch((err: Error) => {
    console.error(err.message);
    process.exit(1);
  });
}
