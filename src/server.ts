/** The API process: `npm run api` (npm start runs it for you). */
import './v8Flags';
import type { Server } from 'node:http';
import type { Config } from './config';
import { warmFetch } from './http/fetchWarmup';
import type { Services } from './ports';

/** A running API: its HTTP server and what it holds open. */
export interface RunningApi {
  server: Server;
  url: string;
  /** Where Prometheus scrapes this process (`…/metrics`); null when the listener is off or could not bind. */
  metricsUrl: string | null;
  services: Services;
  close(): Promise<void>;
}

/** Connects MongoDB and Temporal, then listens on `config.HOST:config.PORT` (0 picks a free port). */
export async function startApi(config: Config): Promise<RunningApi> {
  // The application's modules load here, not at import: the process entry warms `fetch` first (src/http/fetchWarmup.ts).
  const [
    { Client },
    { createApp },
    { createServices },
    { OrderWorkflows },
    { connectTemporal },
    { KeySetSigner },
    { temporalDataConverter },
    { requestIdClientInterceptors },
    { HttpMetrics, createMetricsRegistry, startMetricsServer },
    { logger },
    { startTracing, clientTracing },
  ] = await Promise.all([
    import('@temporalio/client'),
    import('./app.js'),
    import('./ports.js'),
    import('./temporal/orders.js'),
    import('./temporal/connection.js'),
    import('./signing/signer.js'),
    import('./temporal/codec.js'),
    import('./telemetry/temporalClient.js'),
    import('./telemetry/metrics.js'),
    import('./telemetry/logger.js'),
    import('./telemetry/tracing.js'),
  ]);
  // Issue 39 §1: traces when a collector is configured (before anything opens a span).
  const tracing = await startTracing('agent-commerce-api', config.OTEL_EXPORTER_OTLP_ENDPOINT);
  const otelClient = tracing ? await clientTracing(tracing) : null;
  const services = await createServices(config);
  const connection = await connectTemporal(config.TEMPORAL_ADDRESS);
  // Issue 26 §1: payloads encrypted with PAYLOAD_ENCRYPTION_KEYS when set.
  const temporal = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: temporalDataConverter(config),
    // Issue 27 §5: workflows started (and Updates sent) in a request carry its request id.
    interceptors: { workflow: [...requestIdClientInterceptors().workflow, ...(otelClient ? [otelClient] : [])] },
  });
  // Issue 12 §3: the signing keys are loaded (on embedded defaults: the database's set created, issue 25 §2) before
  // listening.
  const signing = new KeySetSigner(config, services.db);
  await signing.ready();
  // Issue 39 §1: request series on a loopback listener of their own; a port taken costs the metrics, not the API.
  const registry = config.API_METRICS_PORT >= 0 ? createMetricsRegistry('api') : null;
  const metrics = registry
    ? await startMetricsServer({ host: config.METRICS_HOST, port: config.API_METRICS_PORT, registry }).catch(
        (err: unknown) => {
          logger().error({ err }, 'api: metrics listener not started');
          return null;
        },
      )
    : null;
  const app = createApp({
    config,
    services,
    temporal,
    orderWorkflows: new OrderWorkflows(temporal, config.TEMPORAL_TASK_QUEUE),
    signing,
    ...(registry && metrics ? { httpMetrics: new HttpMetrics(registry) } : {}),
    ...(tracing ? { tracer: tracing.tracer } : {}),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(config.PORT, config.HOST, () => resolve(s));
  });
  const addr = server.address();
  const port = typeof addr === 'object' && addr ? addr.port : config.PORT;
  return {
    server,
    url: `http://${config.HOST}:${port}`,
    metricsUrl: metrics?.url ?? null,
    services,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await metrics?.close();
      await tracing?.shutdown();
      server.closeAllConnections();
      await connection.close();
      await services.x402Payments.flush();
      await services.db.close();
    },
  };
}

if (require.main === module) {
  warmFetch()
    .then(() => Promise.all([import('./config.js'), import('./telemetry/logger.js')]))
    .then(async ([{ loadConfig }, { createLogger, logger, setLogger }]) => {
      const config = loadConfig();
      setLogger(createLogger({ level: config.LOG_LEVEL }));
      const api = await startApi(config);
      logger().info(
        { url: api.url, publicBaseUrl: config.PUBLIC_BASE_URL, metricsUrl: api.metricsUrl },
        `api: listening on ${api.url}`,
      );
      const stop = () => void api.close().then(() => process.exit(0));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    })
    .catch(async (err: unknown) => {
      const { logger } = await import('./telemetry/logger.js');
      logger().fatal({ err }, 'api: could not start');
      process.exit(1);
    });
}
