/**
 * Monthly billing (issue 6 §2) on Temporal's time-skipping test server, through the real API and worker:
 * renewals on the agent wallet with a failed charge and its recovery, the partner's commission on every paid period,
 * cancellation at the end of the period, suspension after the last dunning retry, an invoice on the hosted-link rail,
 * and a rejected order ending its subscription. With RECORD_HISTORIES=1 two runs of the first subscription are written
 * to test/fixtures/histories/ for the replay test.
 */
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { saveHistory } from '../helpers/histories';
import { OPERATOR_KEY } from '../helpers/stack';
import {
  fundAgent,
  startTimeSkippingStack,
  topUp,
  waitForOrderTs,
  type TimeSkippingStack,
} from '../helpers/timeSkippingStack';
import { addMonths, invoiceId } from '../../src/domain/subscription';
import { subscriptionWorkflowId } from '../../workflows/subscriptionShared';

let stack: TimeSkippingStack;
const DAY = 24 * 3600_000;
const receptionistInputs = {
  business_name: 'Cedar Dental',
  contact_email: 'front@cedar.example',
  services: 'cleaning, whitening',
};

// One test server per test: its clock is global, and a scenario that ended its workflows can leave it unable to
// skip time for the next one (seen on the Java test server: an env.sleep that never returns).
beforeEach(async () => {
  stack = await startTimeSkippingStack();
}, 120_000);
afterEach(async () => {
  await stack?.stop();
});

type Sub = {
  status: string;
  current_period: { number: number; start: string; end: string };
  next_charge_at: string | null;
  cancel_at_period_end: boolean;
  dunning: { retries_done: number; next_retry_at: string | null } | null;
  open_invoice: { invoice_id: string; amount: number; due_at: string; pay_url: string } | null;
  past_charges: {
    period: number;
    attempt: number;
    status: string;
    amount: number;
    transaction_id: string | null;
    rail: string;
  }[];
  ended_at: string | null;
};

/** Polls the order (real time) until its subscription satisfies `predicate`. */
async function waitForSub(orderId: string, predicate: (s: Sub) => boolean): Promise<Sub> {
  const order = await waitForOrderTs(
    stack,
    orderId,
    (o) => o.subscription != null && predicate(o.subscription as Sub),
    30_000,
  );
  return order.subscription as Sub;
}

/**
 * Lets the subscription run to its end with the test server skipping time (awaiting a workflow result unlocks time
 * skipping). Used for the last step: an `env.sleep` during which the last workflow completes never returns on the
 * time-skipping test server (its clock stops once nothing is left running).
 */
async function runToEnd(orderId: string): Promise<unknown> {
  return stack.env.client.workflow.getHandle(subscriptionWorkflowId(orderId)).result();
}

/** Moves the test server's clock to `iso` plus `extraMs`. */
async function skipTo(iso: string, extraMs = 60_000): Promise<void> {
  const now = await stack.env.currentTimeMs();
  const ms = Date.parse(iso) + extraMs - now;
  if (ms > 0) await stack.env.sleep(ms);
}

async function eventTypes(orderId: string): Promise<string[]> {
  const res = await stack.call('GET', `/api/v1/orders/${orderId}/events`);
  return (res.body.events as { type: string }[]).map((e) => e.type);
}

/** The buyer's credential header per order id: the wallet key, or the order secret (issue 10 §1). */
const buyerKeys = new Map<string, string>();
const asBuyer = (orderId: string) => ({ authorization: `Bearer ${buyerKeys.get(orderId) ?? ''}` });

/** Creates an ai-receptionist order for `agentId` (optionally through a partner quote) and pays it from the wallet. */
async function walletSubscription(agentId: string, fundUsd: number, partnerId?: string): Promise<string> {
  const key = await fundAgent(stack, agentId, fundUsd);
  let quoteId: string | undefined;
  if (partnerId) {
    const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'ai-receptionist', partner_id: partnerId });
    expect(quote.status).toBe(201);
    quoteId = quote.body.quote_id as string;
  }
  const created = await stack.call('POST', '/api/v1/orders', {
    ...(quoteId ? { quote_id: quoteId } : { service_id: 'ai-receptionist' }),
    agent_id: agentId,
    inputs: receptionistInputs,
  });
  expect(created.status).toBe(201);
  expect(created.body.subscription).toBeUndefined();
  const orderId = created.body.order_id as string;
  buyerKeys.set(orderId, key);
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    { rail: 'agent_wallet' },
    { authorization: `Bearer ${key}` },
  );
  expect(paid.status).toBe(200);
  return orderId;
}

