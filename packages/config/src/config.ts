import { resolve } from 'node:path';
import { parseMasterKey } from '@idv/vault';
import { DEFAULT_WEBHOOK_SETTINGS, RETRY_COUNT, type WebhookSettings } from '@idv/webhooks';
import { productionProblems } from './production.ts';

export interface Config {
  port: number;
  host: string;
  /** GET /metrics (Prometheus) on this port of HOST, apart from the API; 0: not served (docs/metrics.md). */
  metricsPort: number;
  dataDir: string;
  /** PostgreSQL server; absent means the embedded PGlite database in dataDir. */
  databaseUrl: string | null;
  /**
   * Where sealed images go (BLOB_STORE): files under dataDir/blobs (default), or the database
   * (`postgres`), so that machines share nothing but PostgreSQL. See docs/personal-data.md.
   */
  blobStore: 'file' | 'postgres';
  apiBaseUrl: string;
  journeyUrl: string;
  consoleUrl: string;
  docsUrl: string;
  /**
   * The ports the journey, console and docs servers listen on: their URL's port unless
   * JOURNEY_PORT, CONSOLE_PORT, DOCS_PORT say otherwise (a container behind a load balancer serves
   * https://verify.example on 443 from an unprivileged port of its own).
   */
  listenPorts: { journey: number; console: number; docs: number };
  /** Absent only with the embedded database, where a key is kept in dataDir (see master-key-file.ts). */
  masterKey: Buffer | null;
  previousMasterKeys: Buffer[];
  logLevel: string;
  /** Test seams: the spec's values are the defaults. */
  signatureToleranceS: number;
  idempotencyLockMs: number;
  /** How long a worker's claim holds a check job; past it (a worker that died) another worker runs the job. */
  checksLeaseMs: number;
  idempotencyRetainMs: number;
  /**
   * Verification of operator re-authentication (X-Service-Reauthenticated-At carries an OIDC ID
   * token of the console's identity provider): null when OIDC_* variables are not set, and then
   * every action that needs a re-authentication is refused.
   */
  reauth: ReauthConfig | null;
  /** Webhook dispatcher settings; the spec's values are the defaults (WEBHOOK_* variables). */
  webhooks: WebhookSettings;
  /** Run the webhook dispatcher inside this process (default); false when separate workers run (`npm run worker`). */
  runWorker: boolean;
  /**
   * Load the checks' models on every thread as the worker starts (CHECKS_WARM_UP, default true).
   * False only where no check will run (the test suite's services that never see a photo): it
   * saves their CPU; production refuses it, so the first real case is never the one that waits.
   */
  checksWarmUp: boolean;
  /**
   * The checks pool's threads (CHECKS_THREADS, 1 to 32; null: the machine's cores, at most 4).
   * A container whose CPU is limited by its quota still sees every core of its host: set it to
   * the cores it may use, or its threads share them and each case takes longer.
   */
  checksThreads: number | null;
  /**
   * The journey offers its pseudo-locale (long accented texts, `?locale=en-XA` on a link) for
   * layout tests (JOURNEY_PSEUDO_LOCALE); never in production.
   */
  journeyPseudoLocale: boolean;
  /** The operator console's settings under `npm start` (docs/console.md). */
  console: ConsoleSettings;
  /** Redis shared by every instance (REDIS_URL); null: each process keeps its counters in memory. */
  redisUrl: string | null;
  /**
   * Fastify's trustProxy: which proxies in front of the service (true: any; or their addresses and
   * CIDR ranges) may name the client's address in X-Forwarded-For, the address the per-address
   * limit counts. False: the connection's address.
   */
  trustProxy: boolean | string;
  /** Request rate limits (docs/rate-limits.md). */
  rateLimits: RateLimitSettings;
}

