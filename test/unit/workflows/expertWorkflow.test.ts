/**
 * Expert delivery inside the order workflow (issue 6 §1, workflows/expert.ts) on the time-skipping test server with
 * fake activities: the engineer queue, the SLA clock (escalation at 80 %, breach at the deadline) and its two ends.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { orderWorkflow } from '../../../workflows/order';
import {
  addDeliverableUpdate,
  cancelOrderUpdate,
  claimEngineeringUpdate,
  confirmPaymentUpdate,
  getStateQuery,
  markReadyUpdate,
  orderWorkflowId,
  reviewUpdate,
} from '../../../workflows/shared';
import { type OrderWorkflowInput } from '../../../src/domain/order';
import { buildExpertOrderInput } from '../../fixtures/workflowInputs';
import {
  FakeWallet,
  createWorkflowTestEnv,
  disallowedTransitions,
  eventually,
  fakeActivities,
  recordedTransitions,
  withWorker,
} from '../../helpers/workflowTestEnv';

const HOUR = 3600_000;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
});

afterAll(async () => {
  await env?.teardown();
});

/** An expert order with a 10 h SLA (escalated at 8 h), paid from a wallet holding exactly its price. */
function setup(agentId: string) {
  const input: OrderWorkflowInput = buildExpertOrderInput({
    agentId,
    expert: { maxFulfillmentHours: 10, escalateAtPercent: 80 },
  });
  const wallet = new FakeWallet({ [agentId]: input.amountMicros });
  return { input, wallet, acts: fakeActivities(wallet) };
}

test('in_engineering, escalated at 80 % of the SLA, sla_breached at the deadline, then cancelled by the buyer and refunded', async () => {
  const { input, wallet, acts } = setup('agent-x');
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await env.client.workflow.start(orderWorkflow, {
      taskQueue,
      workflowId: orderWorkflowId(input.orderId),
      args: [input],
    });
    const paid = await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    const paidAt = Date.parse(paid.payment?.paid_at ?? '');
    const waiting = await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'in_engineering',
    );
    expect(Date.parse(waiting.engineering?.escalate_at ?? '') - paidAt).toBe(8 * HOUR);
    expect(Date.parse(waiting.engineering?.sla_deadline ?? '') - paidAt).toBe(10 * HOUR);
    // The blueprint documents are out before the engineer queue.
    expect(waiting.deliverables).toHaveLength(1);

    await env.sleep(7 * HOUR);
    expect((await handle.query(getStateQuery)).engineering?.escalated_at).toBeNull();
    expect(acts.recordProgress).not.toHaveBeenCalled();

    await env.sleep(1 * HOUR + 60_000);
    const escalated = await eventually(
      () => handle.query(getStateQuery),
      (s) => s.engineering?.escalated_at != null,
    );
    expect(escalated.status).toBe('in_engineering');
    expect(Math.abs(Date.parse(escalated.engineering?.escalated_at ?? '') - (paidAt + 8 * HOUR))).toBeLessThan(1000);
    expect(acts.recordProgress).toHaveBeenCalledTimes(1);
    expect(acts.recordProgress).toHaveBeenCalledWith(
      expect.objectContaining({
        orderId: input.orderId,
        event: 'sla_escalated',
        eventType: 'order.sla_escalated',
        status: 'in_engineering',
      }),
    );

    await env.sleep(2 * HOUR);
    const breached = await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'sla_breached',
    );
    expect(Math.abs(Date.parse(breached.engineering?.breached_at ?? '') - (paidAt + 10 * HOUR))).toBeLessThan(1000);

    const cancelled = await handle.executeUpdate(cancelOrderUpdate, { args: [{ reason: 'too late' }] });
    expect(cancelled.status).toBe('cancelled');
    expect(disallowedTransitions(cancelled)).toEqual([]);
    expect(cancelled.progress.map((p) => p.event ?? p.status)).toEqual([
      'awaiting_payment',
      'paid',
      'fulfilling',
      'in_engineering',
      'sla_escalated',
      'sla_breached',
      'cancelled',
    ]);
    expect(cancelled.refund).toMatchObject({
      status: 'completed',
      amount_micros: input.amountMicros,
      reason: 'cancelled after SLA breach: too late',
    });
    expect((await handle.result()).status).toBe('cancelled');
  });
  // paid and fulfilling written with the charge (issue 9 §3, issue 25 §4); versions are shared by transitions and
  // progress entries: the escalation took version 5.
  expect(await recordedTransitions(acts)).toEqual([
    { status: 'paid', version: 2 },
    { status: 'fulfilling', version: 3 },
    { status: 'in_engineering', version: 4 },
    { status: 'sla_breached', version: 6 },
    { status: 'cancelled', version: 7 },
  ]);
  expect(acts.chargeAndRecordPaid).toHaveBeenCalledTimes(1);
  expect(acts.recordTransitions).not.toHaveBeenCalled();
  expect(acts.recordProgress.mock.calls.map(([p]) => p.version)).toEqual([5]);
  expect(acts.refundPayment).toHaveBeenCalledTimes(1);
  expect(wallet.balances.get('agent-x')).toBe(input.amountMicros);
});

test('an engineer claims, uploads and marks ready within the SLA: delivered with the uploads, then accepted', async () => {
  const { input, acts } = setup('agent-y');
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await env.client.workflow.start(orderWorkflow, {
      taskQueue,
      workflowId: orderWorkflowId(input.orderId),
      args: [input],
    });
    await handle.executeUpdate(confirmPaymentUpdate, { args: [{ rail: 'agent_wallet' }] });
    await eventually(
      () => handle.query(getStateQuery),
      (s) => s.status === 'in_engineering',
    );
    await expect(handle.executeUpdate(markReadyUpdate, { args: [{ engineer: 'eve' }] })).rejects.toMatchObject({
      cause: { type: 'engineering_not_claimed' },
    });
    const claimed = await handle.executeUpdate(claimEngineeringUpdate, { args: [{ engineer: 'eve' }] });
    expect(claimed.engineering?.engineer).toBe('eve');
    await expect(
      handle.executeUpdate(claimEngineeringUpdate, { args: [{ engineer: 'mallory' }] }),
    ).rejects.toMatchObject({ cause: { type: 'already_claimed' } });
    const upload = {
      engineer: 'eve',
      name: 'controller.py',
      sha256: 'b'.repeat(64),
      size: 1234,
      media_type: 'text/x-python',
    };
    await handle.executeUpdate(addDeliverableUpdate, { args: [upload] });
    const ready = await handle.executeUpdate(markReadyUpdate, {
      args: [{ engineer: 'eve', note: 'tested on the arm' }],
    });
    expect(ready.status).toBe('delivered');
    expect(ready.deliverables.map((d) => d.name)).toEqual(['README.md', 'controller.py']);
    const accepted = await handle.executeUpdate(reviewUpdate, { args: [{ action: 'accept' }] });
    expect(accepted.status).toBe('accepted');
    expect(disallowedTransitions(accepted)).toEqual([]);
  });
  expect(acts.recordProgress.mock.calls.map(([p]) => p.event)).toEqual(['engineer_claimed', 'deliverable_uploaded']);
  expect((await recordedTransitions(acts)).map((t) => t.status)).toEqual([
    'paid',
    'fulfilling',
    'in_engineering',
    'delivered',
    'accepted',
  ]);
  // An expert's blueprint is produced alone: `delivered` waits for the engineer.
  expect(acts.deliverService).not.toHaveBeenCalled();
  expect(acts.refundPayment).not.toHaveBeenCalled();
});
