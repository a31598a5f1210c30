/**
 * The worker process: wires configuration, database, adapters and activities into a Temporal Worker that runs
 * the order workflows. Run with `npm run worker` (npm start runs it for you).
 */
import { createServer as createNetServer } from 'node:net';
import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities';
import { createCheckoutSessionActivities } from '../activities/checkoutSessions';
import { CheckoutSessionRepository } from '../src/repos/checkoutSessions';
import { cardPayments } from '../src/services/checkoutSessions';
import { KeySetSigner } from '../src/signing/signer';
import { createWebhookActivities, createWebhookFanOut, type WebhookPorts } from '../activities/webhooks';
import { Client } from '@temporalio/client';
import { createCommissionActivities } from '../activities/commissions';
import { createLongRunningActivities, longRunningPorts } from '../activities/longRunning';
import { createProcurementActivities, type ProcurementPorts } from '../activities/procurement';
import { CommissionRepository } from '../src/repos/commissions';
import { ProcurementRepository } from '../src/repos/procurements';
import { OrderWorkflows } from '../src/temporal/orders';
import { DeliveryWorkflows } from '../src/temporal/webhooks';
import { createX402Activities, type X402ActivityPorts } from '../activities/x402';
import { loadConfig, type Config } from '../src/config';
import { chainIdOfNetwork } from '../src/x402/chain';
import { createSettlementChain } from '../src/x402/settlementChain';
import { createX402Refunder } from '../src/x402/refund';
import { refundX402Settlement, type X402RefundPorts } from '../src/services/x402Refunds';
import { HTTPFacilitatorClient } from '@x402/core/server';
import type { Hex } from 'viem';
import { createServices, type Services } from '../src/ports';
import { createTextGenerator } from '../src/textgen';
import { createReconciliationActivities } from '../activities/reconciliation';
import { BookingRepository } from '../src/repos/bookings';
import { ReceptionistRepository } from '../src/repos/receptionists';
import { createReceptionistActivities } from '../activities/receptionists';
import { BooksRepository } from '../src/repos/books';
import { ReconciliationReportRepository } from '../src/repos/reconciliationReports';
import { ensureReconciliationSchedule, orderWorkflowPort } from '../src/temporal/reconciliation';
import { createReceivedTotals } from '../src/x402/receivedTotal';
import { temporalDataConverter } from '../src/temporal/codec';
import { adoptFirstBuild } from '../src/temporal/deployments';
import { createLogger, logger, setLogger } from '../src/telemetry/logger';
import {
  createMetricsRegistry,
  registerBusinessMetrics,
  scrapeText,
  startMetricsServer,
  type MetricsServer,
} from '../src/telemetry/metrics';
import { MetricsRepository } from '../src/repos/metrics';
import { startTracing, workerTracing, type WorkerTracing } from '../src/telemetry/tracing';
import { requestIdClientInterceptors } from '../src/telemetry/temporalClient';
import {
  WORKFLOW_INTERCEPTOR_MODULES,
  installRuntimeLogging,
  requestIdActivityInterceptors,
} from '../src/telemetry/temporalWorker';

/** Options of {@link createWorker}: a prebuilt workflow bundle makes tests start faster. */
export interface CreateWorkerOptions {
  connection: NativeConnection;
  config: Config;
  services: Services;
  taskQueue?: string;
  workflowBundle?: WorkerOptions['workflowBundle'];
  /** Workflow cache size; 0 turns sticky execution off (time-skipping tests that replace workers mid-wait). */
  maxCachedWorkflows?: number;
  /** With tracing on (issue 39 §1): Temporal's OpenTelemetry plugin over this process's exporter. */
  tracing?: WorkerTracing;
}

