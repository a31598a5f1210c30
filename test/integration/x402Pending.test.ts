/**
 * A settlement that comes back pending (issue 3 §2): anvil stops mining, so the facilitator's receipt wait times out
 * and answers `settlement_pending` with the transaction hash. The API records the payment as pending, hands out no
 * goods (202 with a delivery URL), and the `x402ReconcileWorkflow` settles it from the receipt once the block is mined; the goods then come
 * from the delivery URL and from a retry with the same payment-identifier, with one charge only. An order paid by
 * such a settlement is confirmed by the workflow once it settles. Claims orphaned by a dead request are reconciled
 * from the chain through the token's AuthorizationUsed event.
 */
import { X402PaymentRepository, authKey } from '../../src/repos/x402Payments';
import { sha256Hex } from '../../src/hash';
import { randomBytes } from 'node:crypto';
import { HTTPFacilitatorClient } from '@x402/core/http';
import { createTestClient, http } from 'viem';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { ANVIL_ADDRESSES } from '../../scripts/lib/chain';
import type { X402PaymentDoc } from '../../src/db';
import { MICRO_ITEMS, microItemGoods } from '../../src/products/micro';
import { startStack, waitForOrder, type Stack } from '../helpers/stack';
import {
  paymentRequiredOf,
  paymentResponseOf,
  signPayment,
  signatureHeader,
  startX402Chain,
  type X402Chain,
} from '../helpers/x402';

jest.setTimeout(120_000);

let chain: X402Chain;
let stack: Stack;

beforeAll(async () => {
  chain = await startX402Chain({ confirmationTimeoutMs: 1500 });
  stack = await startStack(chain.stackConfig);
});

afterAll(async () => {
  await stack?.stop();
  await chain?.stop();
});

async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

it('records a pending settlement, delivers nothing, then reconciles it by its transaction hash', async () => {
  const item = MICRO_ITEMS[MICRO_ITEMS.length - 1]!;
  const path = `/x402/item/${item.id}`;
  const first = await fetch(stack.url + path);
  const required = paymentRequiredOf(first);
  const headers = signatureHeader(await signPayment(required, { paymentId: `pay_${randomBytes(12).toString('hex')}` }));
  const anvil = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  const buyerBefore = await chain.balance(ANVIL_ADDRESSES.buyer);

  // No more blocks: the settlement transaction waits in the pool and the receipt wait times out.
  await anvil.setAutomine(false);
  const pending = await stack.call('GET', path, undefined, headers);
  expect(pending.status).toBe(202);
  expect(pending.body).toMatchObject({
    status: 'settlement_pending',
    payment: { status: 'pending', amount_micros: item.price_micros },
  });
  expect(pending.headers.get('payment-required')).toBeNull();
  expect(pending.headers.get('location')).toBe(pending.body.delivery_url);
  const tx = pending.body.payment.transaction as string;
  expect(tx).toMatch(/^0x[0-9a-f]{64}$/);
  expect(paymentResponseOf(pending)).toMatchObject({
    success: false,
    errorReason: 'settlement_pending',
    transaction: tx,
  });
  expect(pending.body.content).toBeUndefined();
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore);

  const paymentId = pending.body.payment.payment_id as string;
  const ledger = await stack.call('GET', `/api/v1/x402/payments/${paymentId}`);
  expect(ledger.body).toMatchObject({ status: 'pending', transaction: tx, error_reason: 'settlement_pending' });
  const deliveryPath = new URL(pending.body.delivery_url as string).pathname;
  expect((await stack.call('GET', deliveryPath)).status).toBe(202);
  // A retry with the same payment-identifier while it is pending: no goods, no second settlement.
  const retryWhilePending = await stack.call('GET', path, undefined, headers);
  expect(retryWhilePending.status).toBe(202);
  expect(retryWhilePending.body).toMatchObject({
    status: 'settlement_pending',
    payment: { payment_id: pending.body.payment.payment_id },
  });

  await anvil.mine({ blocks: 1 });
  await anvil.setAutomine(true);

  const settled = await until('the reconcile workflow to settle the payment', async () => {
    const res = await stack.call('GET', `/api/v1/x402/payments/${paymentId}`);
    return res.body.status === 'settled' ? res.body : undefined;
  });
  expect(settled).toMatchObject({
    transaction: tx,
    payer: ANVIL_ADDRESSES.buyer.toLowerCase(),
    amount_micros: item.price_micros,
  });
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - BigInt(item.price_micros));

  const delivered = await stack.call('GET', deliveryPath);
  expect(delivered.status).toBe(200);
  expect(delivered.body.content).toEqual(microItemGoods(item));
  expect(paymentResponseOf(delivered)).toMatchObject({ success: true, transaction: tx });

  const retried = await stack.call('GET', path, undefined, headers);
  expect(retried.status).toBe(200);
  expect(retried.body.content).toEqual(microItemGoods(item));
  expect(retried.body.payment).toMatchObject({ transaction: tx, status: 'settled' });
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - BigInt(item.price_micros));

  const wf = await stack.client.workflow.getHandle(`x402-reconcile-${paymentId}`).result();
  expect(wf).toMatchObject({ status: 'settled', transaction: tx });
});

