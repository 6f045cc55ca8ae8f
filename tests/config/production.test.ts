import { test } from 'node:test';
import assert from 'node:assert/strict';
import { configProblems } from '../helpers/config-problems.ts';
import { runServe } from '../helpers/processes.ts';

const problems = configProblems;

/** A production environment that passes: every setting the refusals below take out one by one. */
const PRODUCTION: Record<string, string> = {
  NODE_ENV: 'production',
  DATABASE_URL: 'postgres://idv@db.internal:5432/idv',
  MASTER_KEY: Buffer.alloc(32, 7).toString('base64'),
  API_BASE_URL: 'https://api.idv.example',
  JOURNEY_URL: 'https://verify.idv.example',
  CONSOLE_URL: 'https://console.idv.example',
  DOCS_URL: 'https://docs.idv.example',
  OIDC_ISSUER: 'https://login.example',
  OIDC_JWKS_URL: 'https://login.example/jwks',
  OIDC_AUDIENCE: 'idv-console',
};

test('a complete production configuration starts', () => {
  assert.deepEqual(problems(PRODUCTION), []);
});

test('production refuses each demonstration default, naming it', () => {
  const cases: [string, Record<string, string | undefined>, RegExp][] = [
    ['no master key', { MASTER_KEY: undefined, DATABASE_URL: undefined }, /^MASTER_KEY must be set in production/],
    ['the embedded database', { DATABASE_URL: undefined }, /^DATABASE_URL must be set in production/],
    ['a default public address', { JOURNEY_URL: undefined }, /^JOURNEY_URL must be set in production/],
    ['plain http', { API_BASE_URL: 'http://api.idv.example' }, /^API_BASE_URL must be an https URL in production/],
    ['no identity provider', { OIDC_ISSUER: undefined, OIDC_JWKS_URL: undefined, OIDC_AUDIENCE: undefined }, /^OIDC_ISSUER, OIDC_JWKS_URL and OIDC_AUDIENCE must be set in production/],
    ['webhooks to private networks', { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }, /^WEBHOOK_ALLOW_PRIVATE_NETWORKS must be false in production/],
    ['no rate limits', { RATE_LIMIT_ENABLED: 'false' }, /^RATE_LIMIT_ENABLED must be true in production/],
    ['debug logs', { LOG_LEVEL: 'debug' }, /^LOG_LEVEL must be info or quieter in production/],
    ['the journey\'s pseudo-locale', { JOURNEY_PSEUDO_LOCALE: 'true' }, /^JOURNEY_PSEUDO_LOCALE must be false in production/],
    ['a cold checks pool', { CHECKS_WARM_UP: 'false' }, /^CHECKS_WARM_UP must be true in production/],
  ];
  for (const [what, change, expected] of cases) {
    const env = Object.fromEntries(Object.entries({ ...PRODUCTION, ...change }).filter(([, v]) => v !== undefined)) as Record<string, string>;
    const found = problems(env);
    assert.ok(found.some((p) => expected.test(p)), `${what}: ${JSON.stringify(found)}`);
  }
  // Outside production the same settings are the defaults that make `npm start` work as it is.
  assert.deepEqual(problems({ WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', RATE_LIMIT_ENABLED: 'false', LOG_LEVEL: 'debug', JOURNEY_PSEUDO_LOCALE: 'true', CHECKS_WARM_UP: 'false' }), []);
});

test('the service refuses to start in production on the defaults and says every reason', async () => {
  const proc = runServe([], { NODE_ENV: 'production', DATA_DIR: '/nonexistent/never-created' });
  assert.equal(await proc.exited, 1);
  const err = proc.stderr();
  for (const name of ['MASTER_KEY', 'DATABASE_URL', 'API_BASE_URL', 'JOURNEY_URL', 'CONSOLE_URL', 'DOCS_URL', 'OIDC_ISSUER']) {
    assert.match(err, new RegExp(`- ${name}`), err);
  }
});
