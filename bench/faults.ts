/**
 * `npm run bench:faults`: the service as several machines run it (its own PostgreSQL cluster, two
 * API processes, two workers, a real webhook receiver; tests/helpers/fault-service.ts) under mixed
 * load (signed creations retried with their Idempotency-Key, journeys with real photos, decisions,
 * webhook deliveries), through every fault of the suite in turn: PostgreSQL restarted, PostgreSQL
 * unreachable for 10 s, an API SIGKILLed, the workers SIGKILLed during checks and during
 * deliveries, a webhook receiver that hangs then refuses then answers, and DATA_DIR's disk full
 * (DATA_DIR on a small tmpfs mounted for the run; skipped, with the reason printed, where the
 * system refuses the mount). The baseline is the same load with no fault, measured first in this
 * run. After each: acknowledged, stored, lost, duplicated, stuck, seconds to recover. Prints one
 * line per scenario, then ONE line of JSON.
 *
 * Environment: FAULTS_LANES (concurrent creation lanes, default 4), FAULTS_JOURNEYS (journeys per
 * scenario, default 4), FAULTS_OUTAGE_MS (default 10000).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startFaultService, type FaultService } from '../tests/helpers/fault-service.ts';
import {
  apiKilled,
  diskFull,
  noFault,
  postgresOutage,
  receiverMisbehaves,
  subscribe,
  workerKilledDuringChecks,
  workerKilledDuringDeliveries,
  type ScenarioResult,
  type ScenarioSize,
} from '../tests/helpers/fault-scenarios.ts';

const size: ScenarioSize = {
  creationLanes: Number(process.env.FAULTS_LANES ?? 4),
  journeys: Number(process.env.FAULTS_JOURNEYS ?? 4),
  outageMs: 0,
};
const outageMs = Number(process.env.FAULTS_OUTAGE_MS ?? 10_000);
const TMPFS_BYTES = 64 * 1024 * 1024;

/** DATA_DIR on a tmpfs of its own, or the reason it cannot be. */
function mountTmpfs(): { dir: string; unmount: () => void } | { reason: string } {
  const dir = mkdtempSync(join(tmpdir(), 'idv-faults-tmpfs-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${TMPFS_BYTES},mode=0700`, 'tmpfs', dir], { stdio: 'pipe' });
    return {
      dir,
      unmount: () => {
        try {
          // Lazy: detached at once even if a process killed a moment ago still holds it.
          execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    };
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    return { reason: `mount -t tmpfs refused: ${String((err as { stderr?: Buffer }).stderr ?? (err as Error).message).trim()}` };
  }
}

async function main(): Promise<void> {
  const tmpfs = mountTmpfs();
  if ('unmount' in tmpfs) process.on('exit', () => tmpfs.unmount());
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(130));
  let svc: FaultService | null = null;
  const results: (ScenarioResult | { scenario: string; skipped: string })[] = [];
  const print = (r: ScenarioResult | { scenario: string; skipped: string }) => {
    results.push(r);
    if ('skipped' in r) console.log(`${r.scenario.padEnd(44)} SKIPPED: ${r.skipped}`);
    else
      console.log(
        `${r.scenario.padEnd(44)} acknowledged ${r.acknowledged}, stored ${r.stored}, lost ${r.lost}, duplicated ${r.duplicated}, ` +
          `journeys ${r.journeys_finished} (decided once ${r.decided_once}), webhooks missing ${r.webhooks_missing}, stuck ${r.stuck}, ` +
          `503 ${r.answered_503} (malformed ${r.malformed_503}), 500 ${r.answered_500}, usage 201 ${r.usage_201_written}/${r.usage_201_answered}, ` +
          `recover ${r.seconds_to_recover} s, settle ${r.seconds_to_settle} s, creations ${r.creations_per_s}/s (${baseline ? (r.creations_per_s / baseline).toFixed(2) : '1.00'}× the baseline)`,
      );
  };
  const started = Date.now();
  let baseline = 0;
  try {
    svc = await startFaultService('dir' in tmpfs ? { dataDir: tmpfs.dir } : {});
    await subscribe(svc);
    console.log(`service up in ${Math.round((Date.now() - started) / 1000)} s (cluster on port ${svc.cluster.port}); load: ${JSON.stringify(size)}`);
    const base = await noFault(svc, size);
    baseline = base.creations_per_s;
    print(base);
    print(await postgresOutage(svc, size));
    print(await postgresOutage(svc, { ...size, outageMs }));
    print(await apiKilled(svc, size));
    print(await workerKilledDuringChecks(svc, size));
    print(await workerKilledDuringDeliveries(svc, size));
    print(await receiverMisbehaves(svc, size));
    if ('dir' in tmpfs) print(await diskFull(svc, size, tmpfs.dir));
    else print({ scenario: 'DATA_DIR disk full', skipped: tmpfs.reason });
  } finally {
    await svc?.close();
  }
  const measured = results.filter((r): r is ScenarioResult => !('skipped' in r));
  const total = (k: 'acknowledged' | 'stored' | 'lost' | 'duplicated' | 'stuck' | 'answered_500' | 'malformed_503') => measured.reduce((n, r) => n + r[k], 0);
  console.log(
    JSON.stringify({
      bench: 'faults',
      load: size,
      outage_ms: outageMs,
      seconds: Math.round((Date.now() - started) / 1000),
      acknowledged: total('acknowledged'),
      stored: total('stored'),
      lost: total('lost'),
      duplicated: total('duplicated'),
      stuck: total('stuck'),
      answered_500: total('answered_500'),
      malformed_503: total('malformed_503'),
      baseline_creations_per_s: baseline,
      scenarios: results.map((r) => ('skipped' in r ? r : { ...r, creations_vs_baseline: baseline ? Math.round((r.creations_per_s / baseline) * 100) / 100 : null })),
    }),
  );
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
