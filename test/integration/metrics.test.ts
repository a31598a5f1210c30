/**
 * Issue 39 §1: after an order, every named series is exposed on each process (the API's and the worker's own
 * `/metrics`, the worker's carrying the Temporal SDK's series), on separate processes as `npm start` runs them.
 */
import { fundedAgent, newStats, orderFlow, startDrillStack, type DrillStack } from '../../scripts/drills/lib';

jest.setTimeout(240_000);

let stack: DrillStack;

beforeAll(async () => {
  stack = await startDrillStack({});
});

afterAll(async () => {
  await stack?.stop();
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
    value(api, 'http_server_request_duration_seconds_count{', 'route="/api/v1/orders/:id/confirm_payment"'),
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
  expect(value(worker, 'temporal_workflow_task_schedule_to_start_latency_seconds_count')).toBeGreaterThan(0);
  expect(value(worker, 'temporal_activity_execution_latency_seconds_count')).toBeGreaterThan(0);
  expect(value(worker, 'temporal_worker_task_slots_available')).toBeDefined();
  expect(value(worker, 'temporal_sticky_cache_size')).toBeDefined();
});
