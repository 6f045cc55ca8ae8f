import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { CONFIG_VARIABLES } from '@idv/config';
import { ROOT } from '../helpers/processes.ts';

/**
 * What ships to deploy the service (Dockerfile, deploy/compose.yaml, the Helm chart) held to the
 * code, in a second and without a container engine: the image installs every workspace, runs as a
 * non-root user with a health check; compose and the chart only set variables the service reads,
 * and compose's demonstration secrets come from deploy/.env. The image itself is built and run by
 * `npm run test:deploy` (tests/deploy/), outside this suite.
 */

const read = (path: string) => readFileSync(join(ROOT, path), 'utf8');
const known = new Set<string>([...CONFIG_VARIABLES]);
const workspaces = (JSON.parse(read('package.json')) as { workspaces: string[] }).workspaces.flatMap((glob) => {
  const dir = glob.replace(/\/\*$/, '');
  return readdirSync(join(ROOT, dir)).map((name) => `${dir}/${name}`);
});

test("the Dockerfile installs every workspace's manifest before npm ci, and runs as a non-root user with a HEALTHCHECK", () => {
  const dockerfile = read('Dockerfile');
  for (const ws of workspaces) assert.match(dockerfile, new RegExp(`^COPY ${ws}/package.json ${ws}/$`, 'm'), `${ws}/package.json is copied`);
  assert.match(dockerfile, /^ARG NODE_IMAGE=node:20-bookworm-slim$/m);
  assert.match(dockerfile, /^USER 1000:1000$/m);
  assert.match(dockerfile, /^HEALTHCHECK .*healthcheck\.mjs/m);
  assert.match(read('deploy/image/healthcheck.mjs'), /\/livez/);
  assert.match(dockerfile, /npm ci/);
  assert.match(dockerfile, /npm prune --omit=dev/);
});

test("the image's roles are the entrypoint's, and each names a command that exists", () => {
  const entrypoint = read('deploy/image/entrypoint.sh');
  const roles = [...entrypoint.matchAll(/^ {2}([a-z-]+)\) /gm)].map((m) => m[1]);
  assert.deepEqual(roles, ['all-in-one', 'api', 'web', 'worker', 'console', 'migrate', 'admin']);
  for (const path of entrypoint.matchAll(/ (apps\/[\w/.-]+\.(?:ts|mjs))/g)) assert.ok(readdirSync(join(ROOT, path[1], '..')).includes(path[1].split('/').pop()!), path[1]);
});

type Service = { environment?: Record<string, string>; read_only?: boolean; cap_drop?: string[]; command?: string[]; image?: string };

test('deploy/compose.yaml: every service of the image sets only known variables, read-only and without capabilities; its secrets come from deploy/.env', () => {
  const compose = parse(read('deploy/compose.yaml'), { merge: true }) as { services: Record<string, Service> };
  assert.deepEqual(Object.keys(compose.services).sort(), ['api-1', 'api-2', 'console', 'migrate', 'postgres', 'proxy', 'redis', 'worker-1', 'worker-2']);
  const ours = Object.entries(compose.services).filter(([, s]) => s.command && ['migrate', 'web', 'worker', 'console'].includes(s.command[0]));
  assert.equal(ours.length, 6);
  for (const [name, service] of ours) {
    assert.equal(service.read_only, true, name);
    assert.deepEqual(service.cap_drop, ['ALL'], name);
    for (const variable of Object.keys(service.environment ?? {})) assert.ok(known.has(variable), `${name} sets ${variable}, which the service does not read`);
  }
  const used = new Set([...read('deploy/compose.yaml').matchAll(/\$\{([A-Z_]+)/g)].map((m) => m[1]));
  const example = new Set([...read('deploy/.env.example').matchAll(/^#?\s*([A-Z][A-Z0-9_]+)=/gm)].map((m) => m[1]));
  assert.deepEqual([...example].filter((v) => !used.has(v)), [], 'deploy/.env.example shows only what compose reads');
  for (const secret of ['POSTGRES_PASSWORD', 'MASTER_KEY']) assert.ok(example.has(secret), secret);
  assert.doesNotMatch(read('deploy/.env.example'), /^(POSTGRES_PASSWORD|MASTER_KEY)=\S/m, 'no secret value in the example');
});

test('the Helm chart sets only variables the service reads', () => {
  const dir = 'deploy/helm/idv/templates';
  const names = readdirSync(join(ROOT, dir)).flatMap((f) => [...read(`${dir}/${f}`).matchAll(/- name: ([A-Z][A-Z0-9_]+)\b/g)].map((m) => m[1]));
  names.push(...[...read(`${dir}/_helpers.tpl`).matchAll(/"name" "([A-Z][A-Z0-9_]+)"/g)].map((m) => m[1]));
  assert.ok(names.length > 20);
  for (const name of names) assert.ok(known.has(name), `the chart sets ${name}, which the service does not read`);
});
