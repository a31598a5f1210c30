/**
 * Issue 39 §1: the dashboards (deploy/grafana/*.json) and the alert rules (deploy/prometheus/alerts.yml) read only
 * series this service exposes: every `agent_commerce_*` and `http_server_*` name they use is registered by
 * src/telemetry/metrics.ts, under the same name (a rename there breaks this test, not a dashboard silently).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createMetricsRegistry, HttpMetrics, registerBusinessMetrics } from '../../src/telemetry/metrics';
import type { BusinessSnapshot } from '../../src/repos/metrics';

const deploy = path.join(__dirname, '..', '..', 'deploy');

/** Every PromQL expression of a Grafana dashboard (panels and rows' panels). */
function exprs(dashboard: { panels?: unknown[] }): string[] {
  const out: string[] = [];
  const walk = (p: unknown): void => {
    if (!p || typeof p !== 'object') return;
    const panel = p as { targets?: { expr?: string }[]; panels?: unknown[] };
    for (const t of panel.targets ?? []) if (t.expr) out.push(t.expr);
    for (const c of panel.panels ?? []) walk(c);
  };
  for (const p of dashboard.panels ?? []) walk(p);
  return out;
}

test('dashboards and alert rules name only series the processes expose', async () => {
  const registry = createMetricsRegistry('test');
  new HttpMetrics(registry).observe('GET', '/health', 200, process.hrtime.bigint());
  const snapshot: BusinessSnapshot = {
    ordersByStatus: { delivered: 1 },
    takenByRail: { agent_wallet: 1 },
    returnedByRail: {},
    refundsDue: {},
    webhookMessages: { failed: 0 },
    x402ByStatus: {},
    checkoutSessions: {},
    reconciliation: { discrepancies: 0, finishedAt: new Date(), ok: true },
  };
  registerBusinessMetrics(registry, async () => snapshot);
  const text = await registry.metrics();
  const declared = new Set(
    [...text.matchAll(/^# TYPE (\S+) (\S+)/gm)].flatMap((m) => {
      const name = m[1] as string;
      return m[2] === 'histogram' ? [name, `${name}_bucket`, `${name}_count`, `${name}_sum`] : [name];
    }),
  );

  const sources: [string, string][] = readdirSync(path.join(deploy, 'grafana'))
    .filter((f) => f.endsWith('.json'))
    .flatMap((f) =>
      exprs(JSON.parse(readFileSync(path.join(deploy, 'grafana', f), 'utf8')) as { panels?: unknown[] }).map(
        (e): [string, string] => [f, e],
      ),
    );
  sources.push(['alerts.yml', readFileSync(path.join(deploy, 'prometheus', 'alerts.yml'), 'utf8')]);
  const used = new Set<string>();
  for (const [, e] of sources)
    for (const m of e.matchAll(/\b(?:agent_commerce|http_server)_[a-z0-9_]+/g)) used.add(m[0]);
  expect(used.size).toBeGreaterThan(10);
  expect([...used].filter((n) => !declared.has(n))).toEqual([]);
  // Our own dashboard reads the books and the requests; the adapted Temporal ones are there.
  const files = readdirSync(path.join(deploy, 'grafana'));
  expect(files).toEqual(expect.arrayContaining(['agent-commerce.json', 'temporal-sdk.json', 'temporal-server.json']));
});
