/**
 * Issue 24 §2 on the time-skipping test server with fake activities: money taken for an order whose
 * `confirmPayment` Update never reached its workflow is found by the workflow itself at its payment deadline
 * (`findOrderPayment`) and adopted; an order with no such money still expires without a charge. In a file of its own:
 * after orderWorkflow.test.ts's update-with-start test, the SDK's local-activity manager of that process panics
 * ("receive half not dropped", sdk-core local_activities.rs) and the local activities of any later test there hang.
 * No upstream report found; the nearest is temporalio/sdk-rust#526 (a panic of the same kind on a dropped channel).
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { orderWorkflow } from '../../../workflows/order';
import { orderWorkflowId, recoverPaymentSignal } from '../../../workflows/shared';
import { type OrderWorkflowInput } from '../../../src/domain/order';
import { PaymentStillMovingError, findOrderPayment, type PaymentLookup } from '../../../src/services/payments';
import { ORDER_AMOUNT_MICROS, buildOrderInput } from '../../fixtures/workflowInputs';
import { FakeWallet, createWorkflowTestEnv, fakeActivities, withWorker } from '../../helpers/workflowTestEnv';

let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
});

afterAll(async () => {
  await env?.teardown();
});

const start = (input: OrderWorkflowInput, taskQueue: string) =>
  env.client.workflow.start(orderWorkflow, { taskQueue, workflowId: orderWorkflowId(input.orderId), args: [input] });

test('a debit whose confirmPayment was lost is adopted at the payment deadline: the order is delivered, not expired', async () => {
  const wallet = new FakeWallet({ 'agent-lost': 100_000_000 });
  const acts = fakeActivities(wallet);
  const input = buildOrderInput({ agentId: 'agent-lost', paymentDeadlineSeconds: 3600 });
  // The debit of an Update that died with its worker before the workflow task completed: the ledger has it, the
  // workflow's history does not.
  await wallet.debit('agent-lost', ORDER_AMOUNT_MICROS, `order:${input.orderId}`);
  await withWorker(env, acts, async (taskQueue) => {
    const final = await (await start(input, taskQueue)).result();
    expect(final.payment).toMatchObject({ rail: 'agent_wallet', transaction_id: `order:${input.orderId}` });
    expect(final.progress.map((p) => p.status)).toEqual([
      'awaiting_payment',
      'paid',
      'fulfilling',
      'delivered',
      'accepted',
    ]);
  });
  expect(acts.findOrderPayment).toHaveBeenCalledTimes(1);
  expect(acts.chargePayment).not.toHaveBeenCalled();
  expect(wallet.entries.filter((e) => e.txId === `order:${input.orderId}`)).toHaveLength(1);
  expect(wallet.balances.get('agent-lost')).toBe(100_000_000 - ORDER_AMOUNT_MICROS);
});

test('an unpaid order looks for money once at its deadline, finds none, and expires without a charge', async () => {
  const wallet = new FakeWallet({ 'agent-none': 100_000_000 });
  const acts = fakeActivities(wallet);
  const input = buildOrderInput({ agentId: 'agent-none', paymentDeadlineSeconds: 3600 });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    // A recoverPayment signal before the deadline finds nothing either, and changes nothing.
    await handle.signal(recoverPaymentSignal, { reason: 'test' });
    const final = await handle.result();
    expect(final.status).toBe('expired');
    expect(final.payment).toBeUndefined();
  });
  expect(acts.findOrderPayment).toHaveBeenCalledTimes(2);
  expect(wallet.entries).toEqual([]);
});

/**
 * The lookup at the deadline as the worker runs it (src/services/payments.ts `findOrderPayment`) over an x402 ledger
 * stand-in: the order's claim stays unresolved for `unresolvedCalls` final lookups, then is settled (or failed).
 */
function x402Lookup(settles: boolean, unresolvedCalls: number) {
  let finals = 0;
  const settledTx = `0x${'ab'.repeat(32)}`;
  const ports = {
    wallets: { findMovement: async () => null },
    linkpay: { findSucceededForOrder: async () => null },
    x402: {
      getSettledForOrder: async () =>
        settles && finals > unresolvedCalls ? { transaction: settledTx, amount_micros: ORDER_AMOUNT_MICROS } : null,
      hasUnresolvedForOrder: async () => finals <= unresolvedCalls,
    },
  };
  return {
    settledTx,
    lookup: jest.fn(async (req: PaymentLookup) => {
      if (req.final) finals += 1;
      return (await findOrderPayment(ports, req)) ?? null;
    }),
  };
}

test('an x402 settlement still in flight at the deadline is waited for, then adopted: no charge without goods', async () => {
  const acts = fakeActivities(new FakeWallet());
  const { lookup, settledTx } = x402Lookup(true, 2);
  acts.findOrderPayment = lookup;
  const input = buildOrderInput({ rails: ['x402_usdc'], paymentDeadlineSeconds: 60 });
  await withWorker(env, acts, async (taskQueue) => {
    const final = await (await start(input, taskQueue)).result();
    expect(final.status).not.toBe('expired');
    expect(final.payment).toMatchObject({ rail: 'x402_usdc', transaction_id: settledTx });
  });
  // Two final lookups met the claim in flight (the activity failed and was retried), the third found it settled.
  expect(lookup.mock.calls.filter(([req]) => req.final)).toHaveLength(3);
  await expect(lookup.mock.results[0]?.value).rejects.toThrow(PaymentStillMovingError);
});

test('an x402 claim that fails after the deadline lets the order expire, nothing taken', async () => {
  const acts = fakeActivities(new FakeWallet());
  const { lookup } = x402Lookup(false, 1);
  acts.findOrderPayment = lookup;
  const input = buildOrderInput({ rails: ['x402_usdc'], paymentDeadlineSeconds: 60 });
  await withWorker(env, acts, async (taskQueue) => {
    const final = await (await start(input, taskQueue)).result();
    expect(final.status).toBe('expired');
    expect(final.payment).toBeUndefined();
  });
  expect(lookup.mock.calls.filter(([req]) => req.final)).toHaveLength(2);
});
