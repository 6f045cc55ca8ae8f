import type { FaultService } from './fault-service.ts';
import type { LoadRecord } from './fault-load.ts';

/**
 * What must hold after each fault, once the service has settled or at the deadline: every
 * acknowledged creation stored once, every finished journey decided once with its webhook
 * delivered, no job stuck, the usage of 201 written, and outage answers 503 with Retry-After, none 500.
 */
export interface FaultCounts {
  acknowledged: number;
  stored: number;
  lost: number;
  duplicated: number;
  journeys_finished: number;
  decided_once: number;
  decided_more_than_once: number;
  undecided: number;
  webhooks_missing: number;
  stuck: number;
  answered_503: number;
  malformed_503: number;
  answered_500: number;
  network_errors: number;
  usage_201_written: number;
  usage_201_answered: number;
  /** Seconds from the fault's end until everything above settled. */
  seconds_to_settle: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function measure(svc: FaultService, rec: LoadRecord): Promise<Omit<FaultCounts, 'seconds_to_settle'>> {
  const q = svc.cluster.query.bind(svc.cluster);
  const refs = [...rec.acknowledged.keys()];
  const stored = await q<{ external_ref: string; n: string }>(
    'SELECT external_ref, count(*) AS n FROM cases WHERE external_ref = ANY($1) GROUP BY external_ref',
    [refs],
  );
  const perRef = new Map(stored.map((r) => [r.external_ref, Number(r.n)]));
  const finished = [...rec.finished];
  const events = await q<{ object_id: string; n: string }>(
    // A case sent to review announces it with case.decided (outcome manual_review); the decision
    // that ends it is the one that must exist exactly once.
    "SELECT object_id, count(*) AS n FROM webhook_events WHERE type = 'case.decided' AND (body::jsonb -> 'data' ->> 'outcome') <> 'manual_review' AND object_id = ANY($1) GROUP BY object_id",
    [finished],
  );
  const decided = new Map(events.map((r) => [r.object_id, Number(r.n)]));
  const delivered = new Set<string>();
  for (const r of svc.receiver.received) {
    try {
      const body = JSON.parse(r.body.toString('utf8')) as { type?: string; object?: { id?: string }; data?: { outcome?: string } };
      if (body.type === 'case.decided' && body.data?.outcome !== 'manual_review' && body.object?.id) delivered.add(body.object.id);
    } catch {
      // not a webhook body
    }
  }
  const [{ n: pendingJobs }] = await q<{ n: string }>("SELECT count(*) AS n FROM check_jobs WHERE status = 'pending'");
  const [{ n: pendingDeliveries }] = await q<{ n: string }>("SELECT count(*) AS n FROM webhook_deliveries WHERE status IN ('pending', 'retrying')");
  const usage = (await usage201(svc)) - rec.usageBase;
  const decidedIds = [...decided.keys()];
  return {
    acknowledged: refs.length,
    stored: refs.filter((r) => (perRef.get(r) ?? 0) >= 1).length,
    lost: refs.filter((r) => !perRef.has(r)).length,
    duplicated: refs.filter((r) => (perRef.get(r) ?? 0) > 1).length,
    journeys_finished: finished.length,
    decided_once: finished.filter((id) => decided.get(id) === 1).length,
    decided_more_than_once: finished.filter((id) => (decided.get(id) ?? 0) > 1).length,
    undecided: finished.filter((id) => !decided.has(id)).length,
    webhooks_missing: decidedIds.filter((id) => !delivered.has(id)).length,
    stuck: Number(pendingJobs) + Number(pendingDeliveries),
    answered_503: rec.unavailable.length,
    malformed_503: rec.unavailable.filter((u) => u.code !== 'service_unavailable' || !u.retryAfter || !/^req_/.test(u.requestId ?? '')).length,
    answered_500: rec.serverErrors.length,
    network_errors: rec.networkErrors,
    usage_201_written: Number(usage),
    usage_201_answered: rec.answered201,
  };
}

/** The usage counts of 201 written so far for the demo client. */
async function usage201(svc: FaultService): Promise<number> {
  const [{ n }] = await svc.cluster.query<{ n: string }>('SELECT coalesce(sum(calls), 0) AS n FROM api_usage_daily WHERE client_id = $1 AND status_code = 201', [svc.creds.client_id]);
  return Number(n);
}

/**
 * The usage counts once the flushes of what was answered before have landed (every API flushes
 * each second): the base a scenario's counts are compared from.
 */
export async function settledUsage(svc: FaultService): Promise<number> {
  let last = await usage201(svc);
  for (let i = 0; i < 10; i++) {
    await sleep(1_200);
    const now = await usage201(svc);
    if (now === last) return now;
    last = now;
  }
  return last;
}

/**
 * Waits (polling, until `deadlineMs` from now) for the service to settle: nothing pending, every
 * finished journey decided, every decision delivered, and, when `usageExact`, the usage counts
 * equal to the 201s answered. Returns the counts then (or at the deadline).
 */
export async function settle(svc: FaultService, rec: LoadRecord, deadlineMs: number, usageExact: boolean): Promise<FaultCounts> {
  const started = Date.now();
  let counts = await measure(svc, rec);
  const settled = (c: typeof counts) =>
    c.stuck === 0 && c.undecided === 0 && c.webhooks_missing === 0 && (!usageExact || c.usage_201_written === c.usage_201_answered);
  while (!settled(counts) && Date.now() - started < deadlineMs) {
    await sleep(250);
    counts = await measure(svc, rec);
  }
  return { ...counts, seconds_to_settle: Math.round((Date.now() - started) / 100) / 10 };
}

/** Polls `url` until it answers `status` (or the deadline); returns the seconds it took. */
export async function waitForStatus(url: string, status: number, deadlineMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(5_000) });
      await res.arrayBuffer();
      if (res.status === status) return (Date.now() - started) / 1000;
    } catch {
      // not answering
    }
    await sleep(100);
  }
  throw new Error(`${url} did not answer ${status} within ${deadlineMs} ms`);
}