it('an order whose x402 settlement came back pending is marked paid once the reconcile workflow sees it settle', async () => {
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'smart-consultation',
    inputs: { type: 'visa', description: 'Pending settlement' },
  });
  expect(created.status).toBe(201);
  const orderId = created.body.order_id as string;
  const path = `/x402/orders/${orderId}`;
  const asBuyer = { authorization: `Bearer ${created.body.order_secret}` };
  const required = paymentRequiredOf(await fetch(stack.url + path, { method: 'POST', headers: asBuyer }));
  const headers = { ...signatureHeader(await signPayment(required)), ...asBuyer };
  const anvil = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });

  await anvil.setAutomine(false);
  const pending = await stack.call('POST', path, undefined, headers);
  expect(pending.status).toBe(202);
  expect(pending.body).toMatchObject({
    status: 'settlement_pending',
    payment: { status: 'pending', amount_micros: created.body.amount_micros },
  });
  expect((await stack.call('GET', `/api/v1/orders/${orderId}`)).body.status).toBe('awaiting_payment');
  // While that settlement is open, the order takes no second x402 payment.
  const second = await stack.call('POST', path, undefined, {
    ...signatureHeader(await signPayment(required)),
    ...asBuyer,
  });
  expect(second.status).toBe(409);
  expect(second.body.code).toBe('payment_in_progress');

  await anvil.mine({ blocks: 1 });
  await anvil.setAutomine(true);

  const tx = pending.body.payment.transaction as string;
  const paid = await waitForOrder(stack, orderId, (o) => o.payment !== null, 60_000);
  expect(paid.payment).toMatchObject({ rail: 'x402_usdc', transaction_id: tx });
});

