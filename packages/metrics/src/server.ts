import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { watchDatabase } from './database.ts';
import { collectProcessMetrics, registry } from './registry.ts';

interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

/**
 * GET /metrics in the Prometheus text format, on a port of its own (METRICS_PORT), apart from the
 * API: the API's port can be public while this one stays on the internal network. A plain
 * node:http server: nothing of the API's (authentication, rate limits) applies to the scraper.
 */
async function startMetricsServer(port: number, host: string): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    // The process runs: a worker, which has no API port, answers its liveness probe (a container's
    // HEALTHCHECK, Kubernetes' livenessProbe) here.
    if (path === '/livez') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}\n');
      return;
    }
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: the metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return;
    }
    registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': registry.contentType }).end(req.method === 'HEAD' ? undefined : text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * What each process does at start (`npm start`, `npm run api`, `npm run worker`): the default
 * process metrics, the gauges read from its database, and GET /metrics on `port` of `host`
 * unless the port is 0 (the metrics are still recorded; nothing serves them).
 */
export async function serveProcessMetrics(
  port: number,
  host: string,
  database: Parameters<typeof watchDatabase>[0],
): Promise<{ port: number | null; close(): Promise<void> }> {
  collectProcessMetrics();
  const unwatch = watchDatabase(database);
  const server = port === 0 ? null : await startMetricsServer(port, host);
  return {
    port: server?.port ?? null,
    async close() {
      unwatch();
      await server?.close();
    },
  };
}
