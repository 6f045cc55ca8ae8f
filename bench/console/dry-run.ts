import { sql } from 'drizzle-orm';
import { build } from '@idv/api';
import { loadConfig } from '@idv/config';
import { findActiveFlow, openDatabase } from '@idv/db';
import { STANDARD_FLOW } from '@idv/domain';
import { MasterKeyring, generateMasterKey } from '@idv/vault';
import { bootstrapDemoClient } from '../../apps/api/src/bootstrap.ts';
import { createPostgresDatabase } from '../../tests/helpers/database.ts';
import { realisticReports, seedDecidedCases } from '../../tests/helpers/flows.ts';

/**
 * The dry run section of bench:console: `cases` decided cases of the flow `standard` with realistic
 * check reports (tests/helpers/flows.ts: most approved, uncertain faces in review, rejections,
 * retakes, declared risks) written in batches into a fresh PostgreSQL database, then
 * POST /v1/flows/standard/dry-run with `cases` and a draft that changes the decision policy and the
 * face thresholds, through the real app (route, repo query, domain), timed from request to answer:
 * one cold call, then `runs` warm ones (median and worst). Target: ≤ 2 s.
 */
export async function benchDryRun(cases: number, runs: number) {
  const { url, dropDb } = await createPostgresDatabase();
  const database = await openDatabase({ kind: 'postgres', url, poolSize: 4 });
  try {
    const config = loadConfig({ LOG_LEVEL: 'silent', MASTER_KEY: generateMasterKey() });
    const keyring = new MasterKeyring(config.masterKey!);
    const now = new Date();
    const demo = (await bootstrapDemoClient(database.db, keyring, now))!;
    const tenant = { clientId: demo.client_id, environment: 'sandbox' as const };
    const flow = (await findActiveFlow(database.db, tenant, 'standard'))!;
    const seedStart = performance.now();
    await seedDecidedCases(database.db, tenant, flow, Array.from({ length: cases }, (_, i) => realisticReports(STANDARD_FLOW, i)), now);
    await database.db.execute(sql`ANALYZE cases`);
    const seedS = (performance.now() - seedStart) / 1000;

    const { app } = await build({ config, db: database.db, keyring, logger: false });
    const draft = structuredClone(STANDARD_FLOW);
    draft.decision.on_attention = 'reject';
    draft.checks.face_match_max_distance = 0.55;
    const payload = JSON.stringify({ definition: draft, cases });
    const call = async () => {
      const started = performance.now();
      const res = await app.inject({
        method: 'POST',
        url: '/v1/flows/standard/dry-run',
        headers: { authorization: `Bearer ${demo.api_key.secret}`, 'content-type': 'application/json' },
        payload,
      });
      const s = (performance.now() - started) / 1000;
      if (res.statusCode !== 200) throw new Error(`dry run answered ${res.statusCode}: ${res.body}`);
      return { s, body: res.json() as { evaluated: number; changed: number; matrix: { from: string; to: string; count: number }[] } };
    };
    const cold = await call();
    const warm: number[] = [];
    for (let i = 0; i < runs; i++) warm.push((await call()).s);
    await app.close();
    const sorted = [...warm].sort((a, b) => a - b);
    const r3 = (v: number) => Math.round(v * 1000) / 1000;
    return {
      backend: 'postgres',
      cases,
      seed_s: r3(seedS),
      cold_s: r3(cold.s),
      median_s: r3(sorted[Math.floor(sorted.length / 2)]),
      max_s: r3(sorted[sorted.length - 1]),
      runs_s: warm.map(r3),
      evaluated: cold.body.evaluated,
      changed: cold.body.changed,
      matrix: cold.body.matrix.filter((c) => c.from !== c.to).map((c) => `${c.from}→${c.to}: ${c.count}`),
      target_s: 2,
      target_met: sorted[Math.floor(sorted.length / 2)] <= 2 && cold.s <= 2,
    };
  } finally {
    await database.close();
    await dropDb();
  }
}
