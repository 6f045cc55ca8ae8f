import { Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The process's one registry: every metric of the service is defined on it, whatever part of the
 * process records it (the API, the worker's loops), and GET /metrics serves it. Each process
 * (`npm start`, `npm run api`, every `npm run worker`) has its own and is scraped on its own;
 * Prometheus adds them up across instances.
 */
export const registry = new Registry();

let defaults = false;

/**
 * prom-client's default metrics: event-loop lag (and its percentiles), heap and resident memory,
 * CPU, handles, garbage collection. Started once per process, by whatever serves the metrics or
 * records the first one; the event-loop monitor samples every 10 ms (prom-client's default).
 */
export function collectProcessMetrics(): void {
  if (defaults) return;
  defaults = true;
  collectDefaultMetrics({ register: registry, prefix: 'idv_' });
}
