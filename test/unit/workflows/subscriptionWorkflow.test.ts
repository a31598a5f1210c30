/**
 * The subscription workflow (issue 6 §2, workflows/subscription.ts) on the time-skipping test server with fake
 * activities: the wallet renewal of period 2, dunning on a refused debit, suspension after the last retry.
 */
import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { subscriptionWorkflow } from '../../../workflows/subscription';
import { getSubscriptionQuery, subscriptionWorkflowId } from '../../../workflows/subscriptionShared';
import { periodOf, type SubscriptionInput } from '../../../src/domain/subscription';
import { buildSubscriptionInput } from '../../fixtures/workflowInputs';
import {
  FakeWallet,
  createWorkflowTestEnv,
  eventually,
  fakeActivities,
  withWorker,
  type MockedActivities,
} from '../../helpers/workflowTestEnv';

const DAY = 86_400_000;
let env: TestWorkflowEnvironment;

beforeAll(async () => {
  env = await createWorkflowTestEnv();
});

afterAll(async () => {
  await env?.teardown();
});

/** A subscription anchored at the test server's current time (earlier tests have moved it on by months). */
const subscriptionInput = async (
  agentId: string,
  overrides: Partial<SubscriptionInput> = {},
): Promise<SubscriptionInput> =>
  buildSubscriptionInput({ agentId, anchor: new Date(await env.currentTimeMs()).toISOString(), ...overrides });

const start = (input: SubscriptionInput, taskQueue: string) =>
  env.client.workflow.start(subscriptionWorkflow, {
    taskQueue,
    workflowId: subscriptionWorkflowId(input.orderId),
    args: [input],
  });

/** Milliseconds from the anchor to the end of period 1, plus a minute. */
const toRenewal = (input: SubscriptionInput) =>
  Date.parse(periodOf(input.anchor, 1).end) - Date.parse(input.anchor) + 60_000;

/** The charges and event types `recordSubscription` was asked to write, in order. */
const writes = (acts: MockedActivities) =>
  acts.recordSubscription.mock.calls.map(([w]) => ({
    charge: w.charge && {
      period: w.charge.period,
      attempt: w.charge.attempt,
      status: w.charge.status,
      transaction_id: w.charge.transaction_id,
      failure: w.charge.failure,
    },
    event: w.event?.type,
  }));

test('period 2 is debited from the wallet as subscription:<order_id>:2, and the next run serves it', async () => {
  const input = await subscriptionInput('agent-s', { partnerId: 'partner-s' });
  const wallet = new FakeWallet({ 'agent-s': 100_000_000 });
  const acts = fakeActivities(wallet);
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await eventually(
      async () => acts.openSubscription.mock.calls.length,
      (n) => n === 1,
    );
    expect(acts.openSubscription.mock.calls[0]?.[0].firstCharge).toMatchObject({
      period: 1,
      status: 'paid',
      transaction_id: input.firstPayment?.transaction_id,
    });
    await env.sleep(toRenewal(input));
    const renewed = await eventually(
      () => handle.query(getSubscriptionQuery),
      (s) => s.current_period.number === 2 && s.status === 'active',
    );
    expect(renewed.current_period).toEqual(periodOf(input.anchor, 2));
    expect(renewed.next_charge_at).toBe(periodOf(input.anchor, 2).end);
    await handle.terminate('test over');
  });
  expect(acts.chargeRenewal).toHaveBeenCalledTimes(1);
  expect(acts.chargeRenewal).toHaveBeenCalledWith({
    orderId: input.orderId,
    agentId: 'agent-s',
    period: 2,
    amountMicros: input.amountMicros,
  });
  expect(wallet.entries).toEqual([
    { agentId: 'agent-s', amountMicros: input.amountMicros, txId: `subscription:${input.orderId}:2`, kind: 'debit' },
  ]);
  expect(writes(acts)).toEqual([
    {
      charge: {
        period: 2,
        attempt: 1,
        status: 'paid',
        transaction_id: `subscription:${input.orderId}:2`,
        failure: null,
      },
      event: 'subscription.renewed',
    },
  ]);
  // A paid renewal is final: the partner's commission for period 2 is credited at once.
  expect(acts.creditCommission).toHaveBeenCalledWith(
    expect.objectContaining({
      orderId: input.orderId,
      period: '2',
      partnerId: 'partner-s',
      amountMicros: input.amountMicros,
    }),
  );
});

test('a refused debit starts dunning: past_due, retried after a day, paid once the wallet is funded', async () => {
  const input = await subscriptionInput('agent-t');
  const wallet = new FakeWallet({ 'agent-t': 0 });
  const acts = fakeActivities(wallet);
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    await env.sleep(toRenewal(input));
    const pastDue = await eventually(
      () => handle.query(getSubscriptionQuery),
      (s) => s.status === 'past_due',
    );
    const renewalAt = Date.parse(periodOf(input.anchor, 2).start);
    expect(pastDue.dunning).toEqual({ retries_done: 0, next_retry_at: new Date(renewalAt + DAY).toISOString() });
    expect(pastDue.next_charge_at).toBe(new Date(renewalAt + DAY).toISOString());

    wallet.balances.set('agent-t', input.amountMicros);
    await env.sleep(DAY);
    const active = await eventually(
      () => handle.query(getSubscriptionQuery),
      (s) => s.status === 'active',
    );
    expect(active.dunning).toBeNull();
    expect(active.current_period.number).toBe(2);
    await handle.terminate('test over');
  });
  expect(acts.chargeRenewal).toHaveBeenCalledTimes(2);
  expect(writes(acts)).toEqual([
    {
      charge: { period: 2, attempt: 1, status: 'failed', transaction_id: null, failure: 'insufficient_funds' },
      event: 'subscription.payment_failed',
    },
    {
      charge: {
        period: 2,
        attempt: 2,
        status: 'paid',
        transaction_id: `subscription:${input.orderId}:2`,
        failure: null,
      },
      event: 'subscription.renewed',
    },
  ]);
  expect(wallet.balances.get('agent-t')).toBe(0);
});

test('a debit refused on every retry (1, 3 and 7 days): suspended, no further charge', async () => {
  const input = await subscriptionInput('agent-u');
  const acts = fakeActivities(new FakeWallet());
  await withWorker(env, acts, async (taskQueue) => {
    const handle = await start(input, taskQueue);
    const final = await handle.result();
    expect(final.status).toBe('suspended');
    expect(final.next_charge_at).toBeNull();
    const renewalAt = Date.parse(periodOf(input.anchor, 2).start);
    expect(Date.parse(final.ended_at ?? '') - renewalAt).toBeGreaterThanOrEqual(7 * DAY);
  });
  expect(acts.chargeRenewal).toHaveBeenCalledTimes(1 + input.terms.retryAfterSeconds.length);
  expect(writes(acts).map((w) => w.event)).toEqual([
    'subscription.payment_failed',
    'subscription.payment_failed',
    'subscription.payment_failed',
    'subscription.payment_failed',
    'subscription.suspended',
  ]);
});
