import { resolve } from 'node:path';
import { parseMasterKey } from '@idv/vault';

/**
 * The console server's own environment, when it runs alone (`npm run console`). Under `npm start`
 * the service's process builds the same settings from its configuration (see
 * apps/server/src/console.ts).
 */
export interface ConsoleConfig {
  consoleUrl: string;
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
  const required = (name: string): string => {
    const v = env[name];
    if (!v) problems.push(`${name} is required`);
    return v ?? '';
  };
  const url = (name: string, fallback: string): string => {
    const raw = env[name] || fallback;
    try {
      const u = new URL(raw);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      problems.push(`${name} must be an http(s) URL (got "${raw}")`);
    }
    return raw.replace(/\/+$/, '');
  };
  const key = (raw: string, name: string): Buffer => {
    try {
      return parseMasterKey(raw);
    } catch (err) {
      problems.push(`${name} ${(err as Error).message}`);
      return Buffer.alloc(32);
    }
  };
  const apiKey = required('CONSOLE_API_KEY');
  if (apiKey && !/^sk_(sandbox|live)_/.test(apiKey)) problems.push('CONSOLE_API_KEY must be an API key of kind console (sk_sandbox_… or sk_live_…)');
  const masterKey = key(required('MASTER_KEY'), 'MASTER_KEY');
  const maxAge = Number(env.REAUTH_MAX_AGE_S || 300);
  if (!Number.isInteger(maxAge) || maxAge < 30 || maxAge > 3600) problems.push('REAUTH_MAX_AGE_S must be an integer from 30 to 3600');
  const config: ConsoleConfig = {
    consoleUrl: url('CONSOLE_URL', 'http://localhost:8082'),
    apiBaseUrl: url('API_BASE_URL', 'http://localhost:8080'),
    docsUrl: url('DOCS_URL', 'http://localhost:8083'),
    host: env.HOST || '127.0.0.1',
    apiKey,
    oidc: { issuer: url('OIDC_ISSUER', ''), clientId: required('OIDC_CLIENT_ID'), clientSecret: required('OIDC_CLIENT_SECRET'), scopes: env.OIDC_SCOPES ?? '' },
    databaseUrl: env.DATABASE_URL || null,
    dataDir: resolve(env.DATA_DIR || './.data'),
    masterKey,
    previousMasterKeys: (env.MASTER_KEYS_PREVIOUS ?? '').split(',').filter(Boolean).map((k, i) => key(k, `MASTER_KEYS_PREVIOUS entry ${i + 1}`)),
    reauthMaxAgeS: maxAge,
    logLevel: env.LOG_LEVEL || 'info',
  };
  if (config.consoleUrl.startsWith('http:') && env.NODE_ENV === 'production') problems.push('CONSOLE_URL must be https in production (the session cookie is Secure)');
  if (problems.length) throw new Error(`invalid console configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  return config;
}