it('reconciles claims orphaned by a dead request from the chain: settled when the authorization was used, failed when it expired unused', async () => {
  const item = MICRO_ITEMS[0]!;
  const required = paymentRequiredOf(await fetch(`${stack.url}/x402/item/${item.id}`));
  const requirements = required.accepts[0]!;
  const facilitator = new HTTPFacilitatorClient({ url: chain.facilitatorUrl });
  const old = new Date(Date.now() - 10 * 60_000);
  const orphan = (id: string, nonce: string, validBefore: number): X402PaymentDoc => ({
    _id: id,
    status: 'settling',
    resource: `/x402/item/${item.id}`,
    resource_kind: 'micro_item',
    resource_ref: item.id,
    order_id: null,
    amount_micros: item.price_micros,
    asset: requirements.asset,
    network: requirements.network,
    pay_to: requirements.payTo,
    payer: ANVIL_ADDRESSES.buyer.toLowerCase(),
    nonce: nonce.toLowerCase(),
    auth_key: authKey(requirements.network, ANVIL_ADDRESSES.buyer, nonce),
    valid_before: validBefore,
    transaction: null,
    tx_key: null,
    order_key: null,
    payment_id: null,
    error_reason: null,
    error_message: null,
    delivery_token_hash: null,
    delivery: null,
    created_at: old,
    updated_at: old,
    settled_at: null,
  });

  // The request died after its settlement went through: the transfer is on chain, the ledger still says settling.
  const used = await signPayment(required);
  const settled = await facilitator.settle(used, requirements);
  expect(settled.success).toBe(true);
  const usedAuth = used.payload.authorization as { nonce: string; validBefore: string };
  await stack.services.db.x402Payments.insertOne(
    orphan('x4p_orphan_used', usedAuth.nonce, Number(usedAuth.validBefore)),
  );
  // The request died before settling, and the authorization has expired: it can never move money now.
  const unused = await signPayment(required);
  await stack.services.db.x402Payments.insertOne(
    orphan(
      'x4p_orphan_unused',
      (unused.payload.authorization as { nonce: string }).nonce,
      Math.floor(Date.now() / 1000) - 3600,
    ),
  );

  const stale = await stack.services.x402Payments.staleClaims(new Date(), 10, 5 * 60_000);
  expect(stale.map((d) => d._id).sort()).toEqual(['x4p_orphan_unused', 'x4p_orphan_used']);

  // The worker's scheduled reconciliation may have started the same workflow first (its id is the payment's): then
  // its result is the one to check.
  const run = async (paymentId: string): Promise<unknown> => {
    const workflowId = `x402-reconcile-${paymentId}`;
    try {
      return await stack.client.workflow.execute('x402ReconcileWorkflow', {
        taskQueue: stack.config.TEMPORAL_TASK_QUEUE,
        workflowId,
        args: [{ paymentId }],
      });
    } catch (err) {
      if (!(err instanceof WorkflowExecutionAlreadyStartedError)) throw err;
      return stack.client.workflow.getHandle(workflowId).result();
    }
  };
  await expect(run('x4p_orphan_used')).resolves.toMatchObject({
    status: 'settled',
    transaction: settled.transaction,
    reason: 'delivery_failed',
  });
  await expect(run('x4p_orphan_unused')).resolves.toMatchObject({
    status: 'failed',
    reason: 'authorization_expired_unsettled',
  });
  expect(await stack.services.x402Payments.get('x4p_orphan_used')).toMatchObject({
    status: 'settled',
    transaction: settled.transaction,
    error_reason: 'delivery_failed',
  });
  expect(await stack.services.x402Payments.get('x4p_orphan_unused')).toMatchObject({
    status: 'failed',
    error_reason: 'authorization_expired_unsettled',
  });
});

it('a purchase whose request died after settling is reconciled within seconds, and a retry with its payment-identifier gets the goods, charged once', async () => {
  const item = MICRO_ITEMS[1]!;
  const path = `/x402/item/${item.id}`;
  const required = paymentRequiredOf(await fetch(stack.url + path));
  const headers = signatureHeader(await signPayment(required, { paymentId: `pay_${randomBytes(12).toString('hex')}` }));
  const buyerBefore = await chain.balance(ANVIL_ADDRESSES.buyer);
  const first = await stack.call('GET', path, undefined, headers);
  expect(first.status).toBe(200);
  const paymentId = first.body.payment.payment_id as string;
  const tx = first.body.payment.transaction as string;

  // Put the books back where a request killed after the facilitator settled leaves them: the claim `settling` with a
  // lapsed lease and no transaction recorded, the payment id still in flight.
  const db = stack.services.db;
  await db.x402Payments.updateOne(
    { _id: paymentId },
    {
      $set: {
        status: 'settling',
        transaction: null,
        tx_key: null,
        settled_at: null,
        lease_until: new Date(Date.now() - 1000),
      },
    },
  );
  await db.x402PaymentIds.updateOne(
    { payment_ref: paymentId },
    { $set: { state: 'in_flight', payment_ref: null, response: null } },
  );
  const during = await stack.call('GET', path, undefined, headers);
  expect(during.status).toBe(409);
  expect(during.body.code).toBe('payment_in_progress');

  // The sweeper (every 5 s in each API) hands the orphan to the reconcile workflow, which finds the transfer on chain.
  const reconciled = await until(
    'the orphan reconciled',
    async () => {
      const p = await stack.services.x402Payments.get(paymentId);
      return p?.status === 'settled' ? p : undefined;
    },
    30_000,
  );
  expect(reconciled).toMatchObject({ transaction: tx, error_reason: null });
  const retried = await stack.call('GET', path, undefined, headers);
  expect(retried.status).toBe(200);
  expect(retried.headers.get('payment-identifier-replayed')).toBe('true');
  expect(retried.body.content).toEqual(first.body.content);
  expect(retried.body.payment).toMatchObject({ payment_id: paymentId, transaction: tx });
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - BigInt(item.price_micros));
});