/** Builds (does not run) the worker for the order workflows and their activities. */
export function createWorker(opts: CreateWorkerOptions): Promise<Worker> {
  const { services } = opts;
  const taskQueue = opts.taskQueue ?? opts.config.TEMPORAL_TASK_QUEUE;
  // One client on the worker's connection: delivery workflows, and order workflows (procurement creates orders and
  // pays them through the confirmPayment Update; x402 reconciliation confirms orders paid by a pending settlement).
  // Issue 26 §1: the worker, its client and every replay share the data converter of the configuration (payloads
  // encrypted with PAYLOAD_ENCRYPTION_KEYS when set).
  const dataConverter = temporalDataConverter(opts.config);
  const client = new Client({
    connection: opts.connection,
    namespace: opts.config.TEMPORAL_NAMESPACE,
    dataConverter,
    // Issue 27 §5: workflows an activity starts (procurement's orders) carry the activity's request id (and the
    // activity's trace context, with tracing on).
    interceptors: {
      workflow: [...requestIdClientInterceptors().workflow, ...(opts.tracing ? [opts.tracing.clientInterceptor] : [])],
    },
  });
  const orderWorkflows = new OrderWorkflows(client, taskQueue);
  const signing = new KeySetSigner(opts.config, services.db);
  const webhookPorts: WebhookPorts = {
    webhooks: services.webhooks,
    orders: services.orders,
    deliveries: new DeliveryWorkflows(client, taskQueue),
    publicBaseUrl: opts.config.PUBLIC_BASE_URL,
    allowPrivateTargets: opts.config.DEV_MODE,
    // UCP platforms' order events are signed with the keys this business's profile publishes (issue 37 §2).
    ucpSigner: () => signing.rawSigner(),
  };
  // One fan-out for every emitter on this worker: order activities, long-running orders, procurement.
  const fanOut = createWebhookFanOut(webhookPorts);
  const settlementChain = createSettlementChain(opts.config.X402_RPC_URL, chainIdOfNetwork(opts.config.X402_NETWORK));
  const orderStates = orderWorkflowPort(client);
  const x402RefundPorts: Pick<X402RefundPorts, 'refunder' | 'orderPayment'> = {
    ...(opts.config.X402_REFUND_PRIVATE_KEY
      ? {
          refunder: createX402Refunder({
            privateKey: opts.config.X402_REFUND_PRIVATE_KEY as Hex,
            assetName: opts.config.X402_ASSET_NAME,
            assetVersion: opts.config.X402_ASSET_VERSION,
            facilitator: new HTTPFacilitatorClient({ url: opts.config.X402_FACILITATOR_URL }),
            chain: settlementChain,
          }),
        }
      : {}),
    // The workflow's own state; an order that ended without a result (terminated) by its read model.
    async orderPayment(orderId) {
      const wf = await orderStates.orderWorkflowState(orderId);
      if (wf?.state) return { payment: wf.state.payment, open: wf.running && wf.state.status === 'awaiting_payment' };
      const doc = await services.orders.get(orderId);
      if (!wf && !doc) return null;
      return { payment: doc?.payment ?? undefined, open: wf?.running === true };
    },
  };
  const x402Ports: X402ActivityPorts = {
    payments: services.x402Payments,
    chain: settlementChain,
    orderWorkflows,
    refunds: x402RefundPorts,
  };
  // Quotes and orders of procurements are made by the application layer (src/services), as the API makes them.
  const procurementPorts: ProcurementPorts = {
    commerce: {
      quotes: services.quotes,
      orders: services.orders,
      events: services.events,
      fanOut: fanOut.fanOut,
      webhooks: services.webhooks,
      startOrderWorkflow: (input, serviceName) => orderWorkflows.start(input, serviceName),
      config: opts.config,
    },
    confirmPayment: (orderId, req) => orderWorkflows.confirmPayment(orderId, req),
    procurements: new ProcurementRepository(services.db),
    events: services.events,
    webhooks: fanOut,
  };
  // The language model of the services that need one (issue 13); undefined when TEXTGEN_* are unset.
  const textgen = createTextGenerator(opts.config);
  return Worker.create({
    connection: opts.connection,
    namespace: opts.config.TEMPORAL_NAMESPACE,
    taskQueue,
    dataConverter,
    ...(opts.workflowBundle
      ? { workflowBundle: opts.workflowBundle }
      : { workflowsPath: require.resolve('../workflows') }),
    ...(opts.maxCachedWorkflows !== undefined ? { maxCachedWorkflows: opts.maxCachedWorkflows } : {}),
    ...(opts.tracing ? { plugins: [opts.tracing.plugin] } : {}),
    // Issue 27 §5: the request id on every activity's log lines; a bundle carries the workflow modules itself.
    interceptors: {
      activity: [requestIdActivityInterceptors],
      ...(opts.workflowBundle ? {} : { workflowModules: [...WORKFLOW_INTERCEPTOR_MODULES] }),
    },
    // Issue 26 §2: a build of a Worker Deployment; each workflow type's behavior is set in workflows/versioning.ts.
    ...(opts.config.WORKER_DEPLOYMENT_NAME && opts.config.WORKER_BUILD_ID
      ? {
          workerDeploymentOptions: {
            useWorkerVersioning: true,
            version: { deploymentName: opts.config.WORKER_DEPLOYMENT_NAME, buildId: opts.config.WORKER_BUILD_ID },
            defaultVersioningBehavior: 'AUTO_UPGRADE',
          },
        }
      : {}),
    activities: {
      ...createActivities({
        orders: services.orders,
        events: services.events,
        wallets: services.wallets,
        linkpay: services.linkProvider,
        store: services.store,
        x402: x402Ports,
        webhooks: fanOut,
        ...(textgen ? { textgen } : {}),
        bookingPages: { repo: new BookingRepository(services.db), publicBaseUrl: opts.config.PUBLIC_BASE_URL },
        receptionists: new ReceptionistRepository(services.db),
      }),
      ...createWebhookActivities(webhookPorts),
      ...createX402Activities(x402Ports),
      ...createCommissionActivities({ commissions: new CommissionRepository(services.db, services.wallets) }),
      // Issue 38 §1: the hosted receptionist follows its subscription.
      ...createReceptionistActivities({ receptionists: new ReceptionistRepository(services.db) }),
      // Long-running orders (issue 6): expert progress, subscriptions, per-task billing.
      ...createLongRunningActivities(longRunningPorts(services, fanOut, textgen)),
      ...createProcurementActivities(procurementPorts),
      // ACP checkout sessions (issue 37 §1): expiry and the finisher of a complete left in progress.
      ...createCheckoutSessionActivities({
        sessions: new CheckoutSessionRepository(services.db),
        quotes: { quotes: services.quotes, config: opts.config },
        creation: procurementPorts.commerce,
        order: (id) => services.orders.get(id),
        confirmWalletPayment: (id) => orderWorkflows.confirmPayment(id, { rail: 'agent_wallet' }),
        cards: cardPayments(services.stripe, (id, req) => orderWorkflows.confirmPayment(id, req)),
        acpWebhooks: services.webhooks,
      }),
      // Books reconciliation (issue 24 §3): checks and repairs over the repositories, order workflows and the chain.
      ...createReconciliationActivities({
        books: new BooksRepository(services.db),
        wallets: services.wallets,
        linkpay: services.linkProvider,
        ...(services.stripe ? { cardIntents: services.stripe } : {}),
        orders: services.orders,
        workflows: orderStates,
        x402Refund: (paymentId, reason) =>
          refundX402Settlement({ ledger: services.x402Payments, ...x402RefundPorts }, { paymentId, reason }),
        chain: createReceivedTotals(opts.config.X402_RPC_URL, opts.config.X402_NETWORK),
        reports: new ReconciliationReportRepository(services.db),
        graceSeconds: opts.config.RECONCILE_GRACE_SECONDS,
      }),
    },
  });
}

