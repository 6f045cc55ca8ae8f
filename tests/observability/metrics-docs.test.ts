import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { collectProcessMetrics, registry } from '@idv/metrics';
import { ROOT } from '../helpers/processes.ts';

/**
 * The sample dashboard and docs/metrics.md name the metrics the service has: a renamed metric
 * fails here rather than leaving an empty panel; every metric the service defines is documented.
 */
test('docs/metrics.md lists every metric, and the Grafana dashboard queries only metrics that exist', async () => {
  collectProcessMetrics();
  const names = new Set((await registry.getMetricsAsJSON()).map((m) => m.name));
  // Histograms are queried through their _bucket, _sum and _count series.
  const series = (name: string) => name.replace(/_(bucket|sum|count)$/, '');

  const dashboard = JSON.parse(readFileSync(`${ROOT}/docs/grafana-dashboard.json`, 'utf8'));
  const exprs: string[] = dashboard.panels.flatMap((p: { targets?: { expr: string }[] }) => (p.targets ?? []).map((t) => t.expr));
  assert.ok(exprs.length >= 15);
  for (const expr of exprs) {
    for (const [name] of expr.matchAll(/\bidv_[a-z0-9_]+/g)) assert.ok(names.has(series(name)), `${name} in the dashboard exists`);
  }

  const doc = readFileSync(`${ROOT}/docs/metrics.md`, 'utf8');
  for (const name of names) {
    if (!/^idv_(nodejs|process)_/.test(name)) assert.ok(doc.includes(`\`${name}\``), `${name} is in docs/metrics.md`);
  }
});