/** Requests allowed per window (RATE_LIMIT_* variables); generous by default, off for benchmarks. */
export interface RateLimitSettings {
  enabled: boolean;
  windowS: number;
  /** Per integration API key. */
  perKey: number;
  /** Per operator named in X-Service-Operator by a console credential. */
  perOperator: number;
  /** Per console credential, all its operators together. */
  perConsoleCredential: number;
  /** Per journey session (the person's browser). */
  perSession: number;
  /** Refused authentications (401) per client address; past it every request from there gets 429 until the window ends. */
  unauthenticatedPerIp: number;
  /** Prefix of the counters' keys in Redis (several deployments, or test runs, may share one Redis). */
  redisPrefix: string;
}

interface ConsoleSettings {
  /** The development identity provider's issuer, run by `npm start` when OIDC_ISSUER is not set (outside production). */
  idpUrl: string;
  /** The console credential (API key of kind console); null means the one written in DATA_DIR at the first start. */
  apiKey: string | null;
  /** The console's registration at the identity provider (with OIDC_ISSUER). */
  clientId: string;
  clientSecret: string;
  /** Extra scopes, space separated, beyond `openid profile`. */
  scopes: string;
  /** NODE_ENV is production: the development identity provider never runs. */
  production: boolean;
}

export interface ReauthConfig {
  issuer: string;
  jwksUrl: string;
  /** The console's client id at the identity provider (the ID token's `aud`). */
  audience: string;
  /** How old `auth_time` may be, in seconds (spec: five minutes). */
  maxAgeS: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
  }
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** For process entry points: the configuration, or every problem printed and exit code 1. */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    console.error(err.message);
    process.exit(1);
  }
}

/**
 * Every environment variable the service's loader (loadConfig) and the console's
 * (apps/console/src/config.ts) read: each is in .env.example and docs/configuration.md
 * (tests/config/variables.test.ts holds the three together).
 */
export const CONFIG_VARIABLES = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'METRICS_PORT',
  'DATA_DIR',
  'DATABASE_URL',
  'BLOB_STORE',
  'MASTER_KEY',
  'MASTER_KEYS_PREVIOUS',
  'API_BASE_URL',
  'JOURNEY_URL',
  'CONSOLE_URL',
  'DOCS_URL',
  'JOURNEY_PORT',
  'CONSOLE_PORT',
  'DOCS_PORT',
  'LOG_LEVEL',
  'SIGNATURE_TOLERANCE_S',
  'IDEMPOTENCY_LOCK_MS',
  'IDEMPOTENCY_RETAIN_MS',
  'CHECKS_LEASE_MS',
  'CHECKS_WARM_UP',
  'CHECKS_THREADS',
  'RUN_WORKER',
  'JOURNEY_PSEUDO_LOCALE',
  'WEBHOOK_RETRY_DELAYS_MS',
  'WEBHOOK_TIMEOUT_MS',
  'WEBHOOK_POLL_MS',
  'WEBHOOK_CONCURRENCY',
  'WEBHOOK_LEASE_MS',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'IDP_URL',
  'CONSOLE_API_KEY',
  'OIDC_ISSUER',
  'OIDC_JWKS_URL',
  'OIDC_AUDIENCE',
  'OIDC_CLIENT_ID',
  'OIDC_CLIENT_SECRET',
  'OIDC_SCOPES',
  'REAUTH_MAX_AGE_S',
  'REDIS_URL',
  'TRUST_PROXY',
  'RATE_LIMIT_ENABLED',
  'RATE_LIMIT_WINDOW_S',
  'RATE_LIMIT_PER_KEY',
  'RATE_LIMIT_PER_OPERATOR',
  'RATE_LIMIT_PER_CONSOLE_CREDENTIAL',
  'RATE_LIMIT_PER_SESSION',
  'RATE_LIMIT_UNAUTHENTICATED_PER_IP',
  'RATE_LIMIT_REDIS_PREFIX',
] as const;

export type ConfigVariable = (typeof CONFIG_VARIABLES)[number];

