/**
 * npm run bench:duplicates — the duplicate face search (1:N), two parts (bench/README.md):
 *
 *  1. The threshold, on real faces (lfw-dev, templates computed by the engine and cached under
 *     .tmp/): split by identity, one half chooses the largest threshold with FPIR ≤ 1e-3, the other
 *     reports FPIR and FNIR at it (and at the threshold the service uses, DUPLICATE_FACE_THRESHOLD).
 *  2. The index at scale, on synthetic vectors (clustered, unit-normalised): search latency p50/p95,
 *     recall against an exact scan, build time and size, on PostgreSQL and PGlite, at each of
 *     BENCH_DUP_SCALES (default 100000; 1000000 for the million, about half an hour on
 *     PostgreSQL here). PGlite may be given its own sizes (BENCH_DUP_PGLITE_SCALES): a million does
 *     not fit it (bench/README.md); when it is not measured there, what stops it is probed and printed.
 *
 * Environment: BENCH_DUP_SCALES (comma-separated template counts), BENCH_DUP_PGLITE_SCALES
 * (PGlite's, default BENCH_DUP_SCALES), BENCH_DUP_DATABASES (postgres,pglite), BENCH_DUP_QUERIES
 * (searches per tenant, default 40), TEST_DATABASE_URL (the PostgreSQL server; a database is
 * created and dropped), LFW_DEV_DIR.
 * Prints a table, then ONE line of JSON with every figure.
 */
import { DUPLICATE_FACE_THRESHOLD } from '../apps/worker/src/duplicates.ts';
import { FACE_TEMPLATE_LENGTH, FACE_TEMPLATE_VERSION } from '../packages/engine/src/index.ts';
import { lfwTemplates } from './duplicates/lfw-descriptors.ts';
import { measureScale, pgliteLimits, pgliteSql, postgresSql, type ScaleResult } from './duplicates/scale.ts';
import { FPIR_TARGET, chooseThreshold, halfStats, ratesAt, splitByIdentity } from './duplicates/threshold.ts';

const log = (line: string) => process.stderr.write(`${line}\n`);
const counts = (text: string) => text.split(',').map(Number).filter((n) => n > 0);
const scales = counts(process.env.BENCH_DUP_SCALES ?? '100000');
const scalesOf = { postgres: scales, pglite: process.env.BENCH_DUP_PGLITE_SCALES ? counts(process.env.BENCH_DUP_PGLITE_SCALES) : scales };
const databases = (process.env.BENCH_DUP_DATABASES ?? 'postgres,pglite').split(',') as Array<'postgres' | 'pglite'>;
const queries = Number(process.env.BENCH_DUP_QUERIES ?? 40);
const serverUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

log('lfw-dev templates (cached under .tmp/lfw-dev-templates by a hash of the models)…');
const lfw = await lfwTemplates(log);
const { choose, report } = splitByIdentity(lfw.faces);
const a = halfStats(choose);
const b = halfStats(report);
const chosen = chooseThreshold(a);
const atChosen = { choose: ratesAt(a, chosen), report: ratesAt(b, chosen) };
const atService = ratesAt(b, DUPLICATE_FACE_THRESHOLD);

const scale: Record<string, Record<string, ScaleResult | { error: string }>> = {};
const started = Date.now();
for (const kind of databases) {
  for (const n of scalesOf[kind]) {
    log(`${kind}: ${n} synthetic templates of ${FACE_TEMPLATE_LENGTH} numbers…`);
    const db = kind === 'postgres' ? await postgresSql(serverUrl) : await pgliteSql();
    try {
      (scale[kind] ??= {})[n] = await measureScale(db, n, FACE_TEMPLATE_LENGTH, queries, log);
      log(`  ${kind} ${n}: ${JSON.stringify(scale[kind]![n])}`);
    } catch (err) {
      (scale[kind] ??= {})[n] = { error: err instanceof Error ? err.message : String(err) };
      log(`  failed: ${String(err)}`);
    } finally {
      await db.close().catch(() => {});
    }
  }
}

const pad = (s: unknown, w: number) => String(s).padEnd(w);
console.log(`\nDuplicate face search: threshold on lfw-dev (${lfw.faces.length} faces of ${lfw.photos} photos; descriptor ${FACE_TEMPLATE_VERSION}, ${FACE_TEMPLATE_LENGTH} numbers)`);
console.log(`split by identity: choose ${a.photos} photos of ${a.persons} persons, report ${b.photos} photos of ${b.persons} persons; gallery = the half's other photos`);
console.log(pad('', 34) + pad('threshold', 11) + pad('FPIR', 22) + pad('FNIR', 20) + 'FMR (pairs)');
const row = (label: string, r: ReturnType<typeof ratesAt>, s: typeof a) =>
  console.log(
    pad(label, 34) +
      pad(r.threshold.toFixed(3), 11) +
      pad(`${r.fpir} (${r.false_positive_searches}/${s.non_mated_searches})`, 22) +
      pad(`${r.fnir} (${r.missed_mated_searches}/${s.mated_searches})`, 20) +
      `${r.fmr.toExponential(2)} (${r.false_match_pairs}/${s.impostorPairs})`,
  );
row('chosen on the choosing half', atChosen.choose, a);
row('chosen, on the reporting half', atChosen.report, b);
row('service constant, reporting half', atService, b);
console.log(`threshold this bench would choose (FPIR ≤ ${FPIR_TARGET} at gallery ${a.gallery_size}): ${chosen.toFixed(3)}; the service uses ${DUPLICATE_FACE_THRESHOLD}`);

