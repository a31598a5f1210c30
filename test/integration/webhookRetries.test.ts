/**
 * Webhook retries over days on Temporal's time-skipping test server (issue 5 §2): a receiver down for hours gets
 * every event once it is up, once each and in order; the schedule (with jitter), Retry-After and exhaustion are
 * checked against the workflow history and the delivery log.
 */
import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { createWebhookActivities, createWebhookFanOut, type WebhookPorts } from '../../activities/webhooks';
import { type Services } from '../../src/ports';
import { OrderWorkflows } from '../../src/temporal/orders';
import { recordCreatedOrder } from '../../src/services/orders';
import type { OrderWorkflowInput } from '../../src/domain/order';
import { DeliveryWorkflows, deliveryWorkflowId } from '../../src/temporal/webhooks';
import { createWorkflowTestEnv } from '../helpers/workflowTestEnv';
import { RETRY_JITTER, RETRY_SCHEDULE_MS, type DeliveryResult } from '../../workflows/webhooks';
import { workflowBundle } from '../helpers/stack';
import { startReceiver, type Receiver } from '../helpers/receiver';
import { buildOrderInput } from '../fixtures/workflowInputs';
import { isolatedServices } from '../helpers/services';

let env: TestWorkflowEnvironment;
let services: Services;
let dispose: (() => Promise<void>) | undefined;
let receiver: Receiver;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
  ({ services, dispose } = await isolatedServices('webhook_retries'));
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await dispose?.();
  await env?.teardown();
});

const orderInput = (orderId: string, agentId: string) => buildOrderInput({ orderId, agentId });

/** Creates an order as `createOrder` does: starts its workflow, then writes order.created, its webhooks, the order. */
async function createOrder(orders: OrderWorkflows, taskQueue: string, input: OrderWorkflowInput): Promise<void> {
  await orders.start(input, 'Automation workflow');
  const fanOut = createWebhookFanOut({
    webhooks: services.webhooks,
    orders: services.orders,
    deliveries: new DeliveryWorkflows(env.client, taskQueue),
    publicBaseUrl: 'http://api.test',
  });
  await recordCreatedOrder({ orders: services.orders, events: services.events, fanOut: fanOut.fanOut }, input);
}

async function withWorker<T>(taskQueue: string, fn: () => Promise<T>): Promise<T> {
  // DEV_MODE: the receiver is on 127.0.0.1.
  const ports: WebhookPorts = {
    webhooks: services.webhooks,
    orders: services.orders,
    deliveries: new DeliveryWorkflows(env.client, taskQueue),
    publicBaseUrl: 'http://api.test',
    allowPrivateTargets: true,
  };
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: {
      ...createActivities({
        orders: services.orders,
        events: services.events,
        wallets: services.wallets,
        linkpay: services.linkpay,
        store: services.store,
        webhooks: createWebhookFanOut(ports),
      }),
      ...createWebhookActivities(ports),
    },
  });
  return worker.runUntil(fn);
}

/** Timer durations (ms) the workflow started, in order. */
async function timers(workflowId: string): Promise<number[]> {
  const history = await env.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const t = e.timerStartedEventAttributes?.startToFireTimeout;
    return t ? [Number(t.seconds ?? 0) * 1000 + Math.round((t.nanos ?? 0) / 1e6)] : [];
  });
}

/** Waits (real time) until the delivery workflow exists, then for its result (time skips meanwhile). */
async function deliveryResult(workflowId: string): Promise<DeliveryResult> {
  const handle = env.client.workflow.getHandle(workflowId);
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await handle.describe();
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  return (await handle.result()) as DeliveryResult;
}

