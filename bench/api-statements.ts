/**
 * `npx tsx bench/api-statements.ts`: what each database statement of a signed case creation costs
 * on its own, on PGlite (in a temporary data directory) and, with BENCH_BACKENDS including
 * postgres, on PostgreSQL, beside the baseline's single INSERT. Statements run one after another
 * (PGlite runs them so anyway), so each figure is the CPU and round trip of one statement: the
 * floor under `npm run bench:api`'s figures. Prints a table; BENCH_ITERATIONS (default 2000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import {
  findActiveFlows,
  findApiKeysBySecretHashes,
  insertCasesWithResponses,
  openDatabase,
  queryRows,
  reserveIdempotencyKey,
  type CaseRow,
  type Database,
} from '@idv/db';
import { newId, statusOf } from '@idv/domain';
import { MasterKeyring, generateMasterKey, parseMasterKey, secretHash } from '@idv/vault';
import { bootstrapDemoClient } from '../apps/api/src/bootstrap.ts';
import { createPostgresDatabase } from '../tests/helpers/database.ts';

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 2000);
const BACKENDS = (process.env.BENCH_BACKENDS ?? 'pglite').split(',');

type Figure = [label: string, wallUs: number, cpuUs: number];

/** Wall time and this process's CPU time per execution (on a shared machine the CPU time is the steadier). */
async function time(label: string, fn: (i: number) => Promise<unknown>): Promise<Figure> {
  for (let i = 0; i < 200; i++) await fn(-1 - i); // warm-up: JIT, plans
  const cpu = process.cpuUsage();
  const start = process.hrtime.bigint();
  for (let i = 0; i < ITERATIONS; i++) await fn(i);
  const wall = Number(process.hrtime.bigint() - start) / 1e3 / ITERATIONS;
  const used = process.cpuUsage(cpu);
  return [label, wall, (used.user + used.system) / ITERATIONS];
}

async function measure(database: Database): Promise<Figure[]> {
  const db = database.db;
  const keyring = new MasterKeyring(parseMasterKey(generateMasterKey()), []);
  const demo = (await bootstrapDemoClient(db, keyring, new Date()))!;
  const hash = secretHash(demo.api_key.secret);
  const [key] = await findApiKeysBySecretHashes(db, [hash]);
  const tenant = { clientId: key.clientId, environment: key.environment };
  const [flow] = await findActiveFlows(db, [{ tenant, name: 'standard' }]);
  await db.execute(sql`CREATE TABLE bench_baseline (id text PRIMARY KEY, flow_name text NOT NULL, country text NOT NULL, external_ref text, created_at timestamptz NOT NULL)`);
  const run = Math.random().toString(36).slice(2);
  const t = (now: Date) => ({ now, lockMs: 60_000, retainMs: 86_400_000 });
  const results: Figure[] = [];
  results.push(await time('api key lookup', () => findApiKeysBySecretHashes(db, [hash])));
  const owner = (i: number, prefix: string) => ({ apiKeyId: key.id, key: `${prefix}-${run}-${i}`, requestHash: 'h', signature: `${prefix}-${run}-${i}` });
  results.push(await time('idempotency reservation', (i) => reserveIdempotencyKey(db, owner(i, 'r'), t(new Date()))));
  results.push(await time('flow lookup', () => findActiveFlows(db, [{ tenant, name: 'standard' }])));
  results.push(
    await time('case + journal + stored response (the creation statement)', async (i) => {
      const now = new Date();
      const idem = `c-${run}-${i}`;
      const row: CaseRow = {
        id: newId('case', now.getTime()), ...tenant, flowId: flow.id, flowName: flow.name, flowVersion: flow.version, country: 'FR',
        externalRef: idem, declaredSealed: null, state: 'awaiting_applicant', status: statusOf('awaiting_applicant', false),
        journeyStarted: 0, checks: [], duplicates: [], decision: null, resubmission: null, createdAt: now, updatedAt: now, expiresAt: now,
      };
      const entry = { apiKeyId: key.id, key: idem, requestHash: 'h', signature: idem, status: 201, body: { sealed: 'x'.repeat(300) }, now, expiresAt: now };
      const [written] = await insertCasesWithResponses(db, [{ row, journal: { actor: `key:${key.id}`, action: 'case.created', detail: { flow_id: flow.id } }, entry }]);
      if (!written) {
        throw new Error('the creation statement wrote nothing');
      }
    }),
  );
  results.push(await time('baseline INSERT (raw, via drizzle execute)', (i) =>
    queryRows(db, sql`INSERT INTO bench_baseline VALUES (${`b-${run}-${i}`}, 'standard', 'FR', ${`ref-${i}`}, ${new Date().toISOString()})`)));
  results.push(await time('SELECT 1 (round trip floor)', () => database.ping()));
  return results;
}

for (const backend of BACKENDS) {
  let database: Database;
  let cleanup: () => Promise<void> | void;
  if (backend === 'postgres') {
    const { url, dropDb } = await createPostgresDatabase();
    database = await openDatabase({ kind: 'postgres', url });
    cleanup = dropDb;
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'bench-stmt-'));
    database = await openDatabase({ kind: 'pglite', dataDir: dir });
    cleanup = () => rmSync(dir, { recursive: true, force: true });
  }
  try {
    const results = await measure(database);
    console.log(`\n${backend}: µs per statement (wall, CPU of this process), ${ITERATIONS} sequential executions`);
    for (const [label, wall, cpu] of results) console.log(`  ${wall.toFixed(0).padStart(6)}  ${cpu.toFixed(0).padStart(6)}  ${label}`);
  } finally {
    await database.close();
    await cleanup();
  }
}