console.log('\nThe index at scale (synthetic vectors: clustered, unit-normalised; HNSW m=16 ef_construction=64, ef_search 100, iterative scan)');
console.log(
  pad('database', 10) + pad('templates', 11) + pad('build s', 9) + pad('index MB', 10) + pad('search p50/p95 ms', 19) + pad('small tenant', 14) + pad('exact p50/p95', 15) + pad('recall@10', 11) + pad('small', 7) + pad('close', 7) + 'insert p50 ms',
);
console.log(
  '(small tenant: searches among the 10% of rows of a second client; recall@10 of each against an exact scan; close: the share found of the exact neighbours within 1.0, the planted same-cluster templates)',
);
for (const [kind, byN] of Object.entries(scale)) {
  for (const [n, r] of Object.entries(byN)) {
    if ('error' in r) {
      console.log(pad(kind, 10) + pad(n, 11) + `failed: ${r.error}`);
      continue;
    }
    console.log(
      pad(kind, 10) +
        pad(n, 11) +
        pad(r.index_build_s, 9) +
        pad(r.index_mb, 10) +
        pad(`${r.search_ms.p50}/${r.search_ms.p95}`, 19) +
        pad(`${r.search_small_tenant_ms.p50}/${r.search_small_tenant_ms.p95}`, 14) +
        pad(`${r.exact_scan_ms.p50}/${r.exact_scan_ms.p95}`, 15) +
        pad(r.recall_at_k, 11) +
        pad(r.recall_at_k_small_tenant, 7) +
        pad(r.recall_close, 7) +
        r.insert_ms.p50,
    );
  }
}

// A database not measured at a million: estimated from its largest scale measured, and said so.
// For PGlite, what stops it is probed on an empty PGlite (pgliteLimits): the graph a million
// templates need (PostgreSQL's measured index at a million when there is one, else the largest
// measured index scaled) against the memory PGlite can give the build.
const MILLION = 1_000_000;
const estimates: Record<string, unknown> = {};
const measuredAt = (kind: string) =>
  Object.entries(scale[kind] ?? {})
    .filter((e): e is [string, ScaleResult] => !('error' in e[1]))
    .sort(([x], [y]) => Number(y) - Number(x))[0];
for (const kind of databases) {
  if (scale[kind]?.[MILLION] && !('error' in scale[kind][MILLION])) continue;
  const measured = measuredAt(kind);
  if (!measured) continue;
  const [n, r] = measured;
  const ratio = MILLION / Number(n);
  const logRatio = Math.log(MILLION) / Math.log(Number(n));
  estimates[kind] = {
    measured: false,
    from_templates: Number(n),
    // Building HNSW costs about n·log n while the graph fits maintenance_work_mem (a lower bound).
    index_build_s_at_least: Math.round(r.index_build_s * ratio * logRatio),
    // Past maintenance_work_mem pgvector adds the rest one insert at a time, as a new case does:
    // a million of the measured insert (p50) is the order of a build that does not fit.
    index_by_inserts_s: Math.round((MILLION * r.insert_ms.p50) / 1000),
    table_mb: Math.round(r.table_mb * ratio),
    index_mb: Math.round(r.index_mb * ratio),
    // A graph search grows with log n; an exact scan with n.
    search_p50_ms: Math.round(r.search_ms.p50 * logRatio * 10) / 10,
    exact_scan_p50_ms: Math.round(r.exact_scan_ms.p50 * ratio),
  };
}
let pgliteMillion: Record<string, unknown> | null = null;
if (databases.includes('pglite') && !(scale.pglite?.[MILLION] && !('error' in scale.pglite[MILLION]))) {
  const pgMillion = scale.postgres?.[MILLION];
  const largest = measuredAt('postgres') ?? measuredAt('pglite');
  const graphMb =
    pgMillion && !('error' in pgMillion) ? pgMillion.index_mb : largest ? (largest[1].index_mb * MILLION) / Number(largest[0]) : null;
  if (graphMb !== null) {
    log('pglite: probing what a million templates would need…');
    pgliteMillion = { graph_mb_from: pgMillion && !('error' in pgMillion) ? 'postgres index at 1000000' : `index at ${largest![0]} scaled`, ...(await pgliteLimits(graphMb)) };
  }
}
if (Object.keys(estimates).length) {
  console.log(`\nNot measured at ${MILLION.toLocaleString('en')} templates (estimated from the largest scale measured):`);
  for (const [kind, e] of Object.entries(estimates)) console.log(`${pad(kind, 10)}${JSON.stringify(e)}`);
}
if (pgliteMillion) console.log(`\nPGlite at ${MILLION.toLocaleString('en')} templates: ${JSON.stringify(pgliteMillion)}`);
console.log(`\nscale part: ${Math.round((Date.now() - started) / 1000)} s`);

const strip = (s: typeof a) => ({ photos: s.photos, persons: s.persons, gallery_size: s.gallery_size, non_mated_searches: s.non_mated_searches, mated_searches: s.mated_searches, impostor_pairs: s.impostorPairs });
console.log(
  JSON.stringify({
    descriptor: FACE_TEMPLATE_VERSION,
    dimension: FACE_TEMPLATE_LENGTH,
    lfw_dev: { photos: lfw.photos, faces: lfw.faces.length, choose: strip(a), report: strip(b) },
    fpir_target: FPIR_TARGET,
    threshold_chosen: chosen,
    threshold_service: DUPLICATE_FACE_THRESHOLD,
    at_chosen: atChosen,
    at_service: atService,
    scale_vectors: 'synthetic',
    scale,
    scale_1m_estimated: estimates,
    pglite_1m_limits: pgliteMillion,
    scale_s: Math.round((Date.now() - started) / 1000),
    at: new Date().toISOString(),
  }),
);
process.exit(0);
