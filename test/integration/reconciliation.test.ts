/**
 * Reconciliation that proves the books (issue 24 §3), against the real API, worker, Temporal server and database:
 * a consistent book is `ok`; a tampered wallet balance is a discrepancy (and the run's search attribute counts it); an
 * orphan `order:<id>` debit of an order whose workflow completed `expired` is refunded exactly once; one of a running
 * order is signalled `recoverPayment`; a read model left at `fulfilling` by an expired workflow is rewritten; the
 * Schedule repairs an orphan with no request at all; the operator endpoints answer 401 / 403 to anyone else.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { ReconciliationReport } from '../../src/domain/reconciliation';
import { BooksRepository } from '../../src/repos/books';
import { reconcileBooks } from '../../src/services/reconciliation';
import { ensureReconciliationSchedule, orderWorkflowPort } from '../../src/temporal/reconciliation';
import { orderWorkflowId } from '../../workflows/shared';
import { type OrderState } from '../../src/domain/order';
import { fundedAgent, OPERATOR_KEY, startStack, waitForOrder, type Stack } from '../helpers/stack';

/** Unpaid orders expire after this long in this stack; the orders meant to expire are created first. */
const DEADLINE_SECONDS = 15;
const PRICE_MICROS = 69_000_000; // automation-wf, agent price
const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const operator = { authorization: `Bearer ${OPERATOR_KEY}` };

let stack: Stack;
/** Orders created unpaid at the start, expired by the time the tests that need them run. */
let expiring: { orphan: string; stale: string; scheduled: string; recent: string };

/** Creates an automation order for `agentId` (unpaid) and returns its id. */
async function createOrder(agentId: string): Promise<string> {
  const res = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    agent_id: agentId,
    inputs: automationInputs,
  });
  if (res.status !== 201) throw new Error(`order: ${res.status} ${res.text}`);
  return res.body.order_id as string;
}

/** Waits until the order's workflow has completed and returns its final state. */
async function finalState(orderId: string): Promise<OrderState> {
  await waitForOrder(stack, orderId, (o) => o.status === 'expired', (DEADLINE_SECONDS + 30) * 1000);
  return (await stack.client.workflow.getHandle(orderWorkflowId(orderId)).result()) as OrderState;
}

/** Runs the reconciliation through the operator endpoint and returns its report. */
async function reconcile(body: Record<string, unknown> = { grace_seconds: 1 }): Promise<ReconciliationReport> {
  const res = await stack.call('POST', '/api/v1/operator/reconciliation', body, operator);
  if (res.status !== 200) throw new Error(`reconcile: ${res.status} ${res.text}`);
  return res.body as ReconciliationReport;
}

/** Debits the wallet under the order's transaction id, as a process that died before the payment Update would. */
async function orphanDebit(agentId: string, orderId: string): Promise<void> {
  await stack.services.wallets.debit(agentId, PRICE_MICROS, `order:${orderId}`, `Order ${orderId}`, `order:${orderId}`);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * The service itself, with repairs and a 1 s grace period, over the same real ports the worker wires; a full run, or a
 * recent one with `ordersClosedSince`.
 */
const repairNow = (ordersClosedSince?: Date) =>
  reconcileBooks(
    {
      books: new BooksRepository(stack.services.db),
      wallets: stack.services.wallets,
      linkpay: stack.services.linkpay,
      orders: stack.services.orders,
      workflows: orderWorkflowPort(stack.client),
    },
    { repair: true, graceSeconds: 1, ...(ordersClosedSince ? { ordersClosedSince } : {}) },
  );

beforeAll(async () => {
  stack = await startStack({
    PAYMENT_DEADLINE_SECONDS: String(DEADLINE_SECONDS),
    RECONCILE_GRACE_SECONDS: '1',
  });
  await Promise.all([
    fundedAgent(stack, 'rec-buyer', 200),
    fundedAgent(stack, 'rec-orphan', 200),
    fundedAgent(stack, 'rec-sched', 200),
    fundedAgent(stack, 'rec-running', 200),
  ]);
  const [orphan, stale, scheduled, recent] = await Promise.all([
    createOrder('rec-orphan'),
    createOrder('rec-buyer'),
    createOrder('rec-sched'),
    createOrder('rec-buyer'),
  ]);
  expiring = { orphan, stale, scheduled, recent };
}, 120_000);

afterAll(async () => {
  await stack?.stop();
});

test('a consistent book reports ok: wallets, the paid order, the totals', async () => {
  const buyer = await stack.call('GET', '/api/v1/wallets/rec-buyer', undefined, operator);
  expect(buyer.body.balance_micros).toBe(200_000_000);
  const key = await fundedAgent(stack, 'rec-paying', 100);
  const id = await createOrder('rec-paying');
  const paid = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, { authorization: `Bearer ${key}` });
  expect(paid.status).toBe(200);
  await waitForOrder(stack, id, (o) => o.status === 'delivered');
  await sleep(1_200); // past the 1 s grace period, so the delivered order's workflow is asked too

  const report = await reconcile();
  expect(report.discrepancies).toEqual([]);
  expect(report).toMatchObject({ ok: true, discrepancy_count: 0, repair: true, grace_seconds: 1 });
  expect(report.checked.wallets).toBe(5);
  expect(report.checked.debits).toBe(1);
  expect(report.checked.orders).toBeGreaterThanOrEqual(1); // the delivered order: its workflow runs (review window)
  // Funding: 5 wallets credited 200 / 100 USD; one order of 69 USD paid.
  expect(report.totals).toEqual({
    balances_micros: 900_000_000 - PRICE_MICROS,
    credits_micros: 900_000_000,
    debits_micros: PRICE_MICROS,
    refunds_due_micros: 0,
  });
  expect(Date.parse(report.finished_at)).toBeGreaterThanOrEqual(Date.parse(report.started_at));

  const last = await stack.call('GET', '/api/v1/operator/reconciliation', undefined, operator);
  expect(last.status).toBe(200);
  expect(last.body).toEqual(report);
});

