/**
 * The order workflow on the time-skipping test server with fake activities (test/helpers/workflowTestEnv.ts): the
 * paths of seed §3 from payment to their ends, with days of timers skipped.
 */
import { ApplicationFailure } from '@temporalio/common';
import { WithStartWorkflowOperation, WorkflowUpdateFailedError } from '@temporalio/client';
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { orderWorkflow } from '../../../workflows/order';
import { PRODUCE } from '../../../workflows/policies';
import { confirmPaymentUpdate, getStateQuery, orderWorkflowId, reviewUpdate } from '../../../workflows/shared';
import { type OrderState, type OrderWorkflowInput } from '../../../src/domain/order';
import { ORDER_AMOUNT_MICROS, buildOrderInput } from '../../fixtures/workflowInputs';
import {
  FakeWallet,
  createWorkflowTestEnv,
  disallowedTransitions,
  eventually,
  fakeActivities,
  recordedTransitions,
  withWorker,
  type MockedActivities,
} from '../../helpers/workflowTestEnv';
import { workflowBundle } from '../../helpers/workflowBundle';

const HOUR = 3600_000;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
});

afterAll(async () => {
  await env?.teardown();
});

const start = (input: OrderWorkflowInput, taskQueue: string) =>
  env.client.workflow.start(orderWorkflow, { taskQueue, workflowId: orderWorkflowId(input.orderId), args: [input] });

/** The statuses the workflow had written, in order (test/helpers/workflowTestEnv.ts `recordedTransitions`). */
const recordedStatuses = async (acts: MockedActivities) => (await recordedTransitions(acts)).map((t) => t.status);

test('paid from the wallet, delivered, then accepted automatically once the 72 h review window has passed', async () => {
  const wallet = new FakeWallet({ 'agent-a': 100_000_000 });
  const acts = fakeActivities(wallet);
  const input = buildOrderInput({ agentId: 'agent-a' });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    const paid = await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    expect(paid.payment).toEqual({
      rail: 'agent_wallet',
      transaction_id: `order:${input.orderId}`,
      amount_micros: ORDER_AMOUNT_MICROS,
      paid_at: expect.any(String),
    });
    expect(wallet.balances.get('agent-a')).toBe(100_000_000 - ORDER_AMOUNT_MICROS);
    // The Update answers the order as of its payment ("order marked paid"), though the goods went out with it.
    expect(paid.status).toBe('fulfilling');
    expect(paid.deliverables).toEqual([]);
    // A second confirmation of the same payment answers the order as it is now.
    const again = await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    expect(again.status).toBe('delivered');
    expect(again.payment).toEqual(paid.payment);

    const final = await handle.result();
    expect(final.progress.map((p) => p.status)).toEqual([
      'awaiting_payment',
      'paid',
      'fulfilling',
      'delivered',
      'accepted',
    ]);
    expect(disallowedTransitions(final)).toEqual([]);
    expect(final.review).toEqual({ action: 'accept', automatic: true, at: expect.any(String) });
    const at = (status: string) => Date.parse(final.progress.find((p) => p.status === status)?.at ?? '');
    expect(at('accepted') - at('delivered')).toBeGreaterThanOrEqual(input.reviewWindowSeconds * 1000);
    expect(at('accepted') - at('delivered')).toBeLessThan(input.reviewWindowSeconds * 1000 + 60_000);
    expect(final.deliverables).toEqual([expect.objectContaining({ name: 'README.md', service_id: 'automation-wf' })]);
  });
  // The creator wrote the order (issue 25 §4): no record at the start; the first transition carries the input, for
  // the activity to write the order first if the creator died before it could.
  expect(acts.recordOrder).not.toHaveBeenCalled();
  expect(await recordedTransitions(acts)).toEqual([
    { status: 'paid', version: 2 },
    { status: 'fulfilling', version: 3 },
    { status: 'delivered', version: 4 },
    { status: 'accepted', version: 5 },
  ]);
  // Two local activities (issue 9 §3, issue 25 §4, issue 39 §2): the charge with the goods and paid, fulfilling and
  // delivered in its write, then the acceptance.
  expect(acts.chargeAndDeliver).toHaveBeenCalledTimes(1);
  expect(acts.chargeAndDeliver).toHaveBeenCalledWith(
    expect.objectContaining({
      orderId: input.orderId,
      rail: 'agent_wallet',
      serviceId: 'automation-wf',
      paid: { version: 2, thenFulfilling: true },
      create: input,
      deliver: { inputs: input.inputs, issuedAt: expect.any(String) },
    }),
  );
  expect(acts.chargeAndRecordPaid).not.toHaveBeenCalled();
  expect(acts.deliverService).not.toHaveBeenCalled();
  expect(acts.recordTransition.mock.calls[0]?.[0]).not.toHaveProperty('create');
  expect(acts.recordTransitions).not.toHaveBeenCalled();
  expect(acts.recordTransition.mock.calls.map(([t]) => t.status)).toEqual(['accepted']);
  expect(acts.refundPayment).not.toHaveBeenCalled();
});

