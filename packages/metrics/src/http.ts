import { Histogram } from 'prom-client';
import { registry } from './registry.ts';

/**
 * API request durations by route pattern (`/v1/cases/:id`, never the URL: no id, no query, no
 * personal data in labels), method and status code. Requests that match no route are counted
 * under the route `unmatched`. From the request's arrival to the end of the answer, as Fastify
 * measures it (reply.elapsedTime).
 */
export const httpRequestDuration = new Histogram({
  name: 'idv_http_request_duration_seconds',
  help: 'API request duration by route pattern, method and status code',
  labelNames: ['route', 'method', 'status'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  registers: [registry],
});

type Child = ReturnType<typeof httpRequestDuration.labels>;

/**
 * Records one request. The labelled child of each route and status is made once and kept, keyed
 * by the route's own (long-lived) config object and the status number: a request then costs
 * prom-client's observe and two lookups, no label object or key string of its own.
 */
export class RequestDurations {
  private readonly byRoute = new WeakMap<object, Map<number, Child>>();
  private readonly unmatched = new Map<string, Map<number, Child>>();

  observe(routeKey: object | undefined, route: string | undefined, method: string, status: number, seconds: number): void {
    let children: Map<number, Child> | undefined;
    if (routeKey && route) {
      children = this.byRoute.get(routeKey);
      if (!children) this.byRoute.set(routeKey, (children = new Map()));
    } else {
      // Methods are a short list Node's parser accepts; paths never become labels here.
      children = this.unmatched.get(method);
      if (!children) this.unmatched.set(method, (children = new Map()));
    }
    let child = children.get(status);
    if (!child) {
      child = httpRequestDuration.labels(routeKey && route ? route : 'unmatched', method, String(status));
      children.set(status, child);
    }
    child.observe(seconds);
  }
}
