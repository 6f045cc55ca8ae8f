/**
 * Pipeline section of bench:checks: the whole automated path of a case on this machine, from the
 * check job's claim to the committed decision — pieces opened under the case keys, the engine in
 * the thread pool (document, printed-zone OCR and each face image as parallel tasks), duplicates
 * among the client's earlier cases, the policy, and the one transaction that stores everything
 * and emits the event.
 * Cases are generated: a passport page (the project's generator, phone-photo degradation) with a
 * real fixture photo printed as the portrait, and another real photo of the same person as the
 * selfie, entered data matching the document; created by the API and sent through the journey
 * routes of the real app (on the test database: in-memory PGlite unless TEST_DB=postgres).
 *
 * - latency: one case at a time (BENCH_CASES, default 16), p50 / p95 of claim → commit, and the
 *   engine's own parts (document, face) for reading it; the process's CPU time per case (every
 *   thread, tesseract's included) beside it, since on a shared machine wall time alone says
 *   little; and each pool task's p50 and p95 wall and thread CPU time (tesseract's own thread
 *   excluded), where the tail shows which task it comes from;
 * - throughput: BENCH_BATCH cases (default 16) waiting at once, drained by the runner with 1 and
 *   then 2 cases in flight; cases per minute.
 * Runnable alone: `tsx bench/checks/pipeline.ts` prints one JSON line.
 */
import { performance } from 'node:perf_hooks';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { sql } from 'drizzle-orm';
import sharp from 'sharp';
import { queryRows } from '@idv/db';
import { STANDARD_FLOW, type FlowDefinition } from '@idv/domain';
import { ChecksPool, FIXTURES_DIR, generateDocument, randomIdentity, type CaseAnalysis, type CaseInput, type DocumentFields } from '@idv/engine';
import { ChecksRunner, type CaseAnalyser } from '@idv/worker';
import { PieceBlobs } from '@idv/case-data';
import { activateFlow, journey, newSession, openCase, startJourneyApp, type JourneyTestApp } from '../../tests/helpers/journey.ts';
import { newTenant, type TestTenant } from '../../tests/helpers/webhooks.ts';

const CASES = Number(process.env.BENCH_CASES ?? 16);
const BATCH = Number(process.env.BENCH_BATCH ?? 16);
const THREADS = Number(process.env.BENCH_THREADS ?? Math.min(4, availableParallelism()));
// The printed-zone OCR's threads: the pool's own default unless set.
const OCR_THREADS = process.env.BENCH_OCR_THREADS ? Number(process.env.BENCH_OCR_THREADS) : undefined;
const FLOW = 'bench_checks';
const DEFINITION: FlowDefinition = {
  ...STANDARD_FLOW,
  steps: ['applicant', 'document', 'face'],
  documents: [{ country: '*', types: ['passport'] }],
  liveness: { challenges: [] },
};

interface Entry { path: string; person: string | null; kind: string }

/**
 * People with at least two photos of kind portrait: one printed on the document, another as the
 * selfie (only photos the journey accepts as a selfie: at least 480×320).
 */
async function pairs(): Promise<{ portrait: string; selfie: string }[]> {
  const manifest = JSON.parse(readFileSync(join(FIXTURES_DIR, 'faces/manifest.json'), 'utf8')) as Entry[];
  const byPerson = new Map<string, string[]>();
  for (const e of manifest) {
    if (!e.person || e.kind !== 'portrait') continue;
    const path = join(FIXTURES_DIR, 'faces', e.path);
    const { width = 0, height = 0 } = await sharp(path).metadata();
    if (Math.max(width, height) >= 480 && Math.min(width, height) >= 320) byPerson.set(e.person, [...(byPerson.get(e.person) ?? []), path]);
  }
  const out: { portrait: string; selfie: string }[] = [];
  for (const photos of byPerson.values()) for (let i = 0; i + 1 < photos.length; i += 2) out.push({ portrait: photos[i], selfie: photos[i + 1] });
  if (out.length === 0) throw new Error(`no pair of photos of one person in ${FIXTURES_DIR}/faces`);
  return out;
}

function percentile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]);
}

/** Wraps the pool to keep the engine's own timings of each case. */
class TimedPool implements CaseAnalyser {
  readonly timings: CaseAnalysis['timings'][] = [];
  constructor(private readonly pool: ChecksPool) {}
  async analyse(input: CaseInput): Promise<CaseAnalysis> {
    const a = await this.pool.analyse(input);
    this.timings.push(a.timings);
    return a;
  }
}

