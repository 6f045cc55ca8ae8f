import { loadConfigOrExit } from '@idv/config';
import { openDatabase } from '@idv/db';
import { MasterKeyring } from '@idv/vault';
import { bootstrapDemoClient, writeCredentials } from '@idv/api/bootstrap';
import { mkdirSync } from 'node:fs';

/**
 * `npm run migrate` (the image's `migrate` role: a Helm Job, compose's one-shot `migrate`
 * service): applies the pending migrations to DATABASE_URL and exits, so that API and worker
 * processes start on a migrated database (each would otherwise migrate at start, serialised by an
 * advisory lock, which is also safe). On an empty database it creates the demo client as the
 * service's first start does, and writes its credentials to DATA_DIR (printed once here too).
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  if (!config.databaseUrl || !config.masterKey) {
    console.error('migrate needs DATABASE_URL (PostgreSQL) and MASTER_KEY: the embedded database migrates when the service starts.');
    process.exit(1);
  }
  const database = await openDatabase({ kind: 'postgres', url: config.databaseUrl, poolSize: 1 });
  try {
    const demo = await bootstrapDemoClient(database.db, new MasterKeyring(config.masterKey, config.previousMasterKeys), new Date());
    if (demo) {
      mkdirSync(config.dataDir, { recursive: true, mode: 0o700 });
      const path = writeCredentials(config.dataDir, demo);
      console.log(`Created the demo client (sandbox). Its credentials are shown once here and kept in ${path}:`);
      console.log(JSON.stringify(demo, null, 2));
    }
    console.log('migrations applied');
  } finally {
    await database.close();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