it('an x402 order payment whose request died between settlement and confirming the order: a resend confirms it, and so does the sweeper without one', async () => {
  const anvil = createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) });
  /**
   * Leaves the books as a request killed after `markSettled` and before the order's `confirmPayment` leaves them:
   * the transfer on chain, the ledger entry settled with `confirmation_due`, the payment id still in flight, the
   * order awaiting payment. Reached for real through a settlement that came back pending, whose reconciliation is
   * terminated before the block is mined (so nothing else confirms the order).
   */
  async function diedAfterSettling(leaseMs: number) {
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'smart-consultation',
      inputs: { type: 'visa', description: 'Request killed after settling' },
    });
    expect(created.status).toBe(201);
    const orderId = created.body.order_id as string;
    const path = `/x402/orders/${orderId}`;
    const asBuyer = { authorization: `Bearer ${created.body.order_secret}` };
    const required = paymentRequiredOf(await fetch(stack.url + path, { method: 'POST', headers: asBuyer }));
    const headers = {
      ...signatureHeader(await signPayment(required, { paymentId: `pay_${randomBytes(12).toString('hex')}` })),
      ...asBuyer,
    };
    await anvil.setAutomine(false);
    const pending = await stack.call('POST', path, undefined, headers);
    expect(pending.status).toBe(202);
    const paymentId = pending.body.payment.payment_id as string;
    const tx = pending.body.payment.transaction as string;
    await stack.client.workflow.getHandle(`x402-reconcile-${paymentId}`).terminate('drill: the request died');
    await anvil.mine({ blocks: 1 });
    await anvil.setAutomine(true);

    const ledger = stack.services.x402Payments;
    await ledger.markSettled(paymentId, tx, true);
    await stack.services.db.x402Payments.updateOne(
      { _id: paymentId },
      { $set: { lease_until: new Date(Date.now() + leaseMs) } },
    );
    await stack.services.db.x402PaymentIds.updateOne(
      { payment_ref: paymentId },
      { $set: { state: 'in_flight', payment_ref: null, response: null } },
    );
    expect((await stack.call('GET', `/api/v1/orders/${orderId}`)).body.status).toBe('awaiting_payment');
    return { orderId, path, headers, paymentId, tx, amount: created.body.amount_micros as number };
  }

  const buyerBefore = await chain.balance(ANVIL_ADDRESSES.buyer);

  // A resend with the payment id: the order is confirmed by that request and shown, with the receipt.
  const a = await diedAfterSettling(10 * 60_000);
  const resent = await stack.call('POST', a.path, undefined, a.headers);
  expect(resent.status).toBe(200);
  expect(resent.body.order).toMatchObject({ order_id: a.orderId });
  expect(resent.body.order.status).not.toBe('awaiting_payment');
  expect(resent.body.payment).toMatchObject({ payment_id: a.paymentId, transaction: a.tx, status: 'settled' });
  expect((await stack.services.x402Payments.get(a.paymentId))?.confirmation_due).toBeUndefined();
  const paidA = await waitForOrder(stack, a.orderId, (o) => o.payment !== null);
  expect(paidA.payment).toMatchObject({ rail: 'x402_usdc', transaction_id: a.tx });
  // Again, now that the order is no longer payable: the same answer, not a refusal.
  const again = await stack.call('POST', a.path, undefined, a.headers);
  expect(again.status).toBe(200);
  expect(again.headers.get('payment-identifier-replayed')).toBe('true');
  expect(again.body.payment).toMatchObject({ payment_id: a.paymentId, transaction: a.tx });

  // No resend: the sweeper (every 5 s in each API) finds the lapsed lease and reconciliation confirms the order.
  const b = await diedAfterSettling(-1000);
  const paidB = await waitForOrder(stack, b.orderId, (o) => o.payment !== null, 30_000);
  expect(paidB.payment).toMatchObject({ rail: 'x402_usdc', transaction_id: b.tx });
  expect(
    await until(
      'confirmation recorded',
      async () => {
        const p = await stack.services.x402Payments.get(b.paymentId);
        return p && p.confirmation_due === undefined ? p : undefined;
      },
      10_000,
    ),
  ).toMatchObject({ status: 'settled', error_reason: null });
  // The buyer's resend after that: the purchase's answer (the quote refuses a paid order; the resend is not refused).
  const late = await stack.call('POST', b.path, undefined, b.headers);
  expect(late.status).toBe(200);
  expect(late.body.payment).toMatchObject({ payment_id: b.paymentId, transaction: b.tx });
  // The same resend without the buyer's credential is still refused as any request without one.
  const { authorization: _credential, ...paymentOnly } = b.headers as Record<string, string>;
  const anonymous = await stack.call('POST', b.path, undefined, paymentOnly);
  expect(anonymous.status).toBe(401);

  // Each order charged once on chain.
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - BigInt(a.amount) - BigInt(b.amount));
});