test('a wallet whose balance was tampered with is a discrepancy, counted in the run’s search attribute', async () => {
  await stack.services.db.wallets.updateOne({ _id: 'rec-buyer' }, { $inc: { balance_micros: 5_000_000 } });
  try {
    const report = await reconcile();
    expect(report.ok).toBe(false);
    expect(report.discrepancies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'wallet_balance_mismatch', agent_id: 'rec-buyer', amount_micros: 5_000_000 }),
        expect.objectContaining({ kind: 'books_unbalanced', amount_micros: 5_000_000 }),
      ]),
    );
    expect(report.discrepancy_count).toBe(2);
    // Nothing to repair: a balance is never rewritten from the ledger (or the other way round).
    expect(report.repaired).toEqual([]);
    expect((await stack.services.wallets.balance('rec-buyer')) - 200_000_000).toBe(5_000_000);

    // The run recorded the count in ReconcileDiscrepancies (visibility catches up within seconds).
    const query = `WorkflowType = 'booksReconciliationWorkflow' AND TaskQueue = '${stack.config.TEMPORAL_TASK_QUEUE}' AND ReconcileDiscrepancies = 2`;
    let found = 0;
    for (let i = 0; i < 50 && found === 0; i++) {
      for await (const _ of stack.client.workflow.list({ query })) found++;
      if (found === 0) await sleep(200);
    }
    expect(found).toBeGreaterThanOrEqual(1);
  } finally {
    await stack.services.db.wallets.updateOne({ _id: 'rec-buyer' }, { $inc: { balance_micros: -5_000_000 } });
  }
  expect((await reconcile()).ok).toBe(true);
});

test('an orphan order debit of an order whose workflow completed expired is refunded exactly once', async () => {
  const id = expiring.orphan;
  const final = await finalState(id);
  expect(final.payment).toBeUndefined();
  await orphanDebit('rec-orphan', id);
  expect(await stack.services.wallets.balance('rec-orphan')).toBe(200_000_000 - PRICE_MICROS);
  await sleep(1_200); // past the 1 s grace period

  // Reporting only: the orphan is a discrepancy and no money moves.
  const dry = await reconcile({ repair: false, grace_seconds: 1 });
  expect(dry.ok).toBe(false);
  expect(dry.discrepancies).toEqual([
    expect.objectContaining({
      kind: 'orphan_debit',
      order_id: id,
      agent_id: 'rec-orphan',
      amount_micros: PRICE_MICROS,
    }),
  ]);
  expect(await stack.services.wallets.balance('rec-orphan')).toBe(200_000_000 - PRICE_MICROS);

  const first = await reconcile();
  expect(first.ok).toBe(true);
  expect(first.repaired).toEqual([
    expect.objectContaining({
      kind: 'orphan_debit',
      order_id: id,
      agent_id: 'rec-orphan',
      amount_micros: PRICE_MICROS,
    }),
  ]);
  expect(first.repaired[0]?.action).toMatch(/refunded under refund:/);

  const second = await reconcile();
  expect(second.ok).toBe(true);
  expect(second.repaired).toEqual([]);

  const snap = await stack.services.wallets.snapshot('rec-orphan');
  expect(snap?.balance_micros).toBe(200_000_000);
  expect(snap?.entries.filter((e) => e.tx_id === `refund:${id}`)).toHaveLength(1);
  const order = await stack.call('GET', `/api/v1/orders/${id}`);
  expect(order.body.status).toBe('expired');
  expect(order.body.refund).toMatchObject({ status: 'completed' });
});

