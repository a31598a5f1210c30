/**
 * Long timers of the order workflow on Temporal's time-skipping test server: the 72-hour review window and the
 * payment deadline pass in seconds.
 */
import { randomBytes } from 'node:crypto';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { createActivities } from '../../activities';
import { type Services } from '../../src/ports';
import { OrderWorkflows } from '../../src/temporal/orders';
import { createWorkflowTestEnv } from '../helpers/workflowTestEnv';
import { orderWorkflowId } from '../../workflows/shared';
import { type OrderState } from '../../src/domain/order';
import { workflowBundle } from '../helpers/stack';
import { buildOrderInput } from '../fixtures/workflowInputs';
import { isolatedServices } from '../helpers/services';

let env: TestWorkflowEnvironment;
let services: Services;
let dispose: (() => Promise<void>) | undefined;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
  ({ services, dispose } = await isolatedServices('timers'));
}, 120_000);

afterAll(async () => {
  await dispose?.();
  await env?.teardown();
});

const orderInput = (orderId: string, agentId: string) => buildOrderInput({ orderId, agentId });

async function withWorker<T>(taskQueue: string, fn: () => Promise<T>): Promise<T> {
  const worker = await Worker.create({
    connection: env.nativeConnection,
    taskQueue,
    workflowBundle: await workflowBundle(),
    activities: createActivities({
      orders: services.orders,
      events: services.events,
      wallets: services.wallets,
      linkpay: services.linkpay,
      store: services.store,
    }),
  });
  return worker.runUntil(fn);
}

test('a delivered order without a review is accepted automatically when the 72-hour window ends', async () => {
  const taskQueue = `timers-${randomBytes(4).toString('hex')}`;
  const orderId = `ord_${randomBytes(16).toString('base64url')}`;
  await services.wallets.credit('timer-agent', 100_000_000, 'seed', 'seed', 'test');
  const orders = new OrderWorkflows(env.client, taskQueue);
  const final = await withWorker(taskQueue, async () => {
    await orders.start(orderInput(orderId, 'timer-agent'), 'Automation workflow');
    await orders.confirmPayment(orderId, { rail: 'agent_wallet' });
    return env.client.workflow.getHandle(orderWorkflowId(orderId)).result() as Promise<OrderState>;
  });
  expect(final.status).toBe('accepted');
  expect(final.review).toMatchObject({ action: 'accept', automatic: true });
  const delivered = final.progress.find((p) => p.status === 'delivered');
  const accepted = final.progress.find((p) => p.status === 'accepted');
  expect(Date.parse(accepted!.at) - Date.parse(delivered!.at)).toBeGreaterThanOrEqual(72 * 3600_000);
  const doc = await services.orders.get(orderId);
  expect(doc?.status).toBe('accepted');
  expect(await services.wallets.balance('timer-agent')).toBe(31_000_000);
});

test('an unpaid order expires at its payment deadline and refuses a late payment; its creator had died', async () => {
  // The workflow is started and nothing else (as if the API died right after the start, issue 25 §4): the expiry
  // writes the order, order.created and order.expired.
  const taskQueue = `timers-${randomBytes(4).toString('hex')}`;
  const orderId = `ord_${randomBytes(16).toString('base64url')}`;
  await services.wallets.credit('late-agent', 100_000_000, 'seed', 'seed', 'test');
  const orders = new OrderWorkflows(env.client, taskQueue);
  const final = await withWorker(taskQueue, async () => {
    await orders.start(orderInput(orderId, 'late-agent'), 'Automation workflow');
    return env.client.workflow.getHandle(orderWorkflowId(orderId)).result() as Promise<OrderState>;
  });
  expect(final.status).toBe('expired');
  expect(final.payment).toBeUndefined();
  await expect(orders.confirmPayment(orderId, { rail: 'agent_wallet' })).rejects.toMatchObject({ status: 409 });
  expect(await services.wallets.balance('late-agent')).toBe(100_000_000);
  const doc = await services.orders.get(orderId);
  expect(doc).toMatchObject({ status: 'expired', version: 2, agent_id: 'late-agent' });
  expect(doc?.progress.map((p) => p.status)).toEqual(['awaiting_payment', 'expired']);
  expect((await services.events.list(orderId)).map((e) => [e.seq, e.type])).toEqual([
    [1, 'order.created'],
    [2, 'order.expired'],
  ]);
});