test('three monthly renewals with a failed charge recovered after a top-up, commission per period, then cancel at period end', async () => {
  const agent = 'agent-sub-1';
  await fundAgent(stack, 'partner-sub-1', 0); // a partner is paid only into a claimed wallet (issue 10 §3)
  const orderId = await walletSubscription(agent, 39 + 39, 'partner-sub-1');
  const first = await waitForSub(orderId, (s) => s.status === 'active');
  const paidAt = (await stack.call('GET', `/api/v1/orders/${orderId}`)).body.payment.paid_at as string;
  expect(first.current_period).toEqual({ number: 1, start: paidAt, end: addMonths(paidAt, 1) });
  expect(first.next_charge_at).toBe(addMonths(paidAt, 1));
  expect(first.past_charges).toEqual([
    expect.objectContaining({ period: 1, status: 'paid', amount: 39, rail: 'agent_wallet' }),
  ]);
  expect(
    (await stack.call('POST', `/api/v1/orders/${orderId}/review`, { action: 'accept' }, asBuyer(orderId))).body.status,
  ).toBe('accepted');
  const handle = stack.env.client.workflow.getHandle(subscriptionWorkflowId(orderId));
  const firstRun = (await handle.describe()).runId;

  // Renewal 1 (period 2): the wallet covers it.
  await skipTo(first.current_period.end);
  const p2 = await waitForSub(orderId, (s) => s.current_period.number === 2 && s.past_charges.length === 2);
  expect(p2.status).toBe('active');
  expect(p2.past_charges[1]).toMatchObject({
    period: 2,
    attempt: 1,
    status: 'paid',
    transaction_id: `subscription:${orderId}:2`,
  });
  expect(await stack.services.wallets.balance(agent)).toBe(0);
  // One run per period: the workflow continued as new.
  const secondRun = (await handle.describe()).runId;
  expect(secondRun).not.toBe(firstRun);

  // Renewal 2 (period 3): the wallet is empty, the charge fails, dunning starts.
  await skipTo(p2.current_period.end);
  const failed = await waitForSub(orderId, (s) => s.status === 'past_due');
  expect(failed.current_period.number).toBe(3);
  expect(failed.dunning).toEqual({
    retries_done: 0,
    next_retry_at: new Date(Date.parse(p2.current_period.end) + DAY).toISOString(),
  });
  expect(failed.past_charges[2]).toMatchObject({ period: 3, attempt: 1, status: 'failed', transaction_id: null });
  // The buyer tops up; the first retry, a day later, succeeds.
  await topUp(stack, agent, 39, 'topup-1');
  await skipTo(failed.dunning!.next_retry_at!);
  const recovered = await waitForSub(orderId, (s) => s.status === 'active' && s.past_charges.length === 4);
  expect(recovered.past_charges[3]).toMatchObject({
    period: 3,
    attempt: 2,
    status: 'paid',
    transaction_id: `subscription:${orderId}:3`,
  });
  expect(recovered.dunning).toBeNull();
  // The period keeps its calendar dates: a late payment does not move the billing anchor.
  expect(recovered.current_period).toEqual({ number: 3, start: addMonths(paidAt, 2), end: addMonths(paidAt, 3) });

  // Renewal 3 (period 4).
  await topUp(stack, agent, 39, 'topup-2');
  await skipTo(recovered.current_period.end);
  const p4 = await waitForSub(orderId, (s) => s.current_period.number === 4 && s.past_charges.length === 5);
  expect(p4.past_charges[4]).toMatchObject({ period: 4, status: 'paid' });

  // Cancel: it takes effect at the end of period 4; nothing more is charged.
  await topUp(stack, agent, 39, 'topup-3');
  const cancel = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/subscription/cancel`,
    { reason: 'switching provider' },
    asBuyer(orderId),
  );
  expect(cancel.status).toBe(200);
  expect(cancel.body).toMatchObject({
    status: 'active',
    cancel_at_period_end: true,
    next_charge_at: null,
    cancel_reason: 'switching provider',
  });
  const final = (await runToEnd(orderId)) as { status: string; ended_at: string };
  expect(final.status).toBe('cancelled');
  expect(Date.parse(final.ended_at)).toBeGreaterThanOrEqual(Date.parse(p4.current_period.end));
  const ended = await waitForSub(orderId, (s) => s.status === 'cancelled');
  expect(ended.past_charges).toHaveLength(5);
  expect(ended.ended_at).not.toBeNull();
  expect(await stack.services.wallets.balance(agent)).toBe(39_000_000);
  expect((await stack.call('POST', `/api/v1/orders/${orderId}/subscription/cancel`, {}, asBuyer(orderId))).status).toBe(
    409,
  );

  // 20% of every paid period (the order's own payment, on acceptance, and three renewals, when paid) went to the partner.
  expect(await stack.services.wallets.balance('partner-sub-1')).toBe(4 * 7_800_000);
  const types = (await eventTypes(orderId)).filter((t) => t.startsWith('subscription.'));
  expect(types).toEqual([
    'subscription.created',
    'subscription.renewed',
    'subscription.payment_failed',
    'subscription.renewed',
    'subscription.renewed',
    'subscription.cancelled',
  ]);

  if (process.env.RECORD_HISTORIES === '1') {
    // Run 1 (period 1: created, renewal paid, commission, continue-as-new) and run 2 (failed charge, dunning, paid).
    const dir = path.resolve(__dirname, '..', 'fixtures', 'histories');
    const id = subscriptionWorkflowId(orderId);
    saveHistory(
      path.join(dir, 'subscription-run-1.json'),
      await stack.env.client.workflow.getHandle(id, firstRun).fetchHistory(),
    );
    saveHistory(
      path.join(dir, 'subscription-run-2-dunning.json'),
      await stack.env.client.workflow.getHandle(id, secondRun).fetchHistory(),
    );
  }
});

test('a renewal unpaid after three retries over a week suspends the subscription', async () => {
  const agent = 'agent-sub-2';
  const orderId = await walletSubscription(agent, 39);
  const first = await waitForSub(orderId, (s) => s.status === 'active');
  const renewal = first.current_period.end;
  await skipTo(renewal);
  await waitForSub(orderId, (s) => s.status === 'past_due');
  for (const days of [1, 3]) {
    await skipTo(new Date(Date.parse(renewal) + days * DAY).toISOString());
    await waitForSub(
      orderId,
      (s) => s.past_charges.filter((c) => c.status === 'failed').length === (days === 1 ? 2 : 3),
    );
  }
  expect(((await runToEnd(orderId)) as { status: string }).status).toBe('suspended');
  const suspended = await waitForSub(orderId, (s) => s.status === 'suspended');
  expect(suspended.past_charges.map((c) => `${c.period}:${c.attempt}:${c.status}`)).toEqual([
    '1:1:paid',
    '2:1:failed',
    '2:2:failed',
    '2:3:failed',
    '2:4:failed',
  ]);
  expect(suspended.next_charge_at).toBeNull();
  const types = (await eventTypes(orderId)).filter((t) => t.startsWith('subscription.'));
  expect(types).toEqual([
    'subscription.created',
    'subscription.payment_failed',
    'subscription.payment_failed',
    'subscription.payment_failed',
    'subscription.payment_failed',
    'subscription.suspended',
  ]);
});

test('on the hosted-link rail a renewal is an invoice with a due date, paid with a transaction bound to it', async () => {
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'ai-receptionist',
    email: 'owner@cedar.example',
    inputs: receptionistInputs,
  });
  const orderId = created.body.order_id as string;
  buyerKeys.set(orderId, created.body.order_secret as string);
  const tx = await stack.services.linkpay.createTransaction(orderId, 39_000_000, 'USD', 'owner@cedar.example');
  expect(
    (await stack.call('POST', `/api/v1/orders/${orderId}/confirm_payment`, { transaction_id: tx.id })).status,
  ).toBe(200);
  const first = await waitForSub(orderId, (s) => s.status === 'active');
  await skipTo(first.current_period.end);
  const invoiced = await waitForSub(orderId, (s) => s.open_invoice !== null);
  const id = invoiceId(orderId, 2);
  expect(invoiced.open_invoice).toMatchObject({
    invoice_id: id,
    amount: 39,
    due_at: new Date(Date.parse(first.current_period.end) + 7 * DAY).toISOString(),
  });
  expect(invoiced.past_charges[1]).toMatchObject({ period: 2, status: 'invoiced' });
  // A transaction bound to something else, or for another amount, does not pay it.
  const wrong = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/subscription/invoices/${id}/pay`,
    { transaction_id: tx.id },
    asBuyer(orderId),
  );
  expect(wrong.status).toBe(409);
  expect(wrong.body.code).toBe('transaction_already_used');
  expect(
    (
      await stack.call(
        'POST',
        `/api/v1/orders/${orderId}/subscription/invoices/inv_nope/pay`,
        { transaction_id: tx.id },
        asBuyer(orderId),
      )
    ).body.code,
  ).toBe('invoice_not_found');
  const invoiceTx = await stack.services.linkpay.createTransaction(id, 39_000_000, 'USD', 'owner@cedar.example');
  const pay = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/subscription/invoices/${id}/pay`,
    { transaction_id: invoiceTx.id },
    asBuyer(orderId),
  );
  expect(pay.status).toBe(200);
  const renewed = await waitForSub(orderId, (s) => s.open_invoice === null && s.past_charges.length === 3);
  expect(renewed.past_charges[2]).toMatchObject({
    period: 2,
    status: 'paid',
    transaction_id: invoiceTx.id,
    rail: 'linkpay_ncp',
  });
  expect(renewed.current_period.number).toBe(2);
});

test("bought through an ACP checkout session: period 1 is the session's one payment, each renewal an invoice, never a second debit", async () => {
  const agent = 'agent-sub-acp';
  const key = await fundAgent(stack, agent, 3 * 39);
  const issued = await stack.call(
    'POST',
    '/api/v1/acp/platforms',
    { name: 'subscription-platform' },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  expect(issued.status).toBe(201);
  const acpHeaders = (credential: string) => ({
    authorization: `Bearer ${credential}`,
    'api-version': '2026-04-17',
    'idempotency-key': randomUUID(),
  });
  const platform = issued.body.api_key as string;
  const session = await stack.call(
    'POST',
    '/checkout_sessions',
    {
      line_items: [{ id: 'ai-receptionist' }],
      currency: 'usd',
      capabilities: {},
      metadata: { inputs: receptionistInputs },
    },
    acpHeaders(platform),
  );
  expect(session.status).toBe(201);
  expect(session.body.status).toBe('ready_for_payment');
  // The delegated allowance covers the first month only.
  const delegated = await stack.call(
    'POST',
    '/agentic_commerce/delegate_payment',
    {
      allowance: {
        reason: 'one_time',
        max_amount: 3900,
        currency: 'usd',
        checkout_session_id: session.body.id,
        merchant_id: 'agent-commerce',
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    },
    acpHeaders(key),
  );
  expect(delegated.status).toBe(201);
  const done = await stack.call(
    'POST',
    `/checkout_sessions/${session.body.id}/complete`,
    {
      payment_data: {
        handler_id: 'agent_wallet',
        instrument: { type: 'wallet_token', credential: { type: 'spt', token: delegated.body.id } },
      },
    },
    acpHeaders(platform),
  );
  expect(done.status).toBe(200);
  expect(done.body.status).toBe('completed');
  const orderId = done.body.order.id as string;
  buyerKeys.set(orderId, key);
  const first = await waitForSub(orderId, (s) => s.status === 'active');
  expect(await stack.services.wallets.balance(agent)).toBe(2 * 39_000_000);

  await skipTo(first.current_period.end);
  const invoiced = await waitForSub(orderId, (s) => s.open_invoice !== null);
  expect(invoiced.open_invoice).toMatchObject({ invoice_id: invoiceId(orderId, 2), amount: 39 });
  expect(invoiced.past_charges.map((c) => `${c.period} ${c.status} ${c.rail}`)).toEqual([
    '1 paid agent_wallet',
    '2 invoiced agent_wallet',
  ]);
  // The wallet still holds what the session did not take, though a debit would have succeeded.
  expect(await stack.services.wallets.balance(agent)).toBe(2 * 39_000_000);
  expect(await eventTypes(orderId)).toContain('subscription.invoice_issued');

  const id = invoiceId(orderId, 2);
  const invoiceTx = await stack.services.linkpay.createTransaction(id, 39_000_000, 'USD', 'front@cedar.example');
  const pay = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/subscription/invoices/${id}/pay`,
    { transaction_id: invoiceTx.id },
    asBuyer(orderId),
  );
  expect(pay.status).toBe(200);
  const renewed = await waitForSub(orderId, (s) => s.open_invoice === null && s.past_charges.length === 3);
  expect(renewed.past_charges[2]).toMatchObject({ period: 2, status: 'paid', rail: 'linkpay_ncp' });
  expect(await stack.services.wallets.balance(agent)).toBe(2 * 39_000_000);
});

test('a rejected order ends its subscription at once', async () => {
  const orderId = await walletSubscription('agent-sub-4', 39);
  await waitForSub(orderId, (s) => s.status === 'active');
  const rejected = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/review`,
    { action: 'reject', reason: 'wrong language' },
    asBuyer(orderId),
  );
  expect(rejected.body.status).toBe('rejected');
  const ended = await waitForSub(orderId, (s) => s.status === 'cancelled');
  expect(ended.past_charges).toHaveLength(1);
  expect(await stack.services.wallets.balance('agent-sub-4')).toBe(39_000_000);
  expect((await stack.call('POST', `/api/v1/orders/${orderId}/subscription/cancel`, {}, asBuyer(orderId))).status).toBe(
    409,
  );
});
