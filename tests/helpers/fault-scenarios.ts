import { settle, settledUsage, waitForStatus, type FaultCounts } from './fault-checks.ts';
import { creationStream, decideReviews, newRecord, runJourney, type LoadRecord } from './fault-load.ts';
import type { FaultService, Node } from './fault-service.ts';
import { execFileSync } from 'node:child_process';
import { statfsSync } from 'node:fs';
import { signing } from './signing.ts';

/**
 * The faults of the suite, each under the mixed load, shared by tests/faults (few cases, the
 * short scenarios) and bench:faults (all of them, more load). Each returns the counts of
 * fault-checks.ts plus the seconds the service took to recover (ready again, or the work of the
 * killed process taken over). Waits are on conditions with deadlines, never bare sleeps, except
 * the length of an outage itself.
 */

export interface ScenarioSize {
  /** Concurrent lanes of signed creations during the fault. */
  creationLanes: number;
  /** Journeys with real photos run during the fault (half of them end in review, decided by key). */
  journeys: number;
  /** How long PostgreSQL stays unreachable (ms). */
  outageMs: number;
}

export interface ScenarioResult extends FaultCounts {
  scenario: string;
  seconds_to_recover: number;
  /** Creations acknowledged per second while the fault ran (the stream's whole window). */
  creations_per_s: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let serial = 0;

async function until(what: string, cond: () => boolean | Promise<boolean>, deadlineMs: number): Promise<void> {
  const end = Date.now() + deadlineMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out after ${deadlineMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** The endpoint every decision is sent to (case.decided), created once. */
export async function subscribe(svc: FaultService): Promise<void> {
  const path = '/v1/webhook-endpoints';
  const body = JSON.stringify({ url: `${svc.receiver.url}/hooks`, events: ['case.decided'] });
  const res = await fetch(svc.apis[0].url + path, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${svc.creds.api_key.secret}`,
      'content-type': 'application/json',
      ...signing.headers(svc.creds.api_key.signing_secret, 'POST', path, body, `sub-${Date.now()}-${serial++}`),
    },
    body,
  });
  if (res.status !== 201) throw new Error(`webhook endpoint: ${res.status} ${await res.text()}`);
}

/**
 * Runs `fault` while creations stream and journeys run, then finishes the journeys, decides the
 * reviews and waits for the service to settle.
 */
async function underLoad(
  svc: FaultService,
  name: string,
  size: ScenarioSize,
  fault: (rec: LoadRecord) => Promise<number>,
  opts: { usageExact: boolean; settleMs: number },
): Promise<ScenarioResult> {
  const rec = newRecord();
  rec.usageBase = await settledUsage(svc);
  const prefix = `${name}-${serial++}`;
  const streamed = Date.now();
  const stopStream = creationStream(svc, rec, prefix, size.creationLanes);
  const deadline = Date.now() + 120_000;
  const journeys = Array.from({ length: size.journeys }, (_, i) => runJourney(svc, rec, `${prefix}-j${i}`, i % 2 === 0, deadline));
  let recover: number;
  try {
    recover = await fault(rec);
  } finally {
    await stopStream();
  }
  const creationsPerS = Math.round((rec.acknowledged.size / ((Date.now() - streamed) / 1000)) * 10) / 10;
  const finished = (await Promise.all(journeys)).filter((id): id is string => id !== null);
  await decideReviews(svc, rec, finished, Date.now() + opts.settleMs);
  const counts = await settle(svc, rec, opts.settleMs, opts.usageExact);
  const crashed = svc.crashed();
  if (crashed.length) throw new Error(`${name}: processes crashed:\n${crashed.join('\n')}`);
  if (rec.unexpected.length) throw new Error(`${name}: unexpected answers:\n${rec.unexpected.slice(0, 10).join('\n')}`);
  return { scenario: name, seconds_to_recover: Math.round(recover * 10) / 10, creations_per_s: creationsPerS, ...counts };
}

/** Waits until the load has had some creations acknowledged (so that the fault lands mid-load). */
const someLoad = (rec: LoadRecord, n: number) => until(`${n} creations acknowledged`, () => rec.acknowledged.size >= n, 60_000);

/**
 * PostgreSQL stopped (`pg_ctl stop -m fast`) for `outageMs`, then started: while it is down every
 * API's /readyz answers 503 and requests 503 service_unavailable; once it is back, ready again
 * without any restart. Recovery is measured from the start of the server to both APIs ready.
 */
export function postgresOutage(svc: FaultService, size: ScenarioSize, settleMs = 90_000): Promise<ScenarioResult> {
  return underLoad(
    svc,
    size.outageMs > 0 ? `postgres unreachable ${size.outageMs / 1000} s` : 'postgres restarted',
    size,
    async (rec) => {
      await someLoad(rec, 3);
      if (size.outageMs > 0) {
        await svc.cluster.stop();
        await Promise.all(svc.liveApis().map((api) => waitForStatus(`${api}/readyz`, 503, 10_000)));
        await until('a request answered 503 during the outage', () => rec.unavailable.length > 0, size.outageMs + 10_000);
        await sleep(Math.max(0, size.outageMs - 1000));
        await svc.cluster.start();
      } else {
        await svc.cluster.restart();
      }
      const back = Date.now();
      await Promise.all(svc.liveApis().map((api) => waitForStatus(`${api}/readyz`, 200, 60_000)));
      const acked = rec.acknowledged.size;
      await until('creations acknowledged again', () => rec.acknowledged.size > acked, 60_000);
      return (Date.now() - back) / 1000;
    },
    { usageExact: true, settleMs },
  );
}

/** An API process SIGKILLed mid-load (the other takes the requests), then started again. */
export function apiKilled(svc: FaultService, size: ScenarioSize, settleMs = 90_000): Promise<ScenarioResult> {
  return underLoad(
    svc,
    'api SIGKILL',
    size,
    async (rec) => {
      await someLoad(rec, 3);
      await svc.kill(svc.apis[0]);
      const killed = Date.now();
      const acked = rec.acknowledged.size;
      await until('creations acknowledged by the other API', () => rec.acknowledged.size >= acked + 3, 60_000);
      const recovered = (Date.now() - killed) / 1000;
      await svc.revive(svc.apis[0]);
      return recovered;
    },
    // Counts of the killed process's last second are lost with it (flushed every second).
    { usageExact: false, settleMs },
  );
}

/** Whether some worker holds a live claim on a row of `table` now. */
async function claimedBy(svc: FaultService, table: 'check_jobs' | 'webhook_deliveries'): Promise<boolean> {
  const rows = await svc.cluster.query<{ n: string }>(`SELECT count(*) AS n FROM ${table} WHERE claim_token IS NOT NULL AND locked_until > now()`);
  return Number(rows[0].n) > 0;
}

/**
 * The workers SIGKILLed while checks run (a check job claimed): both, so that whichever held the
 * job died with it, and started again at once; the job's lease lapses and a worker runs it again;
 * the case is decided once.
 */
export function workerKilledDuringChecks(svc: FaultService, size: ScenarioSize, settleMs = 120_000, recoverMs = 120_000): Promise<ScenarioResult> {
  return underLoad(
    svc,
    'worker SIGKILL during checks',
    { ...size, journeys: Math.max(1, size.journeys) },
    async () => {
      await until('a check job claimed', () => claimedBy(svc, 'check_jobs'), 120_000);
      const killed = Date.now();
      await Promise.all(svc.workers.map((w) => killAndRevive(svc, w)));
      // Recovered once the killed run was taken over (after its lease) and every job concluded.
      await until('every check job concluded', async () => (await pendingChecks(svc)) === 0, recoverMs);
      return (Date.now() - killed) / 1000;
    },
    { usageExact: false, settleMs },
  );
}

/** A worker SIGKILLed while deliveries are in flight (the receiver holds them 1.5 s): sent again after the lease. */
export function workerKilledDuringDeliveries(svc: FaultService, size: ScenarioSize, settleMs = 120_000): Promise<ScenarioResult> {
  svc.receiver.behave(() => ({ status: 200, delayMs: 1500 }));
  return underLoad(
    svc,
    'worker SIGKILL during deliveries',
    { ...size, journeys: Math.max(2, size.journeys) },
    async () => {
      await until('a delivery in flight', () => claimedBy(svc, 'webhook_deliveries'), 120_000);
      const killed = Date.now();
      await Promise.all(svc.workers.map((w) => svc.kill(w)));
      svc.receiver.behave(() => ({ status: 200 }));
      await Promise.all(svc.workers.map((w) => svc.revive(w)));
      return (Date.now() - killed) / 1000;
    },
    { usageExact: false, settleMs },
  ).finally(() => svc.receiver.behave(() => ({ status: 200 })));
}

async function pendingChecks(svc: FaultService): Promise<number> {
  const rows = await svc.cluster.query<{ n: string }>("SELECT count(*) AS n FROM check_jobs WHERE status = 'pending'");
  return Number(rows[0].n);
}

async function killAndRevive(svc: FaultService, node: Node): Promise<void> {
  await svc.kill(node);
  await svc.revive(node);
}

/**
 * The webhook receiver hangs (past the attempt timeout), then refuses (503), then answers: every
 * decision is still delivered, by the retries.
 */
export function receiverMisbehaves(svc: FaultService, size: ScenarioSize, settleMs = 120_000): Promise<ScenarioResult> {
  let phase: 'hang' | 'refuse' | 'answer' = 'hang';
  svc.receiver.behave(() => (phase === 'hang' ? { status: 200, delayMs: 10_000 } : phase === 'refuse' ? { status: 503 } : { status: 200 }));
  return underLoad(
    svc,
    'webhook receiver hangs, refuses, answers',
    { ...size, journeys: Math.max(2, size.journeys) },
    async () => {
      const seen = () => svc.receiver.received.length;
      const before = seen();
      await until('a delivery attempt that hangs', () => seen() > before, 120_000);
      const hung = seen();
      phase = 'refuse';
      await until('a delivery attempt refused', () => seen() > hung, 60_000);
      phase = 'answer';
      return 0;
    },
    { usageExact: false, settleMs },
  ).finally(() => svc.receiver.behave(() => ({ status: 200 })));
}

/** The same load with no fault: the baseline of the run. */
export function noFault(svc: FaultService, size: ScenarioSize, settleMs = 120_000): Promise<ScenarioResult> {
  return underLoad(
    svc,
    'no fault (baseline)',
    size,
    async () => {
      await sleep(10_000);
      return 0;
    },
    { usageExact: true, settleMs },
  );
}

/**
 * DATA_DIR's disk full (`dir` is a tmpfs of its own, remounted to the size it already uses):
 * image uploads are answered 503 with Retry-After (nothing half-written), the rest of the service
 * goes on; once the space is back (remounted to its size) the journeys finish. Recovery is from
 * the space coming back to every journey finished.
 */
export function diskFull(svc: FaultService, size: ScenarioSize, dir: string, settleMs = 120_000): Promise<ScenarioResult> {
  const sizeOf = () => {
    const s = statfsSync(dir);
    return { total: s.blocks * s.bsize, used: (s.blocks - s.bfree) * s.bsize };
  };
  const { total } = sizeOf();
  const remount = (bytes: number) => execFileSync('mount', ['-o', `remount,size=${bytes}`, dir], { stdio: 'pipe' });
  let full = 0;
  return underLoad(
    svc,
    'DATA_DIR disk full',
    { ...size, journeys: Math.max(2, size.journeys) },
    async (rec) => {
      // Full: no room beyond what is there (a page of slack, less than any photo).
      remount(sizeOf().used + 4096);
      full = Date.now();
      await until('an upload answered 503 while the disk is full', () => rec.unavailable.length > 0, 60_000);
      remount(total);
      const freed = Date.now();
      await until('the journeys finished once space is back', () => rec.finished.size >= Math.max(2, size.journeys), 120_000);
      return (Date.now() - freed) / 1000;
    },
    { usageExact: false, settleMs },
  ).finally(() => {
    if (full) remount(total);
  });
}