async function submitCase(t: JourneyTestApp, who: TestTenant, seed: number, photos: { portrait: string; selfie: string }): Promise<string> {
  const fields: DocumentFields = { ...randomIdentity(seed), document_code: 'P' };
  const doc = await generateDocument({ format: 'TD3', fields, portrait: readFileSync(photos.portrait), seed });
  const caseId = await openCase(t, { flow_name: FLOW, country: 'FR', external_ref: `bench-${seed}` }, who.key);
  const token = await newSession(t, caseId, 'en', who.key);
  const entered = { given_names: fields.given_names ?? 'X', surname: fields.surname ?? 'X', birth_date: fields.birth_date ?? '1980-01-01' };
  for (const [path, body] of [['/applicant', entered], ['/document', { country: 'FR', type: 'passport' }]] as const) {
    const res = await journey(t, 'POST', path, token, { body });
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${res.body}`);
  }
  for (const [kind, bytes] of [['document_front', doc.image], ['selfie', readFileSync(photos.selfie)]] as const) {
    const res = await journey(t, 'PUT', `/pieces/${kind}`, token, { bytes });
    if (res.statusCode !== 200) throw new Error(`${kind}: ${res.statusCode} ${res.body}`);
  }
  const done = await journey(t, 'POST', '/finish', token);
  if (done.statusCode !== 200) throw new Error(`finish: ${done.statusCode} ${done.body}`);
  return caseId;
}

export async function measurePipeline(): Promise<Record<string, unknown>> {
  const t = await startJourneyApp();
  const pool = new ChecksPool({ threads: THREADS, ocrThreads: OCR_THREADS });
  try {
    const who = await newTenant(t, 'sandbox');
    await activateFlow(t, who.tenant.clientId, 'sandbox', FLOW, DEFINITION);
    const timed = new TimedPool(pool);
    const runner = (concurrency = 1) =>
      new ChecksRunner({
        db: t.database.db,
        keyring: t.ctx.keyring,
        vault: t.ctx.vault,
        pieces: new PieceBlobs(t.ctx.blobs, t.ctx.vault, t.ctx.keyring),
        analyser: timed,
        concurrency,
        pollMs: 20,
      });
    const photos = await pairs();
    const warmStart = performance.now();
    await pool.warmUp();
    const warmUpMs = Math.round(performance.now() - warmStart);

    // Latency: one case waiting at a time.
    const latencies: number[] = [];
    const cpuPerCase: number[] = [];
    const outcomes: Record<string, number> = {};
    const sequential = runner();
    for (let i = 0; i < CASES; i++) {
      await submitCase(t, who, 1000 + i, photos[i % photos.length]);
      const started = performance.now();
      const cpu = process.cpuUsage();
      const [ran] = await sequential.drain();
      latencies.push(performance.now() - started);
      const used = process.cpuUsage(cpu);
      cpuPerCase.push((used.user + used.system) / 1000);
      outcomes[ran.outcome] = (outcomes[ran.outcome] ?? 0) + 1;
    }
    const engine = timed.timings.splice(0);

    // Throughput: a batch waiting, drained with 1 then 2 cases in flight.
    const throughput: Record<string, number> = {};
    for (const concurrency of [1, 2]) {
      for (let i = 0; i < BATCH; i++) await submitCase(t, who, 5000 + concurrency * 1000 + i, photos[i % photos.length]);
      const r = runner(concurrency);
      const started = performance.now();
      const cpu = process.cpuUsage();
      await r.start();
      while ((await pendingJobs(t)) > 0) await new Promise((res) => setTimeout(res, 50));
      const minutes = (performance.now() - started) / 60_000;
      const used = process.cpuUsage(cpu);
      await r.stop();
      throughput[`cases_per_minute_${concurrency}_in_flight`] = Math.round((BATCH / minutes) * 10) / 10;
      // How busy the cores were while the batch drained: below the core count, the cases waited on something other than CPU.
      throughput[`cores_busy_${concurrency}_in_flight`] = Math.round(((used.user + used.system) / 1000 / (minutes * 60_000)) * 100) / 100;
    }
    return {
      database: t.database.kind,
      threads: THREADS,
      ocr_threads: pool.ocrThreads,
      cores: availableParallelism(),
      cases: CASES,
      warm_up_ms: warmUpMs,
      latency_p50_ms: percentile(latencies, 0.5),
      latency_p95_ms: percentile(latencies, 0.95),
      engine_document_p50_ms: percentile(engine.map((e) => e.document), 0.5),
      engine_face_p50_ms: percentile(engine.map((e) => e.face), 0.5),
      engine_total_p50_ms: percentile(engine.map((e) => e.total), 0.5),
      cpu_per_case_p50_ms: percentile(cpuPerCase, 0.5),
      tasks: taskFigures(engine),
      outcomes,
      ...throughput,
    };
  } finally {
    await pool.destroy();
    await t.close();
  }
}

/** Each pool task's p50 and p95 wall and thread CPU time, and how many cases ran it (the tail is read here). */
function taskFigures(engine: CaseAnalysis['timings'][]): Record<string, { runs: number; wall_p50_ms: number; wall_p95_ms: number; cpu_p50_ms: number | null; cpu_p95_ms: number | null }> {
  const names = new Set(engine.flatMap((e) => Object.keys(e.tasks ?? {})));
  const out: Record<string, { runs: number; wall_p50_ms: number; wall_p95_ms: number; cpu_p50_ms: number | null; cpu_p95_ms: number | null }> = {};
  for (const name of names) {
    const runs = engine.flatMap((e) => (e.tasks?.[name] ? [e.tasks[name]] : []));
    const cpu = runs.flatMap((r) => (r.cpuMs === null ? [] : [r.cpuMs]));
    const wall = runs.map((r) => r.ms);
    out[name] = {
      runs: runs.length,
      wall_p50_ms: percentile(wall, 0.5),
      wall_p95_ms: percentile(wall, 0.95),
      cpu_p50_ms: cpu.length ? percentile(cpu, 0.5) : null,
      cpu_p95_ms: cpu.length ? percentile(cpu, 0.95) : null,
    };
  }
  return out;
}

async function pendingJobs(t: JourneyTestApp): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t.database.db, sql`SELECT count(*)::int AS n FROM check_jobs WHERE status = 'pending'`);
  return Number(row.n);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const figures = await measurePipeline();
  console.log(JSON.stringify({ pipeline: figures }));
}
