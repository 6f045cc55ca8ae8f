/** The settings the rules read (a Config has them; named here so this module needs no import of config.ts, which calls it). */
export interface ProductionView {
  databaseUrl: string | null;
  apiBaseUrl: string;
  journeyUrl: string;
  consoleUrl: string;
  docsUrl: string;
  reauth: object | null;
  webhooks: { allowPrivateNetworks: boolean };
  rateLimits: { enabled: boolean };
  logLevel: string;
  journeyPseudoLocale: boolean;
  checksWarmUp: boolean;
}

/**
 * What a production deployment (NODE_ENV=production) must set, beyond what every start checks.
 * The defaults exist so that `npm start` works on a laptop with nothing configured; each of them
 * is wrong for real people's data, so production refuses to start on any of them rather than run
 * quietly on a setting meant for a demonstration (docs/deployment.md lists them with the reasons).
 */
export function productionProblems(config: ProductionView, env: NodeJS.ProcessEnv): string[] {
  const problems: string[] = [];
  // A key generated into DATA_DIR sits beside the data it seals: one copy of the disk opens both.
  if (!env.MASTER_KEY) problems.push('MASTER_KEY must be set in production (a key generated into DATA_DIR sits beside the data it protects)');
  // The embedded database is one process on one machine, with no replication nor point-in-time recovery.
  if (!config.databaseUrl) problems.push('DATABASE_URL must be set in production (the embedded PGlite database is for trying the service)');
  // The journey needs a secure context for the camera; keys, tokens and cookies cross these addresses.
  const urls: [string, string][] = [
    ['API_BASE_URL', config.apiBaseUrl],
    ['JOURNEY_URL', config.journeyUrl],
    ['CONSOLE_URL', config.consoleUrl],
    ['DOCS_URL', config.docsUrl],
  ];
  for (const [name, value] of urls) {
    if (!env[name]) problems.push(`${name} must be set in production (the default points at localhost)`);
    else if (new URL(value).protocol !== 'https:') problems.push(`${name} must be an https URL in production (got "${value}")`);
  }
  // Without them every action needing a re-authentication is refused and the console has no sign-in.
  if (!config.reauth) problems.push('OIDC_ISSUER, OIDC_JWKS_URL and OIDC_AUDIENCE must be set in production (your identity provider)');
  // A webhook URL on a private address reaches the service's own network (server-side request forgery).
  if (config.webhooks.allowPrivateNetworks) problems.push('WEBHOOK_ALLOW_PRIVATE_NETWORKS must be false in production');
  if (!config.rateLimits.enabled) problems.push('RATE_LIMIT_ENABLED must be true in production');
  // A test language, not one a person reads.
  if (config.journeyPseudoLocale) problems.push('JOURNEY_PSEUDO_LOCALE must be false in production (the pseudo-locale is for layout tests)');
  // A cold pool makes the first case after every start wait for the models.
  if (!config.checksWarmUp) problems.push('CHECKS_WARM_UP must be true in production (the models load as the worker starts, not with the first case)');
  // Debug logs carry request details meant for a developer's machine.
  if (config.logLevel === 'debug' || config.logLevel === 'trace') problems.push(`LOG_LEVEL must be info or quieter in production (got "${config.logLevel}")`);
  return problems;
}