/**
 * The readers of the environment both loaders use, one validation for each kind of value: a
 * problem is recorded in `problems` (every problem is then reported at once) and the fallback
 * returned.
 */
export function envReader(env: NodeJS.ProcessEnv, problems: string[]) {
  const int = (name: ConfigVariable, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isInteger(n) || n < min || n > max) {
      problems.push(`${name} must be an integer from ${min} to ${max} (got "${raw}")`);
      return fallback;
    }
    return n;
  };
  /** An http(s) URL without query or fragment, without its trailing slashes. */
  const url = (name: ConfigVariable, fallback: string): string => {
    const raw = env[name] || fallback;
    try {
      const u = new URL(raw);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
      if (u.search || u.hash) problems.push(`${name} must not carry a query or fragment (got "${raw}")`);
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(`${name} must be an http(s) URL (got "${raw}")`);
      return fallback;
    }
  };
  /** A master key (32 bytes in base64), null when not set. */
  const masterKey = (name: ConfigVariable): Buffer | null => {
    const raw = env[name];
    if (!raw) return null;
    try {
      return parseMasterKey(raw);
    } catch (err) {
      problems.push(`${name} ${(err as Error).message}`);
      return null;
    }
  };
  /** Master keys separated by commas. */
  const masterKeys = (name: ConfigVariable): Buffer[] =>
    (env[name] ?? '')
      .split(',')
      .filter(Boolean)
      .flatMap((raw, i) => {
        try {
          return [parseMasterKey(raw)];
        } catch (err) {
          problems.push(`${name} entry ${i + 1} ${(err as Error).message}`);
          return [];
        }
      });
  const bool = (name: ConfigVariable, fallback: boolean): boolean => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    if (raw === 'true' || raw === '1') return true;
    if (raw === 'false' || raw === '0') return false;
    problems.push(`${name} must be true or false (got "${raw}")`);
    return fallback;
  };
  const dataDir = (): string => resolve(env.DATA_DIR || './.data');
  const logLevel = (): string => {
    const level = env.LOG_LEVEL || 'info';
    if (!LOG_LEVELS.includes(level)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
    return level;
  };
  /** A console credential: an API key of kind console. */
  const consoleApiKey = (): string | null => {
    const key = env.CONSOLE_API_KEY || null;
    if (key && !/^sk_(sandbox|live)_/.test(key)) problems.push('CONSOLE_API_KEY must be an API key of kind console (sk_sandbox_… or sk_live_…)');
    return key;
  };
  /** The port a server whose public address is `publicUrl` listens on: `name` when set, else the URL's port. */
  const listenPort = (name: ConfigVariable, publicUrl: string): number => {
    const u = new URL(publicUrl);
    return int(name, Number(u.port || (u.protocol === 'https:' ? 443 : 80)), 1, 65535);
  };
  /** REAUTH_MAX_AGE_S: how old an operator's authentication may be for a sensitive action (spec: five minutes). */
  const reauthMaxAgeS = (): number => int('REAUTH_MAX_AGE_S', 300, 30, 3600);
  return { int, url, masterKey, masterKeys, bool, dataDir, logLevel, consoleApiKey, reauthMaxAgeS, listenPort };
}

