import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_VARIABLES, loadConfig } from '@idv/config';
import { loadConsoleConfig } from '../../apps/console/src/config.ts';
import { ROOT } from '../helpers/processes.ts';

/**
 * One list of variables (CONFIG_VARIABLES): what the loaders read, what .env.example shows and
 * what docs/configuration.md's table explains, each the same set.
 */

const listed = new Set<string>(CONFIG_VARIABLES);
const sorted = (names: Iterable<string>) => [...new Set(names)].sort();

/** The variables a loader reads from an environment holding `given`. */
function readBy(load: (env: NodeJS.ProcessEnv) => unknown, given: Record<string, string> = {}): Set<string> {
  const read = new Set<string>();
  const env = new Proxy(given, {
    get(target, name) {
      if (typeof name === 'string') read.add(name);
      return target[name as string];
    },
  });
  try {
    load(env);
  } catch {
    // A refused configuration still read its variables.
  }
  return read;
}

test('the loaders read exactly the listed variables, the console through the same readers', () => {
  const oidc = { OIDC_ISSUER: 'https://idp.example', OIDC_JWKS_URL: 'https://idp.example/jwks', OIDC_AUDIENCE: 'console' };
  const read = new Set([...readBy(loadConfig), ...readBy(loadConfig, oidc), ...readBy(loadConsoleConfig)]);
  assert.deepEqual(sorted(read), sorted(listed));
});

test('.env.example shows every listed variable, and only those', () => {
  const text = readFileSync(join(ROOT, '.env.example'), 'utf8');
  const shown = [...text.matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]);
  assert.deepEqual(sorted(shown), sorted(listed));
});

test("docs/configuration.md's table explains every listed variable, and only those", () => {
  const rows = readFileSync(join(ROOT, 'docs/configuration.md'), 'utf8')
    .split('\n')
    .filter((line) => line.startsWith('| `'));
  const explained = rows.flatMap((row) => [...row.split('|')[1].matchAll(/`([A-Z][A-Z0-9_]+)`/g)].map((m) => m[1]));
  assert.deepEqual(sorted(explained), sorted(listed));
});

test('the console refuses a public URL with a query or a fragment, as the service does', () => {
  assert.throws(
    () => loadConsoleConfig({ CONSOLE_URL: 'https://console.example/?x=1', MASTER_KEY: Buffer.alloc(32, 1).toString('base64') }),
    /CONSOLE_URL must not carry a query or fragment/,
  );
  assert.throws(() => loadConfig({ CONSOLE_URL: 'https://console.example/#x' }), /CONSOLE_URL must not carry a query or fragment/);
});

test('CHECKS_THREADS sizes the checks pool: unset leaves it to the machine, a whole number from 1 to 32 is taken, anything else refused', () => {
  assert.equal(loadConfig({}).checksThreads, null);
  assert.equal(loadConfig({ CHECKS_THREADS: '3' }).checksThreads, 3);
  for (const bad of ['0', '33', '1.5', 'two']) {
    assert.throws(() => loadConfig({ CHECKS_THREADS: bad }), new RegExp(`CHECKS_THREADS must be an integer from 1 to 32 \\(got "${bad.replace('.', '\\.')}"\\)`));
  }
});