test('production whose delivered record failed: the workflow records delivered itself, same version and time', async () => {
  const wallet = new FakeWallet({ 'agent-n': 100_000_000 });
  const acts = fakeActivities(wallet);
  const at = '2026-11-26T12:34:56.000Z';
  // The goods not produced with the charge (a model's work): `deliverService` delivers them.
  acts.chargeAndDeliver.mockImplementation(async (req) => ({
    payment: await acts.chargePayment(req),
    at: new Date().toISOString(),
    recorded: true,
  }));
  acts.deliverService.mockImplementation(async (req) => ({
    deliverables: await acts.fulfilService(req),
    at,
    recorded: false,
  }));
  const input = buildOrderInput({ agentId: 'agent-n' });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    const delivered = await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'delivered',
    );
    expect(delivered.progress.at(-1)).toEqual({ status: 'delivered', at });
    await handle.terminate('test over');
  });
  // Produced again with the issue time the charge's activity used: the same bytes, had it stored them.
  expect(acts.deliverService.mock.calls[0]?.[0].issuedAt).toBe(
    acts.chargeAndDeliver.mock.calls[0]?.[0].deliver.issuedAt,
  );
  expect(acts.recordTransition).toHaveBeenCalledTimes(1);
  expect(acts.recordTransition.mock.calls[0]?.[0]).toMatchObject({
    status: 'delivered',
    version: 4,
    eventSeq: 4,
    at,
    patch: { deliverables: [expect.objectContaining({ service_id: 'automation-wf' })] },
  });
  expect(await recordedStatuses(acts)).toEqual(['paid', 'fulfilling', 'delivered']);
});

test('a charge whose paid record failed: the workflow records paid → fulfilling itself, same versions and time', async () => {
  const wallet = new FakeWallet({ 'agent-p': 100_000_000 });
  const acts = fakeActivities(wallet);
  const at = '2026-11-27T12:34:56.000Z';
  acts.chargeAndDeliver.mockImplementation(async (req) => ({
    payment: await acts.chargePayment(req),
    at,
    recorded: false,
  }));
  const input = buildOrderInput({ agentId: 'agent-p' });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    const paid = await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    expect(paid.progress.slice(1, 3)).toEqual([
      { status: 'paid', at },
      { status: 'fulfilling', at },
    ]);
    await handle.terminate('test over');
  });
  expect(acts.recordTransitions).toHaveBeenCalledTimes(1);
  expect(acts.recordTransitions.mock.calls[0]?.[0]).toEqual([
    expect.objectContaining({
      status: 'paid',
      version: 2,
      at,
      patch: { payment: expect.objectContaining({ rail: 'agent_wallet' }) },
    }),
    expect.objectContaining({ status: 'fulfilling', version: 3, at }),
  ]);
  expect(wallet.entries.filter((e) => e.kind === 'debit')).toHaveLength(1);
});

test('fulfillment failing on every attempt: failed, then refunded once with the amount paid', async () => {
  const wallet = new FakeWallet({ 'agent-b': 100_000_000 });
  const acts = fakeActivities(wallet);
  // Retryable, with a short delay so the six attempts take milliseconds rather than the policy's minute of backoff.
  acts.fulfilService.mockImplementation(async () => {
    throw ApplicationFailure.create({ message: 'generator down', nextRetryDelay: '10 ms' });
  });
  const input = buildOrderInput({ agentId: 'agent-b' });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    const final = await handle.result();
    expect(final.status).toBe('refunded');
    expect(disallowedTransitions(final)).toEqual([]);
    expect(final.failure).toContain('generator down');
    expect(final.refund).toEqual({
      status: 'completed',
      rail: 'agent_wallet',
      amount_micros: ORDER_AMOUNT_MICROS,
      transaction_id: `refund:${input.orderId}`,
      reason: 'fulfillment_failed',
      at: expect.any(String),
    });
  });
  expect(acts.deliverService).toHaveBeenCalledTimes(PRODUCE.maximumAttempts ?? 0);
  expect(acts.refundPayment).toHaveBeenCalledTimes(1);
  expect(acts.refundPayment).toHaveBeenCalledWith(
    expect.objectContaining({
      orderId: input.orderId,
      agentId: 'agent-b',
      reason: 'fulfillment_failed',
      payment: expect.objectContaining({ amount_micros: ORDER_AMOUNT_MICROS }),
    }),
  );
  expect(await recordedStatuses(acts)).toEqual(['paid', 'fulfilling', 'failed', 'refunded']);
  expect(wallet.balances.get('agent-b')).toBe(100_000_000);
});

