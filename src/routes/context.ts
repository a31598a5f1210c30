import type { Tracer } from '@opentelemetry/api';
import type { HttpMetrics } from '../telemetry/metrics';
import type { Client } from '@temporalio/client';
import type { Config } from '../config';
import type { Services } from '../ports';
import type { OrderWorkflows } from '../temporal/orders';
import type { Signing } from '../signing/signer';

/** What the route modules need; built once by `createApp`. */
export interface AppDeps {
  config: Config;
  services: Services;
  temporal: Client;
  orderWorkflows: OrderWorkflows;
  /** Signs quotes, receipts and x402 offers / receipts; publishes the keys (issue 12 §3). */
  signing: Signing;
  /** Called with unexpected (5xx) errors. */
  log?: (err: unknown) => void;
  /** Prometheus request series (issue 39 §1); absent in tests that drive the app in-process. */
  httpMetrics?: HttpMetrics;
  /** With tracing on (issue 39 §1): each request runs in a span of this tracer. */
  tracer?: Tracer;
}

/** The parsed JSON body (set by @koa/bodyparser); `{}` when the request had none. */
export function requestBody(ctx: { request: unknown }): unknown {
  return (ctx.request as { body?: unknown }).body ?? {};
}
