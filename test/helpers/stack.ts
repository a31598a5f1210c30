/**
 * Test fixture: the real API and a real worker against the Temporal server and MongoDB-wire database that
 * test/globalSetup.ts started, isolated per test file by a fresh database name and task queue.
 */
import { randomBytes } from 'node:crypto';
import { callApi, type ApiResponse } from './openApiConformance';
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createServices, type Services } from '../../src/ports';
import { temporalDataConverter } from '../../src/temporal/codec';
import { OrderWorkflows } from '../../src/temporal/orders';
import { requestIdClientInterceptors } from '../../src/telemetry/temporalClient';
import { createWorker } from '../../worker';
import { freePort } from '../../scripts/lib/servers';
import { workflowBundle } from './workflowBundle';

export const OPERATOR_KEY = 'op_test_key_0123456789abcdef';

/** A running API + worker for one test file. */
export interface Stack {
  url: string;
  config: Config;
  services: Services;
  client: Client;
  worker: Worker;
  /** The worker's connection, for tests that run a worker of their own beside it. */
  nativeConnection: NativeConnection;
  /** JSON request helper: returns status, headers and parsed body. */
  call(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** Restarts the worker (a new process would do the same: it only resumes from Temporal's history). */
  restartWorker(): Promise<void>;
  stop(): Promise<void>;
}

export type { ApiResponse };

export { workflowBundle } from './workflowBundle';

/** Starts API and worker with the given configuration overrides (`PORT`: the API listens there, else on a free port). */
export async function startStack(overrides: Record<string, string> = {}): Promise<Stack> {
  const temporalAddress = process.env.TEMPORAL_ADDRESS;
  const mongoUri = process.env.MONGODB_URI;
  if (!temporalAddress || !mongoUri)
    throw new Error('TEMPORAL_ADDRESS and MONGODB_URI must be set (test/globalSetup.ts)');
  const port = overrides.PORT ? Number(overrides.PORT) : await freePort();
  const suffix = randomBytes(4).toString('hex');
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: process.env.TEMPORAL_NAMESPACE ?? 'default',
    TEMPORAL_TASK_QUEUE: `test-${suffix}`,
    MONGODB_URI: mongoUri,
    MONGODB_DB: `test_${suffix}`,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-test-')),
    OPERATOR_KEY,
    DEV_MODE: 'true',
    // Tests fire requests as fast as they can; the per-minute limits stay on, the burst limits have tests of their own.
    RATE_LIMIT_BURST_PER_SECOND: '0',
    RATE_LIMIT_ANONYMOUS_BURST_PER_SECOND: '0',
    // The model test/globalSetup.ts configured (a local fake chat-completions server); '' turns it off.
    TEXTGEN_BASE_URL: process.env.TEXTGEN_BASE_URL ?? '',
    TEXTGEN_MODEL: process.env.TEXTGEN_MODEL ?? '',
    ...overrides,
  });
  const services = await createServices(config);
  const connection = await Connection.connect({ address: config.TEMPORAL_ADDRESS });
  // The API's data converter (issue 26 §1): payloads encrypted when the overrides set PAYLOAD_ENCRYPTION_KEYS.
  const client = new Client({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    dataConverter: temporalDataConverter(config),
    // As the API's (src/server.ts): workflows started in a request carry its request id (issue 27 §5).
    interceptors: requestIdClientInterceptors(),
  });
  const app = createApp({
    config,
    services,
    temporal: client,
    orderWorkflows: new OrderWorkflows(client, config.TEMPORAL_TASK_QUEUE),
    log: (err) => console.error('API 5xx', err),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  const nativeConnection = await NativeConnection.connect({ address: config.TEMPORAL_ADDRESS });
  const makeWorker = async () =>
    createWorker({
      connection: nativeConnection,
      config,
      services,
      workflowBundle: await workflowBundle({ encrypted: Boolean(config.PAYLOAD_ENCRYPTION_KEYS) }),
    });
  let worker = await makeWorker();
  let running = worker.run();
  const url = `http://127.0.0.1:${port}`;

  const stack: Stack = {
    url,
    config,
    services,
    client,
    nativeConnection,
    get worker() {
      return worker;
    },
    call(method, urlPath, body, headers = {}) {
      return callApi(url, method, urlPath, body, headers);
    },
    async restartWorker() {
      worker.shutdown();
      await running;
      worker = await makeWorker();
      running = worker.run();
    },
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await nativeConnection.close();
      await connection.close();
      await services.db.db.dropDatabase().catch(() => undefined);
      await services.db.close();
    },
  };
  return stack;
}

/** Polls the order until `predicate` holds (or throws after `timeoutMs`). */
export async function waitForOrder(
  stack: Stack,
  orderId: string,
  predicate: (order: ApiResponse['body']) => boolean,
  timeoutMs = 30_000,
): Promise<ApiResponse['body']> {
  const deadline = Date.now() + timeoutMs;
  let last: ApiResponse['body'];
  while (Date.now() < deadline) {
    const res = await stack.call('GET', `/api/v1/orders/${orderId}`);
    last = res.body;
    if (res.status === 200 && predicate(res.body)) return res.body;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`order ${orderId} did not reach the expected state; last: ${JSON.stringify(last)}`);
}

/** Creates a wallet for `agentId`, funds it with `usd` through the operator endpoint, returns the agent key. */
export async function fundedAgent(stack: Stack, agentId: string, usd: number): Promise<string> {
  const w = await stack.call('GET', `/api/v1/wallets/${agentId}`);
  if (w.status !== 200 || !w.body.agent_key) throw new Error(`wallet: ${w.status} ${w.text}`);
  if (usd > 0) {
    const c = await stack.call(
      'POST',
      `/api/v1/wallets/${agentId}/credits`,
      { amount: usd, transaction_id: `fund-${agentId}` },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    if (c.status !== 201) throw new Error(`credit: ${c.status} ${c.text}`);
  }
  return w.body.agent_key as string;
}
