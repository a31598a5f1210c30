/**
 * Issue 39 §1, on separate processes as `npm start` runs them, with tracing on (an OTLP/HTTP receiver here):
 * - after an order, every named series is exposed on each process (the API's and the worker's own `/metrics`, the
 *   worker's carrying the Temporal SDK's series);
 * - the order's trace holds the API's request span, the workflow's spans and its activities' spans, in one trace;
 * - the alert rules pass `promtool check rules` and their unit tests, and a real Prometheus scraping the processes
 *   fires ProcessDown when the worker is killed.
 */
import { createServer, type Server } from 'node:http';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fundedAgent, newStats, orderFlow, startDrillStack, type DrillStack } from '../../scripts/drills/lib';
import { freePort } from '../../scripts/lib/servers';
import { ALERT_RULES, startPrometheus } from '../../scripts/lib/prometheus';

jest.setTimeout(240_000);

/** One span as OTLP/JSON carries it (the fields read here). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes?: { key: string; value: { stringValue?: string; intValue?: string } }[];
  service: string;
}

let stack: DrillStack;
let collector: Server;
const spans: OtlpSpan[] = [];

beforeAll(async () => {
  // A stand-in OpenTelemetry collector: OTLP/HTTP with JSON bodies, as @opentelemetry/exporter-trace-otlp-http sends.
  collector = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/v1/traces') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans: {
            resource: { attributes: { key: string; value: { stringValue?: string } }[] };
            scopeSpans: { spans: Omit<OtlpSpan, 'service'>[] }[];
          }[];
        };
        for (const rs of body.resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value.stringValue ?? '';
          for (const ss of rs.scopeSpans) for (const sp of ss.spans) spans.push({ ...sp, service });
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
  const addr = collector.address();
  const port = typeof addr === 'object' && addr ? addr.port : 0;
  stack = await startDrillStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}` } });
});

afterAll(async () => {
  await stack?.stop();
  await new Promise<void>((resolve) => collector?.close(() => resolve()));
});

/** The series of a Prometheus text answer: name{labels} → value. */
function parse(text: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    out.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return out;
}

/** Series of `url`, and the names it declares (`# TYPE` lines: a gauge with no labelled value yet has one). */
async function scrape(url: string | undefined): Promise<Map<string, number> & { declared: Set<string> }> {
  expect(url).toBeDefined();
  const res = await fetch(url as string);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
  const text = await res.text();
  const declared = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1] as string));
  return Object.assign(parse(text), { declared });
}

/** The value of the one series whose name and labels contain each of `parts`. */
function value(series: Map<string, number>, ...parts: string[]): number | undefined {
  for (const [k, v] of series) if (parts.every((p) => k.includes(p))) return v;
  return undefined;
}

test('after an order, the API and the worker expose every named series', async () => {
  const base = stack.url;
  const key = await fundedAgent(base, 'metrics-agent', 100);
  const flow = await orderFlow([base], 'metrics-agent', key, newStats());
  expect(flow.outcome).toBe('delivered');

  const api = await scrape(stack.apis[0]?.metricsUrl);
  // Requests by route template (never by path), status and method; latency as a histogram.
  expect(value(api, 'http_server_requests_total{', 'route="/api/v1/orders"', 'method="POST"', 'status="201"')).toBe(1);
  expect(
    value(api, 'http_server_request_duration_seconds_count{', 'route="/api/v1/orders/:order_id/confirm_payment"'),
  ).toBeGreaterThanOrEqual(1);
  expect([...api.keys()].some((k) => k.includes('ord_'))).toBe(false);
  expect(value(api, 'process_cpu_seconds_total', 'process_role="api"')).toBeGreaterThan(0);

  const worker = await scrape(stack.workers[0]?.metricsUrl);
  // The books: the delivered order, its wallet money, no discrepancy counted before the first run or after it.
  expect(value(worker, 'agent_commerce_orders{', 'status="delivered"')).toBe(1);
  const order = (await (await fetch(`${base}/api/v1/orders/${flow.orderId}`)).json()) as { amount: number };
  expect(value(worker, 'agent_commerce_money_taken_micros{', 'rail="agent_wallet"')).toBe(
    Math.round(order.amount * 1_000_000),
  );
  for (const name of [
    'agent_commerce_money_returned_micros',
    'agent_commerce_refunds_due_micros',
    'agent_commerce_webhook_messages',
    'agent_commerce_x402_payments',
    'agent_commerce_checkout_sessions',
  ]) {
    expect(worker.declared).toContain(name);
  }
  expect(value(worker, 'agent_commerce_reconciliation_discrepancies')).toBeLessThanOrEqual(0);
  expect(value(worker, 'agent_commerce_reconciliation_last_finished_timestamp_seconds')).toBeDefined();
  // The Temporal SDK's own series, through the worker's endpoint.
  expect(value(worker, 'temporal_workflow_task_schedule_to_start_latency_count')).toBeGreaterThan(0);
  expect(value(worker, 'temporal_local_activity_execution_latency_count')).toBeGreaterThan(0);
  expect(value(worker, 'temporal_request_latency_count')).toBeGreaterThan(0);
  expect(value(worker, 'temporal_worker_task_slots_available')).toBeDefined();
  expect(value(worker, 'temporal_sticky_cache_size')).toBeDefined();
});