/** Reads and validates the environment once at start; every problem is reported at once. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const { int, url, masterKey: key, masterKeys, bool, dataDir, logLevel: readLogLevel, consoleApiKey, reauthMaxAgeS, listenPort } = envReader(env, problems);
  const retryDelays = (name: ConfigVariable): readonly number[] => {
    const raw = env[name];
    if (raw === undefined || raw === '') return DEFAULT_WEBHOOK_SETTINGS.retryDelaysMs;
    const delays = raw.split(',').map((d) => Number(d.trim()));
    if (delays.length !== RETRY_COUNT || delays.some((d) => !Number.isInteger(d) || d < 1 || d > 7 * 24 * 3_600_000)) {
      problems.push(`${name} must list ${RETRY_COUNT} delays in milliseconds separated by commas (got "${raw}")`);
      return DEFAULT_WEBHOOK_SETTINGS.retryDelaysMs;
    }
    return delays;
  };

  const trustProxy = (name: ConfigVariable): boolean | string => {
    const raw = env[name];
    if (raw === undefined || raw === '' || raw === 'false') return false;
    if (raw === 'true') return true;
    if (!/^[0-9A-Fa-f.:/]+(,[0-9A-Fa-f.:/]+)*$/.test(raw)) {
      problems.push(`${name} must be true, false, or addresses and CIDR ranges separated by commas (got "${raw}")`);
      return false;
    }
    return raw;
  };

  const port = int('PORT', 8080, 0, 65535);
  const metricsPort = int('METRICS_PORT', 9464, 0, 65535);
  if (metricsPort !== 0 && metricsPort === port) problems.push('METRICS_PORT must differ from PORT (the metrics are served apart from the API), or be 0 to serve none');
  const databaseUrl = env.DATABASE_URL || null;
  if (databaseUrl && !/^postgres(ql)?:\/\//.test(databaseUrl)) problems.push('DATABASE_URL must start with postgres:// or postgresql://');
  const masterKey = key('MASTER_KEY');
  if (databaseUrl && !masterKey && !env.MASTER_KEY) {
    problems.push('MASTER_KEY is required with DATABASE_URL (32 bytes in base64: openssl rand -base64 32)');
  }
  const previousMasterKeys = masterKeys('MASTER_KEYS_PREVIOUS');
  const blobStore = env.BLOB_STORE || 'file';
  if (blobStore !== 'file' && blobStore !== 'postgres') problems.push(`BLOB_STORE must be file or postgres (got "${blobStore}")`);
  const logLevel = readLogLevel();

  const journeyUrl = url('JOURNEY_URL', 'http://localhost:8081');
  const consoleUrl = url('CONSOLE_URL', 'http://localhost:8082');
  const docsUrl = url('DOCS_URL', 'http://localhost:8083');
  const config: Config = {
    port,
    host: env.HOST || '127.0.0.1',
    metricsPort,
    dataDir: dataDir(),
    databaseUrl,
    blobStore: blobStore === 'postgres' ? 'postgres' : 'file',
    apiBaseUrl: url('API_BASE_URL', `http://localhost:${port}`),
    journeyUrl,
    consoleUrl,
    docsUrl,
    listenPorts: { journey: listenPort('JOURNEY_PORT', journeyUrl), console: listenPort('CONSOLE_PORT', consoleUrl), docs: listenPort('DOCS_PORT', docsUrl) },
    masterKey,
    previousMasterKeys,
    logLevel,
    signatureToleranceS: int('SIGNATURE_TOLERANCE_S', 300, 1, 3600),
    idempotencyLockMs: int('IDEMPOTENCY_LOCK_MS', 60_000, 100, 3_600_000),
    checksLeaseMs: int('CHECKS_LEASE_MS', 120_000, 5_000, 3_600_000),
    idempotencyRetainMs: int('IDEMPOTENCY_RETAIN_MS', 24 * 3_600_000, 1000, 7 * 24 * 3_600_000),
    reauth: null,
    webhooks: {
      ...DEFAULT_WEBHOOK_SETTINGS,
      retryDelaysMs: retryDelays('WEBHOOK_RETRY_DELAYS_MS'),
      timeoutMs: int('WEBHOOK_TIMEOUT_MS', DEFAULT_WEBHOOK_SETTINGS.timeoutMs, 50, 30_000),
      pollMs: int('WEBHOOK_POLL_MS', DEFAULT_WEBHOOK_SETTINGS.pollMs, 10, 60_000),
      concurrency: int('WEBHOOK_CONCURRENCY', DEFAULT_WEBHOOK_SETTINGS.concurrency, 1, 256),
      leaseMs: int('WEBHOOK_LEASE_MS', DEFAULT_WEBHOOK_SETTINGS.leaseMs, 1_000, 3_600_000),
      allowPrivateNetworks: bool('WEBHOOK_ALLOW_PRIVATE_NETWORKS', false),
    },
    runWorker: bool('RUN_WORKER', true),
    checksWarmUp: bool('CHECKS_WARM_UP', true),
    checksThreads: env.CHECKS_THREADS ? int('CHECKS_THREADS', 1, 1, 32) : null,
    journeyPseudoLocale: bool('JOURNEY_PSEUDO_LOCALE', false),
    console: {
      idpUrl: url('IDP_URL', 'http://localhost:8084'),
      apiKey: consoleApiKey(),
      clientId: env.OIDC_CLIENT_ID || env.OIDC_AUDIENCE || '',
      clientSecret: env.OIDC_CLIENT_SECRET ?? '',
      scopes: env.OIDC_SCOPES ?? '',
      production: env.NODE_ENV === 'production',
    },
    redisUrl: env.REDIS_URL || null,
    trustProxy: trustProxy('TRUST_PROXY'),
    rateLimits: {
      enabled: bool('RATE_LIMIT_ENABLED', true),
      windowS: int('RATE_LIMIT_WINDOW_S', 60, 1, 3600),
      perKey: int('RATE_LIMIT_PER_KEY', 6000, 1, 10_000_000),
      perOperator: int('RATE_LIMIT_PER_OPERATOR', 1200, 1, 10_000_000),
      perConsoleCredential: int('RATE_LIMIT_PER_CONSOLE_CREDENTIAL', 30_000, 1, 10_000_000),
      perSession: int('RATE_LIMIT_PER_SESSION', 600, 1, 10_000_000),
      unauthenticatedPerIp: int('RATE_LIMIT_UNAUTHENTICATED_PER_IP', 300, 1, 10_000_000),
      redisPrefix: env.RATE_LIMIT_REDIS_PREFIX || 'idv:rl:',
    },
  };
  if (config.redisUrl && !/^rediss?:\/\//.test(config.redisUrl)) problems.push('REDIS_URL must start with redis:// or rediss://');
  // A lease shorter than an attempt would let a second worker send a delivery still in flight.
  if (config.webhooks.leaseMs < 2 * config.webhooks.timeoutMs) problems.push('WEBHOOK_LEASE_MS must be at least twice WEBHOOK_TIMEOUT_MS');
  config.reauth = reauthConfig(env, problems, reauthMaxAgeS);
  if (env.NODE_ENV === 'production' && problems.length === 0) problems.push(...productionProblems(config, env));
  if (problems.length) throw new ConfigError(problems);
  return config;
}

/** OIDC_ISSUER, OIDC_JWKS_URL and OIDC_AUDIENCE go together: all three or none. */
function reauthConfig(env: NodeJS.ProcessEnv, problems: string[], maxAge: () => number): ReauthConfig | null {
  const names = ['OIDC_ISSUER', 'OIDC_JWKS_URL', 'OIDC_AUDIENCE'] as const;
  const given = names.filter((n) => env[n]);
  if (given.length === 0) return null;
  if (given.length < names.length) {
    problems.push(`${names.filter((n) => !env[n]).join(', ')} must be set with ${given.join(', ')} (all three or none)`);
    return null;
  }
  const httpUrl = (name: string): string => {
    const raw = env[name]!;
    try {
      const u = new URL(raw);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      problems.push(`${name} must be an http(s) URL (got "${raw}")`);
    }
    return raw;
  };
  const audience = env.OIDC_AUDIENCE!;
  if (audience.length > 255) problems.push('OIDC_AUDIENCE must be at most 255 characters');
  return { issuer: httpUrl('OIDC_ISSUER'), jwksUrl: httpUrl('OIDC_JWKS_URL'), audience, maxAgeS: maxAge() };
}
