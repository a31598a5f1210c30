/**
 * Test fixture: the real API and the real worker (worker/index.ts `createWorker`, every activity) on Temporal's
 * time-skipping test server, against the MongoDB-wire database test/globalSetup.ts started. Days pass in seconds
 * with `env.sleep(...)`; the worker can be shut down and replaced mid-wait.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import type { Worker } from '@temporalio/worker';
import { createApp } from '../../src/app';
import { loadConfig, type Config } from '../../src/config';
import { createServices, type Services } from '../../src/ports';
import { OrderWorkflows } from '../../src/temporal/orders';
import { createWorker } from '../../worker';
import { freePort } from '../../scripts/lib/servers';
import { createWorkflowTestEnv } from './workflowTestEnv';
import { OPERATOR_KEY, workflowBundle } from './stack';
import { callApi, type ApiResponse } from './openApiConformance';

/** API + worker on a time-skipping test server. */
export interface TimeSkippingStack {
  env: TestWorkflowEnvironment;
  config: Config;
  services: Services;
  url: string;
  call(method: string, urlPath: string, body?: unknown, headers?: Record<string, string>): Promise<ApiResponse>;
  /** Stops the worker (graceful shutdown, as a deploy or crash-restart would). */
  stopWorker(): Promise<void>;
  /** Starts a new worker (it only resumes from Temporal's history). */
  startWorker(): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the test server, registers the search attributes, starts API and worker; `overrides` extend the config. */
export async function startTimeSkippingStack(overrides: Record<string, string> = {}): Promise<TimeSkippingStack> {
  const mongoUri = process.env.MONGODB_URI;
  if (!process.env.TEMPORAL_TEST_SERVER_PATH || !mongoUri)
    throw new Error('TEMPORAL_TEST_SERVER_PATH and MONGODB_URI must be set (test/globalSetup.ts)');
  const env = await createWorkflowTestEnv();
  const port = await freePort();
  const suffix = randomBytes(4).toString('hex');
  const config = loadConfig({
    HOST: '127.0.0.1',
    PORT: String(port),
    TEMPORAL_NAMESPACE: env.namespace ?? 'default',
    TEMPORAL_TASK_QUEUE: `ts-${suffix}`,
    MONGODB_URI: mongoUri,
    MONGODB_DB: `ts_${suffix}`,
    DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'agent-commerce-ts-')),
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
  const app = createApp({
    config,
    services,
    temporal: env.client,
    orderWorkflows: new OrderWorkflows(env.client, config.TEMPORAL_TASK_QUEUE),
    log: (err) => console.error('API 5xx', err),
  });
  const server = await new Promise<Server>((resolve) => {
    const s = app.listen(port, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${port}`;
  let worker: Worker | undefined;
  let running: Promise<void> | undefined;

  const stack: TimeSkippingStack = {
    env,
    config,
    services,
    url,
    call(method, urlPath, body, headers = {}) {
      return callApi(url, method, urlPath, body, headers);
    },
    async stopWorker() {
      if (worker && worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      worker = undefined;
      running = undefined;
    },
    async startWorker() {
      // No workflow cache: the test server keeps routing a stopped worker's workflows to its sticky queue, and a
      // sticky timeout never passes while time is locked. Every task then replays the history from the start.
      worker = await createWorker({
        connection: env.nativeConnection,
        config,
        services,
        workflowBundle: await workflowBundle(),
        maxCachedWorkflows: 0,
      });
      running = worker.run();
    },
    async stop() {
      await stack.stopWorker();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await services.db.db.dropDatabase().catch(() => undefined);
      await services.db.close();
      await env.teardown();
    },
  };
  await stack.startWorker();
  return stack;
}

/** Polls `GET /api/v1/orders/{id}` (real time) until `predicate` holds; throws after `timeoutMs`. */
export async function waitForOrderTs(
  stack: TimeSkippingStack,
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

/** Creates `agentId`'s wallet, credits `usd` (operator) under `txId`, returns the agent key. */
export async function fundAgent(
  stack: TimeSkippingStack,
  agentId: string,
  usd: number,
  txId = `fund-${agentId}`,
): Promise<string> {
  const w = await stack.call('GET', `/api/v1/wallets/${agentId}`);
  if (w.status !== 200) throw new Error(`wallet: ${w.status} ${w.text}`);
  if (usd > 0) await topUp(stack, agentId, usd, txId);
  return w.body.agent_key as string;
}

/** Operator credit of `usd` to a wallet under transaction id `txId`. */
export async function topUp(stack: TimeSkippingStack, agentId: string, usd: number, txId: string): Promise<void> {
  const c = await stack.call(
    'POST',
    `/api/v1/wallets/${agentId}/credits`,
    { amount: usd, transaction_id: txId },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  if (c.status !== 201) throw new Error(`credit: ${c.status} ${c.text}`);
}
