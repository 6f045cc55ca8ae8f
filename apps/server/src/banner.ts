import { relative } from 'node:path';

/** What the ready banner says: addresses and where things are kept, never a secret's value. */
export interface BannerFacts {
  /** Seconds from the process's start to the API's listening, and to this banner. */
  apiAfterS: number;
  readyAfterS: number;
  api: string;
  journey: string | null;
  console: string | null;
  docs: string | null;
  /** The development identity provider's issuer, when it runs. */
  idp: string | null;
  /** The Prometheus endpoint's port (null: none). */
  metricsPort: number | null;
  database: { kind: 'pglite'; dataDir: string } | { kind: 'postgres' };
  /** The demo credentials' file, when there is one; `consoleAdmin`: it holds the console's demo administrator too. */
  credentials: { path: string; consoleAdmin: boolean } | null;
  /** The master key's file when the service generated one (no MASTER_KEY). */
  masterKeyFile: string | null;
  checks: { state: 'warm'; loadS: number } | { state: 'cold_failed' } | { state: 'on_first_case' } | { state: 'not_running' };
}

/**
 * The one readable block `npm start` prints once everything listens and the checks' models are
 * loaded (the logs around it stay JSON): every address, and where the credentials are kept.
 * Paths inside the working directory are shown relative to it. Its first line starts with
 * "idv is ready" (bench:start and the tests look for it).
 */
export function readyBanner(f: BannerFacts): string {
  const path = (p: string) => {
    const r = relative(process.cwd(), p);
    return r && !r.startsWith('..') ? r : p;
  };
  const rows: [string, string][] = [
    ['API', `${f.api}  (OpenAPI document: ${f.api}/v1/openapi.json)`],
  ];
  if (f.journey) rows.push(['journey', `${f.journey}  (journey links: ${f.journey}/#<token>)`]);
  if (f.console) rows.push(['console', f.console + (f.idp ? `  (development sign-in provider: ${f.idp})` : '')]);
  if (f.docs) rows.push(['docs', `${f.docs}  (start with ${f.docs}/quickstart)`]);
  if (f.metricsPort) rows.push(['metrics', `port ${f.metricsPort}, GET /metrics`]);
  rows.push(['database', f.database.kind === 'pglite' ? `embedded (PGlite) in ${path(f.database.dataDir)}` : 'PostgreSQL (DATABASE_URL)']);
  if (f.credentials) {
    rows.push(['credentials', `${path(f.credentials.path)}: the demo client's API key and signing secret${f.credentials.consoleAdmin ? ", and the console's login and password under \"console\"" : ''} (not printed here)`]);
  } else {
    rows.push(['credentials', 'no demo credentials file (the database had clients before the first start): `npm run admin -- --help`']);
  }
  if (f.masterKeyFile) rows.push(['master key', `${path(f.masterKeyFile)} (generated; set MASTER_KEY in production)`]);
  rows.push(['checks', CHECKS[f.checks.state] + (f.checks.state === 'warm' ? ` in ${f.checks.loadS.toFixed(1)} s, beside the running API` : '')]);
  const width = Math.max(...rows.map(([k]) => k.length));
  const lines = rows.map(([k, v]) => `  ${k.padEnd(width)}  ${v}`);
  const title = `idv is ready: the API answered after ${f.apiAfterS.toFixed(1)} s, everything below after ${f.readyAfterS.toFixed(1)} s`;
  return ['', title, ...lines, ''].join('\n') + '\n';
}

const CHECKS = {
  warm: 'models loaded',
  cold_failed: 'the models failed to load at start (see the log): they load with the first case',
  on_first_case: 'models load with the first case (CHECKS_WARM_UP=false)',
  not_running: 'not run by this process (RUN_WORKER=false or --api-only)',
} as const;