test('an orphan debit of a running order is signalled recoverPayment, and the order adopts it and is delivered', async () => {
  const id = await createOrder('rec-running');
  await orphanDebit('rec-running', id);
  await sleep(1_200);
  // No workflow run in between, so well within the order's payment deadline.
  const report = await repairNow();
  expect(report.repaired).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        kind: 'orphan_debit',
        order_id: id,
        amount_micros: PRICE_MICROS,
        action: 'signalled recoverPayment to the running order workflow',
      }),
    ]),
  );
  const history = await stack.client.workflow.getHandle(orderWorkflowId(id)).fetchHistory();
  const signals = (history.events ?? []).filter(
    (e) => e.workflowExecutionSignaledEventAttributes?.signalName === 'recoverPayment',
  );
  expect(signals).toHaveLength(1);
  // The workflow adopts the debit as its payment (no second debit, no refund) and delivers.
  const delivered = await waitForOrder(stack, id, (o) => o.status === 'delivered');
  expect(delivered.payment).toMatchObject({
    rail: 'agent_wallet',
    transaction_id: `order:${id}`,
  });
  const moves = (await stack.services.wallets.snapshot('rec-running'))?.entries.map((e) => e.tx_id) ?? [];
  expect(moves.filter((t) => t === `order:${id}`)).toHaveLength(1);
  expect(moves).not.toContain(`refund:${id}`);
});

test('a payment-link payment whose confirmation never came is adopted by its running order, which is delivered', async () => {
  const id = await createOrder('rec-link');
  // The buyer paid on the checkout page; the confirmation to the workflow was lost.
  const tx = await stack.services.linkpay.createTransaction(id, PRICE_MICROS, 'USD', null);
  await sleep(1_200);
  const report = await repairNow();
  expect(report.repaired).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'orphan_linkpay_payment', order_id: id })]),
  );
  const delivered = await waitForOrder(stack, id, (o) => o.status === 'delivered');
  expect(delivered.payment).toMatchObject({ rail: 'linkpay_ncp', transaction_id: tx.id });
  expect((await stack.services.linkpay.getTransaction(tx.id))?.status).toBe('succeeded');
});

