/**
 * OpenTelemetry traces (issue 39 §1), off unless `OTEL_EXPORTER_OTLP_ENDPOINT` is set: then an order's trace runs
 * from the API's request span through the workflow to its activities, exported over OTLP/HTTP.
 * - the API: one SERVER span per request ({@link tracingMiddleware}, with the logs' request id), and Temporal's client
 *   interceptor, which puts the span's context into the workflow's start and Update headers;
 * - the worker: Temporal's `OpenTelemetryPlugin` (workflow, Update and activity spans; workflow spans leave the
 *   sandbox through a sink), and the plugin's workflow interceptor module in the bundle
 *   ({@link TRACING_WORKFLOW_INTERCEPTOR_MODULE}).
 * Off, none of this is loaded: no context manager, no interceptor, nothing in the bundle (no cost to measure).
 */
import type { Middleware } from 'koa';
import type { Tracer } from '@opentelemetry/api';
import type { Resource } from '@opentelemetry/resources';
import type { SpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { WorkflowClientInterceptor } from '@temporalio/client';
import type { WorkerPlugin } from '@temporalio/worker';
import { currentRequestId } from './logger';

/** The workflow interceptor module of Temporal's OpenTelemetry plugin, for bundles built with tracing on. */
export const TRACING_WORKFLOW_INTERCEPTOR_MODULE =
  require.resolve('@temporalio/interceptors-opentelemetry/lib/workflow-interceptors');

/** Span attribute carrying the request id of the logs (`X-Request-Id`). */
export const REQUEST_ID_ATTRIBUTE = 'request.id';

/** Tracing of one process, started by {@link startTracing}. */
export interface Tracing {
  tracer: Tracer;
  resource: Resource;
  /** Batches spans to the OTLP exporter; Temporal's plugin exports the workflow spans through it too. */
  spanProcessor: SpanProcessor;
  /** Flushes what is batched and stops. */
  shutdown(): Promise<void>;
}

/**
 * Starts the OpenTelemetry SDK (`@opentelemetry/sdk-node`) of a process named `serviceName` exporting to
 * `endpoint` (OTLP/HTTP, `…/v1/traces` is added), with W3C trace context propagation and the AsyncLocalStorage
 * context manager. Returns null when `endpoint` is unset.
 */
export async function startTracing(serviceName: string, endpoint: string | undefined): Promise<Tracing | null> {
  if (!endpoint) return null;
  const [{ NodeSDK }, { OTLPTraceExporter }, { BatchSpanProcessor }, { Resource }, { trace }] = await Promise.all([
    import('@opentelemetry/sdk-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/api'),
  ]);
  const resource = new Resource({ 'service.name': serviceName });
  const spanProcessor = new BatchSpanProcessor(
    new OTLPTraceExporter({ url: `${endpoint.replace(/\/$/, '')}/v1/traces` }),
    { scheduledDelayMillis: 1_000 },
  );
  const sdk = new NodeSDK({ resource, spanProcessors: [spanProcessor], instrumentations: [] });
  sdk.start();
  return { tracer: trace.getTracer('agent-commerce'), resource, spanProcessor, shutdown: () => sdk.shutdown() };
}

/**
 * Koa middleware of the API with tracing on: each request runs inside a SERVER span named `METHOD route` (the
 * route template, known once routed), with the status, the path and {@link REQUEST_ID_ATTRIBUTE}. Put it after the
 * request-log middleware (which assigns the id).
 */
export function tracingMiddleware(tracer: Tracer): Middleware {
  return (ctx, next) =>
    tracer.startActiveSpan(`${ctx.method} ${ctx.path}`, { kind: 1 /* SpanKind.SERVER */ }, async (span) => {
      span.setAttribute('http.request.method', ctx.method);
      span.setAttribute('url.path', ctx.path);
      const id = currentRequestId();
      if (id) span.setAttribute(REQUEST_ID_ATTRIBUTE, id);
      try {
        await next();
      } finally {
        const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
        if (typeof route === 'string') {
          span.setAttribute('http.route', route);
          span.updateName(`${ctx.method} ${route}`);
        }
        span.setAttribute('http.response.status_code', ctx.status);
        if (ctx.status >= 500) span.setStatus({ code: 2 /* SpanStatusCode.ERROR */ });
        span.end();
      }
    });
}

/** What a worker adds with tracing on: Temporal's plugin, and the client interceptor of the worker's own client. */
export interface WorkerTracing {
  plugin: WorkerPlugin;
  clientInterceptor: WorkflowClientInterceptor;
}

/** {@link WorkerTracing} over `tracing` (loads `@temporalio/interceptors-opentelemetry` only now). */
export async function workerTracing(tracing: Tracing): Promise<WorkerTracing> {
  const { OpenTelemetryPlugin, OpenTelemetryWorkflowClientInterceptor } =
    await import('@temporalio/interceptors-opentelemetry');
  const { tracer, resource, spanProcessor } = tracing;
  return {
    plugin: new OpenTelemetryPlugin({ resource, spanProcessor, tracer }),
    clientInterceptor: new OpenTelemetryWorkflowClientInterceptor({ tracer }),
  };
}

/** The client interceptor of the API's Temporal client with tracing on (loads the package only now). */
export async function clientTracing(tracing: Tracing): Promise<WorkflowClientInterceptor> {
  const { OpenTelemetryWorkflowClientInterceptor } = await import('@temporalio/interceptors-opentelemetry');
  return new OpenTelemetryWorkflowClientInterceptor({ tracer: tracing.tracer });
}