async function waitForStatus(orderId: string, status: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while ((await services.orders.get(orderId))?.status !== status) {
    if (Date.now() > deadline) throw new Error(`order ${orderId} never reached ${status}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

test('a receiver down for six hours gets every event once it is up, exactly once each and in sequence order', async () => {
  const taskQueue = `hooks-${randomBytes(4).toString('hex')}`;
  const orderId = `ord_${randomBytes(16).toString('base64url')}`;
  const agentId = 'down-agent';
  await services.wallets.credit(agentId, 100_000_000, 'seed', 'seed', 'test');
  const reg = await services.webhooks.register({ url: receiver.url, agentId, events: [] });
  receiver.secrets = [reg.secret];
  let up = false;
  receiver.respond = (r) => (up ? { status: r.verified ? 200 : 401 } : { status: 503 });
  const orders = new OrderWorkflows(env.client, taskQueue);
  const eventIds = [1, 2, 3, 4, 5].map((n) => `msg_${orderId}_${n}`);

  const results = await withWorker(taskQueue, async () => {
    await createOrder(orders, taskQueue, orderInput(orderId, agentId));
    await orders.confirmPayment(orderId, { rail: 'agent_wallet' });
    await waitForStatus(orderId, 'delivered');
    await orders.review(orderId, { action: 'accept' });
    await env.sleep('6 hours');
    expect(receiver.accepted).toHaveLength(0);
    up = true;
    // One at a time: the time-skipping client unlocks time while it awaits a result.
    const out: DeliveryResult[] = [];
    for (const id of eventIds) out.push(await deliveryResult(deliveryWorkflowId(id, reg.endpoint._id)));
    return out;
  });

  expect(results.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered', 'delivered', 'delivered']);
  // Only the first event was tried while the receiver was down (the later ones wait for it): 0 s, 5 s, 5 min,
  // 30 min and 2 h fall within six hours, then the 5 h attempt delivers.
  const refused = receiver.requests.filter((r) => r.answered === 503);
  expect(refused.map((r) => r.id)).toEqual(Array(5).fill(eventIds[0]));
  expect(receiver.accepted.map((r) => r.id)).toEqual(eventIds);
  expect(receiver.events().map((e) => e.data.seq)).toEqual([1, 2, 3, 4, 5]);
  expect(receiver.events().map((e) => e.type)).toEqual([
    'order.created',
    'order.paid',
    'order.fulfillment_started',
    'order.delivered',
    'order.accepted',
  ]);

  // The timers follow the schedule with at most ±10% jitter.
  const waits = await timers(deliveryWorkflowId(eventIds[0]!, reg.endpoint._id));
  expect(waits).toHaveLength(5);
  waits.forEach((ms, i) => {
    const base = RETRY_SCHEDULE_MS[i + 1]!;
    expect(ms).toBeGreaterThanOrEqual(Math.floor(base * (1 - RETRY_JITTER)));
    expect(ms).toBeLessThanOrEqual(Math.ceil(base * (1 + RETRY_JITTER)));
  });

  // The log matches the receiver: six attempts for the first event (five 503s, one 200), one for each other.
  const log = await services.webhooks.deliveries(reg.endpoint._id, { limit: 500 });
  expect(log).toHaveLength(receiver.requests.length);
  const first = log.filter((d) => d.event_id === eventIds[0]).sort((a, b) => a.attempt - b.attempt);
  expect(first.map((d) => d.response_code)).toEqual([503, 503, 503, 503, 503, 200]);
  expect(
    first.slice(0, 5).every((d) => d.status === 'failed' && d.next_retry_at !== null && d.error === 'HTTP 503'),
  ).toBe(true);
  expect(first[5]).toMatchObject({ status: 'delivered', next_retry_at: null });
  for (const id of eventIds.slice(1)) {
    expect(log.filter((d) => d.event_id === id).map((d) => [d.attempt, d.response_code])).toEqual([[1, 200]]);
  }
}, 120_000);

test('Retry-After beyond the schedule is honoured; a receiver that never recovers gets ten attempts over about three days', async () => {
  const taskQueue = `hooks-${randomBytes(4).toString('hex')}`;
  const orderId = `ord_${randomBytes(16).toString('base64url')}`;
  const agentId = 'never-agent';
  const reg = await services.webhooks.register({ url: receiver.url, agentId, events: ['order.created'] });
  receiver.secrets = [reg.secret];
  receiver.requests.length = 0;
  receiver.respond = (_r, n) => (n === 1 ? { status: 429, headers: { 'retry-after': '3600' } } : { status: 500 });
  const orders = new OrderWorkflows(env.client, taskQueue);
  const eventId = `msg_${orderId}_1`;

  const result = await withWorker(taskQueue, async () => {
    await createOrder(orders, taskQueue, orderInput(orderId, agentId));
    return deliveryResult(deliveryWorkflowId(eventId, reg.endpoint._id));
  });
  expect(result).toEqual({ status: 'failed', attempts: 10, reason: 'exhausted' });
  expect(receiver.requests).toHaveLength(10);
  expect(new Set(receiver.requests.map((r) => r.id))).toEqual(new Set([eventId]));

  const waits = await timers(deliveryWorkflowId(eventId, reg.endpoint._id));
  expect(waits).toHaveLength(9);
  expect(waits[0]).toBe(3600_000);
  const total = waits.reduce((a, b) => a + b, 0);
  expect(total).toBeGreaterThan(2.8 * 24 * 3600_000);
  expect(total).toBeLessThan(3.6 * 24 * 3600_000);

  const log = (await services.webhooks.deliveries(reg.endpoint._id, { limit: 500 })).sort(
    (a, b) => a.attempt - b.attempt,
  );
  expect(log.map((d) => d.response_code)).toEqual([429, 500, 500, 500, 500, 500, 500, 500, 500, 500]);
  expect(log[0]!.next_retry_at!.getTime() - log[0]!.at.getTime()).toBeGreaterThanOrEqual(3600_000);
  expect(log[9]!.next_retry_at).toBeNull();
  expect((await services.webhooks.messageFor(eventId, reg.endpoint._id))?.status).toBe('failed');
}, 120_000);