// Issue 36 §1: a wallet debit of an order that another rail paid is given back, once, by the repair itself.
test('a wallet debit of an order paid on another rail is credited back exactly once', async () => {
  const key = await fundedAgent(stack, 'rec-twice', 200);
  const id = await createOrder('rec-twice');
  const tx = await stack.services.linkpay.createTransaction(id, PRICE_MICROS, 'USD', null);
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${id}/confirm_payment`,
    { rail: 'linkpay_ncp', transaction_id: tx.id },
    { authorization: `Bearer ${key}` },
  );
  expect(paid.status).toBe(200);
  await waitForOrder(stack, id, (o) => o.status === 'delivered');
  // A debit under the order's id, as a wallet charge that lost its race would leave.
  await orphanDebit('rec-twice', id);
  const before = (await stack.services.wallets.snapshot('rec-twice'))?.balance_micros;
  await sleep(1_200);
  const first = await repairNow();
  expect(first.repaired).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'returned_debit', order_id: id })]),
  );
  expect(first.discrepancies.filter((d) => d.order_id === id)).toEqual([]);
  const second = await repairNow();
  expect(second.repaired.filter((r) => r.order_id === id)).toEqual([]);
  expect(second.discrepancies.filter((d) => d.order_id === id)).toEqual([]);
  expect((await stack.services.wallets.snapshot('rec-twice'))?.balance_micros).toBe((before ?? 0) + PRICE_MICROS);
});

test('a running order whose read model shows a payment its workflow lacks is signalled, adopts it and is delivered', async () => {
  await fundedAgent(stack, 'rec-ahead', 200);
  const id = await createOrder('rec-ahead');
  await orphanDebit('rec-ahead', id);
  // What a crash leaves: the local activity wrote paid and fulfilling, the workflow task that ran it was lost.
  const payment = {
    rail: 'agent_wallet',
    transaction_id: `order:${id}`,
    amount_micros: PRICE_MICROS,
    paid_at: new Date().toISOString(),
  } as const;
  await stack.services.db.orders.updateOne(
    { _id: id },
    { $set: { status: 'fulfilling', payment, updated_at: new Date(Date.now() - 5_000) } },
  );
  const report = await repairNow();
  expect(report.repaired).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'payment_ahead_of_workflow', order_id: id })]),
  );
  const delivered = await waitForOrder(stack, id, (o) => o.status === 'delivered');
  expect(delivered.payment).toMatchObject({ rail: 'agent_wallet', transaction_id: `order:${id}` });
  const moves = (await stack.services.wallets.snapshot('rec-ahead'))?.entries.map((e) => e.tx_id) ?? [];
  expect(moves.filter((t) => t === `order:${id}`)).toHaveLength(1);
});

test('two Pay presses on the checkout page at the same instant make one payment-link transaction, not two charges', async () => {
  const id = await createOrder('rec-twice');
  const [a, b] = await Promise.all([
    stack.services.linkpay.createTransaction(id, PRICE_MICROS, 'USD', null),
    stack.services.linkpay.createTransaction(id, PRICE_MICROS, 'USD', null),
  ]);
  expect(a.id).toBe(b.id);
  expect(await stack.services.db.linkpayTransactions.countDocuments({ order_id: id, status: 'succeeded' })).toBe(1);
});

test('a read model left at fulfilling for an expired workflow is rewritten to expired', async () => {
  const id = expiring.stale;
  await finalState(id);
  const before = await stack.services.orders.get(id);
  await stack.services.db.orders.updateOne(
    { _id: id },
    { $set: { status: 'fulfilling', updated_at: new Date(Date.now() - 60_000) } },
  );

  const dry = await reconcile({ repair: false, grace_seconds: 1 });
  expect(dry.discrepancies).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'read_model_status_mismatch', order_id: id })]),
  );
  expect((await stack.services.orders.get(id))?.status).toBe('fulfilling');

  const report = await reconcile();
  expect(report.repaired).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        kind: 'read_model_status',
        order_id: id,
        action: expect.stringContaining('fulfilling → expired'),
      }),
    ]),
  );
  const after = await stack.services.orders.get(id);
  expect(after?.status).toBe('expired');
  expect(after?.progress.map((p) => p.status)).toEqual(['awaiting_payment', 'expired']);
  expect(after?.version).toBe(before?.version);
  expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('expired');
});

test('a recent run asks only the workflows closed in its window: a stale read model inside it is rewritten, one before it waits for a full run', async () => {
  const id = expiring.recent;
  await finalState(id);
  const closedAt = (await stack.client.workflow.getHandle(orderWorkflowId(id)).describe()).closeTime!;
  await stack.services.db.orders.updateOne(
    { _id: id },
    // `delivered`, as if the auto-accept's write were lost (a read model at paid / fulfilling is asked every run).
    { $set: { status: 'delivered', updated_at: new Date(closedAt.getTime() - 60_000) } },
  );
  // A delivered order awaiting its review: its workflow runs, a recent run does not ask it.
  const buyerKey = await fundedAgent(stack, 'rec-review', 200);
  const delivered = await createOrder('rec-review');
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${delivered}/confirm_payment`,
    {},
    {
      authorization: `Bearer ${buyerKey}`,
    },
  );
  expect(paid.status).toBe(200);
  await waitForOrder(stack, delivered, (o) => o.status === 'delivered', 30_000);
  await sleep(1_100); // past the 1 s grace period

  const after = await repairNow(new Date(closedAt.getTime() + 1_000));
  expect(after.scope).toBe('recent');
  expect(after.repaired.map((r) => r.order_id)).not.toContain(id);
  expect((await stack.services.orders.get(id))?.status).toBe('delivered');

  const within = await repairNow(new Date(closedAt.getTime() - 1_000));
  expect(within.scope).toBe('recent');
  expect(within.orders_closed_since).toBe(new Date(closedAt.getTime() - 1_000).toISOString());
  expect(within.repaired).toEqual(
    expect.arrayContaining([expect.objectContaining({ kind: 'read_model_status', order_id: id })]),
  );
  expect((await stack.services.orders.get(id))?.status).toBe('expired');

  const full = await repairNow();
  expect(full.scope).toBe('full');
  // The full run asked the delivered order's running workflow too; the recent ones did not.
  expect(full.checked.orders).toBeGreaterThan(within.checked.orders);
  expect(full.ok).toBe(true);
});