it('a resend whose first request died between the claim and settlement takes the claim over and settles it: the goods, charged once', async () => {
  const item = MICRO_ITEMS[2]!;
  const path = `/x402/item/${item.id}`;
  const required = paymentRequiredOf(await fetch(stack.url + path));
  const requirements = required.accepts[0]!;
  // A purchase that went through, for the goods and the payment-id record such a purchase writes.
  const firstId = `pay_${randomBytes(12).toString('hex')}`;
  const first = await stack.call(
    'GET',
    path,
    undefined,
    signatureHeader(await signPayment(required, { paymentId: firstId })),
  );
  expect(first.status).toBe(200);
  const db = stack.services.db;
  const firstRecord = await db.x402PaymentIds.findOne({ _id: X402PaymentRepository.paymentIdKey(path, firstId) });
  const goods = (await stack.services.x402Payments.get(first.body.payment.payment_id as string))!.delivery;

  // Another purchase whose request died after claiming its authorization, before the facilitator settled anything.
  const paymentId = `pay_${randomBytes(12).toString('hex')}`;
  const payload = await signPayment(required, { paymentId });
  const auth = payload.payload.authorization as { from: string; nonce: string; validBefore: string };
  const claim = await stack.services.x402Payments.claim(
    {
      resource: path,
      resource_kind: 'micro_item',
      resource_ref: item.id,
      order_id: null,
      amount_micros: item.price_micros,
      asset: requirements.asset,
      network: requirements.network,
      pay_to: requirements.payTo,
      payer: auth.from,
      nonce: auth.nonce,
      valid_before: Number(auth.validBefore),
      payment_id: paymentId,
    },
    goods,
  );
  if ('refused' in claim) throw new Error('claim refused');
  await db.x402Payments.updateOne({ _id: claim._id }, { $set: { lease_until: new Date(Date.now() - 1000) } });
  await db.x402PaymentIds.insertOne({
    ...firstRecord!,
    _id: X402PaymentRepository.paymentIdKey(path, paymentId),
    payment_id: paymentId,
    payload_hash: sha256Hex(JSON.stringify(payload)),
    state: 'in_flight',
    payment_ref: null,
    response: null,
    created_at: new Date(),
    updated_at: new Date(),
  });
  const buyerBefore = await chain.balance(ANVIL_ADDRESSES.buyer);

  const resent = await stack.call('GET', path, undefined, signatureHeader(payload));
  expect(resent.status).toBe(200);
  expect(resent.body.content).toEqual(first.body.content);
  expect(resent.body.payment).toMatchObject({ payment_id: claim._id, status: 'settled' });
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - BigInt(item.price_micros));
  expect(await stack.services.x402Payments.get(claim._id)).toMatchObject({ status: 'settled' });

  const again = await stack.call('GET', path, undefined, signatureHeader(payload));
  expect(again.status).toBe(200);
  expect(again.headers.get('payment-identifier-replayed')).toBe('true');
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(buyerBefore - BigInt(item.price_micros));
});
