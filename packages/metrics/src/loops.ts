import { Counter } from 'prom-client';
import { registry } from './registry.ts';

/** The background loops whose failures are counted (a fixed list: the label's values). */
const LOOPS = ['usage_flush', 'dispatcher', 'webhook_log_purge', 'retention_sweeper', 'checks_runner'] as const;
export type BackgroundLoop = (typeof LOOPS)[number];

/**
 * Failures of the background loops (a round that threw and was caught, logged and retried): a
 * loop that keeps failing shows here before anything piles up.
 */
const loopFailures = new Counter({
  name: 'idv_background_loop_failures_total',
  help: 'Background loop failures (caught, logged, retried) by loop',
  labelNames: ['loop'] as const,
  registers: [registry],
});
// Every loop present from the start at 0, so that rate() and increase() see the first failure.
for (const loop of LOOPS) loopFailures.inc({ loop }, 0);

export function countLoopFailure(loop: BackgroundLoop): void {
  loopFailures.inc({ loop });
}