/** A port free on loopback now (the SDK's exporter binds it next; it takes no port 0). */
async function freeLoopbackPort(): Promise<number> {
  const server = createNetServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return typeof addr === 'object' && addr ? addr.port : 0;
}

/**
 * The worker's `/metrics` (issue 39 §1): Node.js's series, the business gauges (the books, read at scrape time) and
 * the Temporal SDK's own series from `sdkAddress`. Null when off, or when the port is taken (logged).
 */
async function startWorkerMetrics(
  config: Config,
  services: Services,
  sdkAddress: string | undefined,
): Promise<MetricsServer | null> {
  if (config.WORKER_METRICS_PORT < 0) return null;
  const registry = createMetricsRegistry('worker');
  const books = new MetricsRepository(services.db);
  registerBusinessMetrics(registry, () => books.snapshot());
  try {
    const server = await startMetricsServer({
      host: config.METRICS_HOST,
      port: config.WORKER_METRICS_PORT,
      registry,
      ...(sdkAddress ? { extra: () => scrapeText(`http://${sdkAddress}/metrics`) } : {}),
    });
    logger().info({ metricsUrl: server.url }, `worker: metrics on ${server.url}`);
    return server;
  } catch (err) {
    logger().error({ err }, 'worker: metrics listener not started');
    return null;
  }
}