test("one order's trace runs from the API's request through the workflow to its activities", async () => {
  const base = stack.url;
  const key = await fundedAgent(base, 'trace-agent', 100);
  const flow = await orderFlow([base], 'trace-agent', key, newStats());
  expect(flow.outcome).toBe('delivered');
  const attr = (s: OtlpSpan, name: string) => s.attributes?.find((a) => a.key === name)?.value.stringValue;
  const api = (name: string) => spans.filter((s) => s.service === 'agent-commerce-api' && s.name === name);
  const inTrace = (of: OtlpSpan | undefined) => spans.filter((s) => s.traceId === of?.traceId);
  const named = (trace: OtlpSpan[], name: string) => trace.find((s) => s.name === name);
  // The spans are batched (1 s): wait until the order's activities have reached the collector.
  let create: OtlpSpan | undefined;
  let pay: OtlpSpan | undefined;
  const deadline = Date.now() + 20_000;
  while (Date.now() < deadline) {
    create = api('POST /api/v1/orders').find((s) => inTrace(s).some((t) => t.name === 'RunActivity:chargeAndDeliver'));
    pay = api('POST /api/v1/orders/:order_id/confirm_payment').find((s) =>
      inTrace(s).some((t) => t.name === 'HandleUpdate:confirmPayment'),
    );
    if (create && pay) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  // The request that created the order: a SERVER span of the API, with the logs' request id and the route.
  expect(create).toBeDefined();
  expect(create?.kind).toBe(2);
  expect(attr(create as OtlpSpan, 'request.id')).toMatch(/\S/);
  expect(attr(create as OtlpSpan, 'http.route')).toBe('/api/v1/orders');
  const order = inTrace(create);
  // API request → StartWorkflow (Temporal's client interceptor) → the workflow → each activity it scheduled. The
  // workflow's own span (RunWorkflow) is exported when the workflow closes (after the review window), so the
  // activities' StartActivity spans name it as a parent not yet received: one and the same for both.
  const start = named(order, 'StartWorkflow:orderWorkflow');
  expect(start?.parentSpanId).toBe(create?.spanId);
  const workflowSpans = new Set<string>();
  // One local activity charges, produces and records (patch charge-and-deliver, issue 39 §2).
  for (const activity of ['chargeAndDeliver']) {
    const scheduled = named(order, `StartActivity:${activity}`);
    const ran = named(order, `RunActivity:${activity}`);
    expect(scheduled?.service).toBe('agent-commerce-worker');
    expect(ran?.parentSpanId).toBe(scheduled?.spanId);
    workflowSpans.add(scheduled?.parentSpanId ?? '');
  }
  expect(workflowSpans.size).toBe(1);
  expect([...workflowSpans][0]).toMatch(/^[0-9a-f]{16}$/);
  // The payment: its request → the Update sent by the API → the workflow's Update handler on the worker.
  const payment = inTrace(pay);
  const update = named(payment, 'StartWorkflowUpdate:confirmPayment');
  expect(update?.parentSpanId).toBe(pay?.spanId);
  const handled = named(payment, 'HandleUpdate:confirmPayment');
  expect(handled?.service).toBe('agent-commerce-worker');
  const byId = new Map(payment.map((s) => [s.spanId, s]));
  let at: OtlpSpan | undefined = handled;
  while (at && at !== pay) at = at.parentSpanId ? byId.get(at.parentSpanId) : undefined;
  expect(at).toBe(pay);
});

test('the alert rules pass promtool, and a killed worker fires ProcessDown in a real Prometheus', async () => {
  const promtool = process.env.PROMTOOL_PATH || '/usr/bin/promtool';
  expect(execFileSync(promtool, ['check', 'rules', ALERT_RULES], { encoding: 'utf8' })).toMatch(/SUCCESS: 6 rules/);
  execFileSync(promtool, ['test', 'rules', path.join(path.dirname(ALERT_RULES), 'alerts.test.yml')]);

  const hostPort = (u: string | undefined) => new URL(u as string).host;
  const prometheus = await startPrometheus({
    dataDir: path.join(stack.dataDir, 'prometheus'),
    listen: `127.0.0.1:${await freePort()}`,
    jobs: [
      { job: 'agent-commerce-api', targets: [hostPort(stack.apis[0]?.metricsUrl)] },
      { job: 'agent-commerce-worker', targets: [hostPort(stack.workers[0]?.metricsUrl)] },
    ],
    interval: '1s',
    logFile: path.join(stack.dataDir, 'logs', 'prometheus.log'),
  });
  try {
    const query = async (q: string) => {
      const res = await fetch(`${prometheus.url}/api/v1/query?query=${encodeURIComponent(q)}`);
      return ((await res.json()) as { data: { result: { metric: Record<string, string>; value: [number, string] }[] } })
        .data.result;
    };
    const firing = async (name: string) => {
      const res = await fetch(`${prometheus.url}/api/v1/alerts`);
      const body = (await res.json()) as { data: { alerts: { labels: Record<string, string>; state: string }[] } };
      return body.data.alerts.filter((a) => a.labels.alertname === name && a.state === 'firing');
    };
    const until = async <T>(what: string, get: () => Promise<T | undefined | false>, ms: number): Promise<T> => {
      const deadline = Date.now() + ms;
      for (;;) {
        const v = await get();
        if (v) return v;
        if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
        await new Promise((r) => setTimeout(r, 1_000));
      }
    };
    // Both processes scraped, the books read through Prometheus.
    await until('both targets up', async () => (await query('sum(up)'))[0]?.value[1] === '2', 30_000);
    const delivered = await query('agent_commerce_orders{status="delivered"}');
    expect(Number(delivered[0]?.value[1])).toBeGreaterThanOrEqual(1);
    expect(await firing('ProcessDown')).toEqual([]);
    expect(await firing('MoneyAstray')).toEqual([]);

    await stack.workers[0]?.kill();
    const alert = await until('ProcessDown firing', async () => (await firing('ProcessDown')).at(0), 60_000);
    expect(alert.labels.job).toBe('agent-commerce-worker');
  } finally {
    await prometheus.stop();
  }
});
