import { envReader, type ConfigVariable } from '@idv/config';

/**
 * The console server's own environment, when it runs alone (`npm run console`). Under `npm start`
 * the service's process builds the same settings from its configuration (see
 * apps/server/src/console.ts).
 */
export interface ConsoleConfig {
  consoleUrl: string;
  /** The port the console server listens on: CONSOLE_PORT, else CONSOLE_URL's port. */
  port: number;
  apiBaseUrl: string;
  docsUrl: string;
  host: string;
  /** The console credential, an API key of kind console. */
  apiKey: string;
  oidc: { issuer: string; clientId: string; clientSecret: string; scopes: string };
  /** The database holding sessions (shared by every console instance): DATABASE_URL, else PGlite in DATA_DIR/console. */
  databaseUrl: string | null;
  dataDir: string;
  masterKey: Buffer;
  previousMasterKeys: Buffer[];
  reauthMaxAgeS: number;
  logLevel: string;
}

export function loadConsoleConfig(env: NodeJS.ProcessEnv = process.env): ConsoleConfig {
  const problems: string[] = [];
  // The service's readers: one validation of the URLs, master keys, data directory and log level.
  const read = envReader(env, problems);
  const required = (name: ConfigVariable): string => {
    const v = env[name];
    if (!v) problems.push(`${name} is required`);
    return v ?? '';
  };
  const apiKey = required('CONSOLE_API_KEY') && (read.consoleApiKey() ?? '');
  const masterKey = required('MASTER_KEY') ? read.masterKey('MASTER_KEY') : null;
  const consoleUrl = read.url('CONSOLE_URL', 'http://localhost:8082');
  const config: ConsoleConfig = {
    consoleUrl,
    port: read.listenPort('CONSOLE_PORT', consoleUrl),
    apiBaseUrl: read.url('API_BASE_URL', 'http://localhost:8080'),
    docsUrl: read.url('DOCS_URL', 'http://localhost:8083'),
    host: env.HOST || '127.0.0.1',
    apiKey,
    oidc: {
      issuer: required('OIDC_ISSUER') && read.url('OIDC_ISSUER', ''),
      clientId: required('OIDC_CLIENT_ID'),
      clientSecret: required('OIDC_CLIENT_SECRET'),
      scopes: env.OIDC_SCOPES ?? '',
    },
    databaseUrl: env.DATABASE_URL || null,
    dataDir: read.dataDir(),
    masterKey: masterKey ?? Buffer.alloc(32),
    previousMasterKeys: read.masterKeys('MASTER_KEYS_PREVIOUS'),
    reauthMaxAgeS: read.reauthMaxAgeS(),
    logLevel: read.logLevel(),
  };
  if (config.consoleUrl.startsWith('http:') && env.NODE_ENV === 'production') problems.push('CONSOLE_URL must be https in production (the session cookie is Secure)');
  if (problems.length) throw new Error(`invalid console configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return config;
}