async function main(): Promise<void> {
  const config = loadConfig();
  // Issue 27 §5: JSON lines at LOG_LEVEL; the Runtime (SDK, workflow and activity logs) into the same logger, before
  // anything creates it.
  setLogger(createLogger({ level: config.LOG_LEVEL }));
  // Issue 39 §1: the SDK exports on a free loopback port; this process's /metrics serves its series after ours.
  const sdkMetrics = config.WORKER_METRICS_PORT >= 0 ? `127.0.0.1:${await freeLoopbackPort()}` : undefined;
  installRuntimeLogging(config.LOG_LEVEL, sdkMetrics);
  const tracing = await startTracing('agent-commerce-worker', config.OTEL_EXPORTER_OTLP_ENDPOINT);
  const services = await createServices(config);
  const metrics = await startWorkerMetrics(config, services, sdkMetrics);
  const connection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  // A bundle built beforehand (scripts/bundle-workflows.ts; npm start does) spares this process webpack's heap.
  const bundlePath = process.env.WORKFLOW_BUNDLE_PATH;
  const worker = await createWorker({
    connection,
    config,
    services,
    maxCachedWorkflows: config.WORKER_MAX_CACHED_WORKFLOWS,
    ...(bundlePath ? { workflowBundle: { codePath: bundlePath } } : {}),
    ...(tracing ? { tracing: await workerTracing(tracing) } : {}),
  });
  const log = logger();
  log.info(
    { taskQueue: config.TEMPORAL_TASK_QUEUE, address: config.TEMPORAL_ADDRESS },
    `worker: task queue ${config.TEMPORAL_TASK_QUEUE} on ${config.TEMPORAL_ADDRESS}`,
  );
  // Books reconciliation every RECONCILE_INTERVAL_SECONDS (issue 24 §3); an existing schedule is kept.
  const schedule = await ensureReconciliationSchedule(
    new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, dataConverter: temporalDataConverter(config) }),
    { taskQueue: config.TEMPORAL_TASK_QUEUE, intervalSeconds: config.RECONCILE_INTERVAL_SECONDS },
  ).catch((err: unknown) => `not set up: ${String(err)}`);
  log.info({ schedule }, `worker: books reconciliation schedule ${schedule}`);
  // Worker.run() shuts down gracefully on SIGINT / SIGTERM (the SDK installs those handlers).
  const running = worker.run();
  const { WORKER_DEPLOYMENT_NAME: deployment, WORKER_BUILD_ID: buildId } = config;
  if (deployment && buildId) {
    const adopted = await adoptFirstBuild(connection, config.TEMPORAL_NAMESPACE, deployment, buildId).catch(
      (err: unknown) => `not adopted: ${String(err)}`,
    );
    log.info(
      { deployment, buildId, currentVersion: adopted },
      `worker: deployment ${deployment} build ${buildId}: current version ${adopted}`,
    );
  }
  await running;
  await metrics?.close();
  await tracing?.shutdown();
  await connection.close();
  await services.db.close();
}

if (require.main === module) {
  main().catch((err: unknown) => {
    logger().fatal({ err }, 'worker: stopped by an error');
    process.exit(1);
  });
}
