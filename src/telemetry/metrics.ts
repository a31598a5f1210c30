/**
 * Prometheus metrics of every process (issue 39 §1), through `prom-client`:
 * - {@link createMetricsRegistry}: one registry per process, Node.js's default series labelled with the process;
 * - {@link HttpMetrics}: the API's request rate, latency and status by route template;
 * - {@link registerBusinessMetrics}: the books as gauges (orders by state, money per rail, webhooks, x402 claims,
 *   checkout sessions, the reconciliation), read from the database at scrape time;
 * - {@link startMetricsServer}: a loopback listener answering `GET /metrics` in Prometheus' text format, apart from
 *   the public port, so business figures never reach the internet.
 */
import { createServer, type Server } from 'node:http';
import type { Context, Middleware } from 'koa';
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import type { BusinessSnapshot } from '../repos/metrics';

/** Prefix of this service's own series. */
export const METRIC_PREFIX = 'agent_commerce_';

/**
 * A registry for one process (`api`, `worker`), with Node.js's default series (CPU, memory, event loop lag, GC) and
 * a `process_role` label on every series.
 */
export function createMetricsRegistry(role: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ process_role: role });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Latency buckets in seconds: the API answers in milliseconds; long polls wait up to 30 s. */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The API's request series, by method, route template (`/api/v1/orders/:id`, never the path: bounded labels) and
 * status: `http_server_requests_total` and `http_server_request_duration_seconds`.
 */
export class HttpMetrics {
  private readonly requests: Counter<'method' | 'route' | 'status'>;
  private readonly duration: Histogram<'method' | 'route' | 'status'>;

  constructor(registry: Registry) {
    this.requests = new Counter({
      name: 'http_server_requests_total',
      help: 'HTTP requests answered, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      registers: [registry],
    });
    this.duration = new Histogram({
      name: 'http_server_request_duration_seconds',
      help: 'Time to answer an HTTP request, in seconds, by method, route template and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    });
  }

  /** Records one answer; `route` is the router's template, or `(unmatched)`; `start` from `process.hrtime.bigint()`. */
  observe(method: string, route: string, status: number, start: bigint): void {
    const labels = { method, route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, Number(process.hrtime.bigint() - start) / 1e9);
  }

  /** Koa middleware: records every request the app answers (cache hits are recorded by the cache's callback). */
  middleware(): Middleware {
    return async (ctx, next) => {
      const start = process.hrtime.bigint();
      try {
        await next();
      } finally {
        this.observe(ctx.method, matchedRoute(ctx), ctx.status, start);
      }
    };
  }
}

/** The route template @koa/router matched (`ctx._matchedRoute`), or `(unmatched)`. */
function matchedRoute(ctx: Context): string {
  const route = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof route === 'string' ? route : '(unmatched)';
}

/**
 * Registers the business gauges on `registry`. They read one {@link BusinessSnapshot} per scrape (shared by all of
 * them, and kept `cacheMs` so two scrapers do not double the load). Amounts are integer micro-USD.
 */
export function registerBusinessMetrics(
  registry: Registry,
  snapshot: () => Promise<BusinessSnapshot>,
  cacheMs = 5_000,
): void {
  let cached: { at: number; value: Promise<BusinessSnapshot> } | null = null;
  const read = (): Promise<BusinessSnapshot> => {
    const now = Date.now();
    if (!cached || now - cached.at > cacheMs) {
      const value = snapshot();
      cached = { at: now, value };
      // A failed read is not cached: the next scrape tries again.
      value.catch(() => {
        if (cached?.value === value) cached = null;
      });
    }
    return cached.value;
  };
  const byLabel = (
    name: string,
    help: string,
    label: string,
    pick: (s: BusinessSnapshot) => Record<string, number>,
  ): void => {
    new Gauge({
      name: METRIC_PREFIX + name,
      help,
      labelNames: [label],
      registers: [registry],
      async collect() {
        const values = pick(await read());
        this.reset();
        for (const [key, n] of Object.entries(values)) this.set({ [label]: key }, n);
      },
    });
  };
  byLabel('orders', 'Orders by read-model status.', 'status', (s) => s.ordersByStatus);
  byLabel('money_taken_micros', 'Money taken for orders, in micro-USD, by payment rail.', 'rail', (s) => s.takenByRail);
  byLabel(
    'money_returned_micros',
    'Money given back (refunds completed), in micro-USD, by rail.',
    'rail',
    (s) => s.returnedByRail,
  );
  byLabel('refunds_due_micros', 'Refunds owed and not yet sent, in micro-USD, by rail.', 'rail', (s) => s.refundsDue);
  byLabel(
    'webhook_messages',
    'Webhook messages by status (failed = dead-lettered after every retry).',
    'status',
    (s) => s.webhookMessages,
  );
  byLabel(
    'x402_payments',
    'x402 ledger entries by status (pending = claims awaiting confirmation).',
    'status',
    (s) => s.x402ByStatus,
  );
  byLabel('checkout_sessions', 'Agent checkout sessions (ACP, UCP) by status.', 'status', (s) => s.checkoutSessions);
  const last = async () => (await read()).reconciliation;
  new Gauge({
    name: `${METRIC_PREFIX}reconciliation_discrepancies`,
    help: 'Discrepancies the last books reconciliation left (money astray when above 0); -1 before the first run.',
    registers: [registry],
    async collect() {
      this.set((await last())?.discrepancies ?? -1);
    },
  });
  new Gauge({
    name: `${METRIC_PREFIX}reconciliation_last_finished_timestamp_seconds`,
    help: 'When the last books reconciliation finished (Unix seconds); 0 before the first run.',
    registers: [registry],
    async collect() {
      const at = (await last())?.finishedAt;
      this.set(at ? at.getTime() / 1000 : 0);
    },
  });
}

/** A running metrics listener. */
export interface MetricsServer {
  /** `http://host:port/metrics`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Listens on `host:port` (0 picks a free port) and answers `GET /metrics` with `registry`'s series followed by the
 * text `extra()` returns (the Temporal SDK's own series in the worker); anything else is 404. A failing `extra` is
 * left out of that scrape (its series go missing: an alert on absence sees it), never the whole answer.
 */
export async function startMetricsServer(opts: {
  host: string;
  port: number;
  registry: Registry;
  extra?: () => Promise<string>;
}): Promise<MetricsServer> {
  const server = createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404).end();
      return;
    }
    void (async () => {
      try {
        const [own, extra] = await Promise.all([
          opts.registry.metrics(),
          opts.extra ? opts.extra().catch(() => '') : Promise.resolve(''),
        ]);
        res.writeHead(200, { 'Content-Type': opts.registry.contentType });
        res.end(extra ? `${own}\n${extra}` : own);
      } catch (err) {
        res.writeHead(500, { 'Content-Type': 'text/plain' }).end(`metrics: ${String(err)}\n`);
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => resolve());
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : opts.port;
  return {
    url: `http://${opts.host}:${port}/metrics`,
    server,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** Reads another exporter's text (the Temporal SDK's, on loopback), with a short timeout. */
export async function scrapeText(url: string, timeoutMs = 2_000): Promise<string> {
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!res.ok) throw new Error(`${url}: ${res.status}`);
  return res.text();
}
