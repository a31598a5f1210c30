/**
 * `npm run orders:repair` (issue 24 §1) against the real API, worker, Temporal server and database: a delivered,
 * paid order whose workflow run cannot be replayed by the current code (a stand-in run registered as
 * `orderWorkflow` from test/fixtures/brokenOrderWorkflow.ts, which fails replay exactly as a run broken by duplicate
 * Updates does) is replaced by a run that resumes at `delivered`, so the buyer's review is accepted again and nothing
 * is charged twice; one standing in engineering is failed forward with one refund; a healthy run is left alone.
 */
import { randomBytes } from 'node:crypto';
import { Worker, bundleWorkflowCode } from '@temporalio/worker';
import { repairBrokenOrders } from '../../src/temporal/repairOrders';
import { orderWorkflowId } from '../../workflows/shared';
import { type OrderWorkflowInput } from '../../src/domain/order';
import { fundedAgent, startStack, waitForOrder, workflowBundle, type Stack } from '../helpers/stack';

let stack: Stack;
const automation = {
  service_id: 'automation-wf',
  inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
};

beforeAll(async () => {
  stack = await startStack();
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

/** A delivered order of `agentId`, paid from its wallet; returns its id and the agent key. */
async function deliveredOrder(agentId: string): Promise<{ id: string; key: string }> {
  const key = await fundedAgent(stack, agentId, 100);
  const created = await stack.call('POST', '/api/v1/orders', { ...automation, agent_id: agentId });
  expect(created.status).toBe(201);
  const id = created.body.order_id as string;
  const paid = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, { authorization: `Bearer ${key}` });
  expect(paid.status).toBe(200);
  await waitForOrder(stack, id, (o) => o.status === 'delivered');
  return { id, key };
}

/** Replaces the order's run by a run of the stand-in broken code, which records a timer and then waits. */
async function breakRun(orderId: string): Promise<void> {
  const handle = stack.client.workflow.getHandle(orderWorkflowId(orderId));
  const history = await handle.fetchHistory();
  const data = history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0]?.data;
  if (!data) throw new Error('no input');
  const input = JSON.parse(Buffer.from(data).toString('utf8')) as OrderWorkflowInput;
  await handle.terminate('test: replaced by a broken run');
  const taskQueue = `broken-${randomBytes(4).toString('hex')}`;
  const worker = await Worker.create({
    connection: stack.nativeConnection,
    namespace: stack.config.TEMPORAL_NAMESPACE,
    taskQueue,
    workflowBundle: await bundleWorkflowCode({
      workflowsPath: require.resolve('../fixtures/brokenOrderWorkflow'),
      logger: { log() {}, trace() {}, debug() {}, info() {}, warn() {}, error() {} },
    }),
  });
  await worker.runUntil(async () => {
    await stack.client.workflow.start('orderWorkflow', { taskQueue, workflowId: handle.workflowId, args: [input] });
    for (let i = 0; i < 100; i++) {
      const events = (await handle.fetchHistory()).events ?? [];
      if (events.some((e) => e.timerStartedEventAttributes)) return;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error('the broken run did not start its timer');
  });
}

test('a broken run of a delivered order is replaced by one that resumes at delivered: the review works, one debit', async () => {
  const { id, key } = await deliveredOrder('repair-delivered');
  const healthy = await deliveredOrder('repair-healthy');
  await breakRun(id);

  // The review cannot reach the broken run (its workflow tasks go to code that has no such Update).
  const outcomes = await repairBrokenOrders(
    {
      client: stack.client,
      taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
      orders: stack.services.orders,
      payments: { wallets: stack.services.wallets, linkpay: stack.services.linkpay },
      workflowBundle: await workflowBundle(),
    },
    { orderIds: [id, healthy.id] },
  );
  expect(outcomes).toEqual([
    { order_id: id, action: 'resumed', status: 'delivered' },
    { order_id: healthy.id, action: 'ok' },
  ]);

  const reviewed = await stack.call(
    'POST',
    `/api/v1/orders/${id}/review`,
    { action: 'accept' },
    { authorization: `Bearer ${key}` },
  );
  expect(reviewed.status).toBe(200);
  const accepted = await waitForOrder(stack, id, (o) => o.status === 'accepted');
  expect(accepted.progress.map((p: { status: string }) => p.status)).toEqual([
    'awaiting_payment',
    'paid',
    'fulfilling',
    'delivered',
    'accepted',
  ]);
  const moves = (await stack.services.wallets.snapshot('repair-delivered'))?.entries ?? [];
  expect(moves.filter((m) => m.tx_id === `order:${id}`)).toHaveLength(1);
  expect(moves.some((m) => m.tx_id === `refund:${id}`)).toBe(false);
}, 120_000);

test('a broken run of an order in a state no run can resume from is failed forward with one refund', async () => {
  const { id } = await deliveredOrder('repair-forward');
  await breakRun(id);
  // Stand-in for an order whose read model is in engineering (no resumable state).
  const order = await stack.services.orders.get(id);
  await stack.services.db.orders.updateOne({ _id: id }, { $set: { status: 'in_engineering' } });
  const ports = {
    client: stack.client,
    taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
    orders: stack.services.orders,
    payments: { wallets: stack.services.wallets, linkpay: stack.services.linkpay },
    workflowBundle: await workflowBundle(),
  };
  expect(await repairBrokenOrders(ports, { orderIds: [id] })).toEqual([
    { order_id: id, action: 'refunded', status: 'in_engineering' },
  ]);
  const after = await stack.services.orders.get(id);
  expect(after?.status).toBe('refunded');
  expect(after?.refund).toMatchObject({ status: 'completed', amount_micros: order?.amount_micros });
  expect(await stack.services.wallets.balance('repair-forward')).toBe(100_000_000);
  // The workflow is closed; a second repair finds nothing running to fix.
  const { status } = await stack.client.workflow.getHandle(orderWorkflowId(id)).describe();
  expect(status.name).toBe('TERMINATED');
}, 120_000);