test('rejected in the review window: refunded, and the partner commission reversed', async () => {
  const wallet = new FakeWallet({ 'agent-c': ORDER_AMOUNT_MICROS });
  const acts = fakeActivities(wallet);
  const input = buildOrderInput({ agentId: 'agent-c', partnerId: 'partner-1' });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'delivered',
    );
    const rejected = await handle.executeUpdate(reviewUpdate, { args: [{ action: 'reject', reason: 'wrong CRM' }] });
    expect(rejected.status).toBe('rejected');
    expect(disallowedTransitions(rejected)).toEqual([]);
    expect(rejected.review).toEqual({
      action: 'reject',
      reason: 'wrong CRM',
      automatic: false,
      at: expect.any(String),
    });
    expect(rejected.refund).toMatchObject({
      status: 'completed',
      amount_micros: ORDER_AMOUNT_MICROS,
      reason: 'rejected: wrong CRM',
    });
    expect((await handle.result()).status).toBe('rejected');
  });
  expect(acts.refundPayment).toHaveBeenCalledTimes(1);
  expect(acts.recordCommission).toHaveBeenCalledWith(
    expect.objectContaining({ orderId: input.orderId, partnerId: 'partner-1', amountMicros: ORDER_AMOUNT_MICROS }),
  );
  expect(acts.reverseCommission).toHaveBeenCalledTimes(1);
  expect(acts.releaseCommission).not.toHaveBeenCalled();
  expect(await recordedStatuses(acts)).toEqual(['paid', 'fulfilling', 'delivered', 'rejected']);
  expect(wallet.balances.get('agent-c')).toBe(ORDER_AMOUNT_MICROS);
});

test('unpaid: expired at the payment deadline, nothing charged', async () => {
  const acts = fakeActivities(new FakeWallet());
  const input = buildOrderInput({ paymentDeadlineSeconds: 24 * 3600 });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    const startedAt = (await handle.describe()).startTime.getTime();
    const final = await handle.result();
    expect(final.progress.map((p) => p.status)).toEqual(['awaiting_payment', 'expired']);
    const expiredAt = Date.parse(final.progress[1]?.at ?? '');
    expect(expiredAt - startedAt).toBeGreaterThanOrEqual(24 * HOUR);
    expect(expiredAt - startedAt).toBeLessThan(24 * HOUR + 60_000);
  });
  expect(acts.chargePayment).not.toHaveBeenCalled();
  expect(acts.fulfilService).not.toHaveBeenCalled();
  expect(acts.deliverService).not.toHaveBeenCalled();
  expect(await recordedStatuses(acts)).toEqual(['expired']);
});

test('a wallet short of the amount: the payment Update fails with insufficient_funds and the order keeps waiting', async () => {
  const wallet = new FakeWallet({ 'agent-d': 1_000_000 });
  const acts = fakeActivities(wallet);
  const input = buildOrderInput({ agentId: 'agent-d' });
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    const failure = await handle
      .executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] })
      .catch((err: unknown) => err);
    expect(failure).toBeInstanceOf(WorkflowUpdateFailedError);
    const cause = (failure as WorkflowUpdateFailedError).cause;
    expect(cause).toBeInstanceOf(ApplicationFailure);
    expect((cause as ApplicationFailure).type).toBe('insufficient_funds');
    expect((cause as ApplicationFailure).details).toEqual([
      { balance_micros: 1_000_000, amount_micros: ORDER_AMOUNT_MICROS },
    ]);
    expect((await handle.query(getStateQuery)).status).toBe('awaiting_payment');
    await handle.terminate('test over');
  });
  expect(wallet.balances.get('agent-d')).toBe(1_000_000);
});

test('a payment Update arriving while the order is still being recorded charges only after the record, and the history replays', async () => {
  const wallet = new FakeWallet({ 'agent-r': 100_000_000 });
  const acts = fakeActivities(wallet);
  // The database is down for the first attempts of the order's record (the local activity retries).
  let failures = 3;
  acts.recordOrder.mockImplementation(async () => {
    if (failures-- > 0) throw ApplicationFailure.retryable('connection refused', 'MongoServerSelectionError');
  });
  // An order created before issue 25 §4: its workflow records it at its start.
  const input = buildOrderInput({ agentId: 'agent-r', recordedAtCreation: undefined });
  await withWorker(env, acts, async (taskQueue) => {
    // The Update reaches the workflow with its first task (update-with-start): both handlers run side by side.
    const startOp = new WithStartWorkflowOperation(orderWorkflow, {
      taskQueue,
      workflowId: orderWorkflowId(input.orderId),
      args: [input],
      workflowIdConflictPolicy: 'FAIL',
    });
    const paid = await env.client.workflow.executeUpdateWithStart(confirmPaymentUpdate, {
      args: [{ rail: 'agent_wallet' }],
      startWorkflowOperation: startOp,
    });
    const handle = await startOp.workflowHandle();
    expect(paid.payment?.rail).toBe('agent_wallet');
    expect(acts.recordOrder).toHaveBeenCalledTimes(4);
    expect(acts.chargePayment).toHaveBeenCalledTimes(1);
    const lastRecord = Math.max(...acts.recordOrder.mock.invocationCallOrder);
    expect(acts.chargePayment.mock.invocationCallOrder[0]).toBeGreaterThan(lastRecord);
    await eventually(
      () => handle.query(getStateQuery),
      (s: OrderState) => s.status === 'delivered',
    );
    // What this run wrote replays on a fresh worker (no cache): the same commands in the same order.
    const history = await handle.fetchHistory();
    await Worker.runReplayHistory({ workflowBundle: await workflowBundle() }, history, orderWorkflowId(input.orderId));
  });
  expect(wallet.balances.get('agent-r')).toBe(100_000_000 - ORDER_AMOUNT_MICROS);
});