test('the operator endpoints: 401 without a credential, 403 with another one', async () => {
  const agentKey = await fundedAgent(stack, 'rec-stranger', 0);
  for (const method of ['POST', 'GET'] as const) {
    const body = method === 'POST' ? {} : undefined;
    const none = await stack.call(method, '/api/v1/operator/reconciliation', body);
    expect(none.status).toBe(401);
    expect(none.body.code).toBe('unauthorized');
    const other = await stack.call(method, '/api/v1/operator/reconciliation', body, {
      authorization: `Bearer ${agentKey}`,
    });
    expect(other.status).toBe(403);
    expect(other.body.code).toBe('forbidden');
    const wrongOperator = await stack.call(method, '/api/v1/operator/reconciliation', body, {
      'x-operator-key': 'op_not_the_key_0123456789',
    });
    expect(wrongOperator.status).toBe(403);
  }
  const viaHeader = await stack.call('GET', '/api/v1/operator/reconciliation', undefined, {
    'x-operator-key': OPERATOR_KEY,
  });
  expect(viaHeader.status).toBe(200);
  const bad = await stack.call('POST', '/api/v1/operator/reconciliation', { grace_seconds: -1 }, operator);
  expect(bad.status).toBe(400);
});

test('the schedule repairs an orphan debit with no request at all', async () => {
  const scheduleId = `books-reconciliation-test-${randomBytes(4).toString('hex')}`;
  const opts = { taskQueue: stack.config.TEMPORAL_TASK_QUEUE, intervalSeconds: 2, scheduleId };
  const id = expiring.scheduled;
  await finalState(id);
  expect(await ensureReconciliationSchedule(stack.client, opts)).toBe('created');
  try {
    expect(await ensureReconciliationSchedule(stack.client, opts)).toBe('exists');
    await orphanDebit('rec-sched', id);
    const deadline = Date.now() + 60_000;
    let refunded = false;
    while (!refunded && Date.now() < deadline) {
      await sleep(500);
      refunded = (await stack.services.wallets.balance('rec-sched')) === 200_000_000;
    }
    expect(refunded).toBe(true);
  } finally {
    expect(await ensureReconciliationSchedule(stack.client, { ...opts, intervalSeconds: 0 })).toBe('deleted');
  }
  const last = await stack.call('GET', '/api/v1/operator/reconciliation', undefined, operator);
  expect(last.status).toBe(200);
}, 90_000);

test('npm run reconcile prints the report and exits 1 while the books are not ok, 0 when they are', async () => {
  const run = (...args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
      const root = path.resolve(__dirname, '..', '..');
      execFile(
        path.join(root, 'node_modules', '.bin', 'tsx'),
        [path.join(root, 'scripts', 'reconcile.ts'), ...args],
        { cwd: root, env: { ...process.env, API_URL: stack.url, OPERATOR_KEY } },
        (err, stdout, stderr) => resolve({ code: err ? Number(err.code ?? 1) : 0, stdout, stderr }),
      );
    });
  await stack.services.db.wallets.updateOne({ _id: 'rec-buyer' }, { $inc: { balance_micros: -1 } });
  try {
    const bad = await run('--json', '--grace', '1');
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.stdout) as ReconciliationReport;
    expect(report.ok).toBe(false);
    expect(report.discrepancies).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'wallet_balance_mismatch', agent_id: 'rec-buyer', amount_micros: -1 }),
      ]),
    );
  } finally {
    await stack.services.db.wallets.updateOne({ _id: 'rec-buyer' }, { $inc: { balance_micros: 1 } });
  }
  const good = await run('--grace', '1');
  expect(good.stderr).toBe('');
  expect(good.stdout).toMatch(/^books OK/);
  expect(good.code).toBe(0);
  const last = await run('--last', '--json');
  expect(last.code).toBe(0);
  expect((JSON.parse(last.stdout) as ReconciliationReport).ok).toBe(true);
}, 60_000);
