/**
 * `npm run bench:metrics`: what the request-duration histogram and the request id context add to
 * each API request, against a baseline measured in the same run: prom-client's own `observe`
 * with a label object made per call (the plainest way to record a request).
 *
 * - time per call (ns) and bytes allocated per call (heap growth over batches that ran no
 *   garbage collection, the median of many) of: the baseline; RequestDurations.observe (what the
 *   onResponse hook runs: a labelled child per route and status, found through the route's
 *   config object); runForRequest (the preHandler hook: the request id in AsyncLocalStorage) over
 *   an empty callback, against the callback called directly.
 *
 * Environment: BENCH_CALLS (per measurement, default 2,000,000). Ends with one line of JSON.
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { runForRequest } from '@idv/db';
import { RequestDurations, httpRequestDuration } from '@idv/metrics';

const CALLS = Number(process.env.BENCH_CALLS ?? 2_000_000);
const BATCH = 1000;

let gcs = 0;
new PerformanceObserver((list) => (gcs += list.getEntries().length)).observe({ entryTypes: ['gc'] });

/** ns per call, and the median bytes allocated per call over batches without a collection. */
async function measure(name: string, fn: (i: number) => void): Promise<{ name: string; nsPerCall: number; bytesPerCall: number }> {
  for (let i = 0; i < 100_000; i++) fn(i); // warm-up: compiled, children made
  const started = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) fn(i);
  const nsPerCall = Number(process.hrtime.bigint() - started) / CALLS;
  const samples: number[] = [];
  for (let b = 0; b < 2000; b++) {
    const before = process.memoryUsage().heapUsed;
    const gcBefore = gcs;
    for (let i = 0; i < BATCH; i++) fn(i);
    const grown = process.memoryUsage().heapUsed - before;
    // GC entries are delivered asynchronously: let them arrive before judging the batch.
    if (b % 50 === 0) await new Promise((r) => setImmediate(r));
    if (gcs === gcBefore && grown >= 0) samples.push(grown / BATCH);
  }
  samples.sort((a, b) => a - b);
  return { name, nsPerCall: Math.round(nsPerCall), bytesPerCall: Math.round(samples[Math.floor(samples.length / 2)] ?? NaN) };
}

const routes = ['/v1/cases', '/v1/cases/:case_id', '/v1/sessions', '/v1/webhook-endpoints'].map((url) => ({ url, config: {} }));
const statuses = [200, 201, 404];
const durations = new RequestDurations();
let sink = 0;
const empty = () => {
  sink++;
};

const baseline = await measure('prom-client observe, label object per call', (i) => {
  const r = routes[i & 3];
  httpRequestDuration.observe({ route: r.url, method: 'POST', status: String(statuses[i % 3]) }, 0.004);
});
const ours = await measure('RequestDurations.observe (onResponse hook)', (i) => {
  const r = routes[i & 3];
  durations.observe(r.config, r.url, 'POST', statuses[i % 3], 0.004);
});
const direct = await measure('callback called directly', () => empty());
const context = await measure('runForRequest (preHandler hook)', () => runForRequest('req_01kb2example0000000000000', empty));

const results = [baseline, ours, direct, context];
for (const r of results) console.log(`${r.name.padEnd(48)} ${String(r.nsPerCall).padStart(6)} ns/call  ${String(r.bytesPerCall).padStart(5)} B/call`);
console.log(`histogram: ${(ours.nsPerCall / baseline.nsPerCall).toFixed(2)}× the baseline's time, ${ours.bytesPerCall - baseline.bytesPerCall} B/call more than it`);
console.log(`request id context: +${context.nsPerCall - direct.nsPerCall} ns and +${context.bytesPerCall - direct.bytesPerCall} B per request`);
console.log(
  JSON.stringify({
    bench: 'metrics',
    calls: CALLS,
    observe_baseline: baseline,
    observe_ours: ours,
    ratio_time: Number((ours.nsPerCall / baseline.nsPerCall).toFixed(2)),
    extra_bytes_per_request: ours.bytesPerCall - baseline.bytesPerCall,
    request_context: { ns: context.nsPerCall - direct.nsPerCall, bytes: context.bytesPerCall - direct.bytesPerCall },
    sink,
  }),
);
