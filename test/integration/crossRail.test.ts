/**
 * Issue 36 §1: one order, one charge, whatever the rails and however they race. An order paid over x402 (the
 * unmodified `@x402/fetch` client) and from the buyer's wallet at once is charged once: the second rail is refused
 * before its money moves, or (where a settlement was already in flight) given back on chain. Money is read where it
 * is: the buyer's USDC on chain and the wallet's balance. Also the refunder alone: at most one refund per payment.
 */
import { HTTPFacilitatorClient } from '@x402/core/server';
import { randomBytes } from 'node:crypto';
import { ANVIL_ADDRESSES, ANVIL_KEYS } from '../../scripts/lib/chain';
import { createX402Refunder } from '../../src/x402/refund';
import { createSettlementChain } from '../../src/x402/settlementChain';
import { OPERATOR_KEY, fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';
import type { X402PaymentDoc } from '../../src/db';
import { payingFetch, startX402Chain, type X402Chain } from '../helpers/x402';

jest.setTimeout(180_000);

let chain: X402Chain;
let stack: Stack;
const pay = payingFetch();

beforeAll(async () => {
  chain = await startX402Chain();
  stack = await startStack(chain.stackConfig);
});

afterAll(async () => {
  await stack?.stop();
  await chain?.stop();
});

const walletMicros = async (agentId: string, key: string): Promise<number> => {
  const w = await stack.call('GET', `/api/v1/wallets/${agentId}`, undefined, { authorization: `Bearer ${key}` });
  return w.body.balance_micros as number;
};

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** EIP-3009 transfers signed by `key`, through the test chain's facilitator (the refunder is one). */
const transfersFrom = (key: `0x${string}`) =>
  createX402Refunder({
    privateKey: key,
    assetName: 'USD Coin',
    assetVersion: '2',
    facilitator: new HTTPFacilitatorClient({ url: chain.facilitatorUrl }),
    chain: createSettlementChain(chain.rpcUrl, 8453),
  });

describe('x402 and the wallet racing on one order', () => {
  it('charges each order once: the other rail is refused before its money moves, or refunded', async () => {
    const agentId = `agent-race-${randomBytes(3).toString('hex')}`;
    const key = await fundedAgent(stack, agentId, 2000);
    const auth = { authorization: `Bearer ${key}` };
    const delays = [0, 0, 50, 150, 300, 500, 800, 0];
    const orders: { id: string; amount: number; x402: number; xCode?: string; wallet: number; wCode?: string }[] = [];
    const chainBefore = await chain.balance(ANVIL_ADDRESSES.buyer);
    const walletBefore = await walletMicros(agentId, key);
    await Promise.all(
      delays.map(async (delay, i) => {
        const created = await stack.call(
          'POST',
          '/api/v1/orders',
          { service_id: 'smart-consultation', agent_id: agentId, inputs: { type: 'visa', description: `Race ${i}` } },
          auth,
        );
        expect(created.status).toBe(201);
        const id = created.body.order_id as string;
        expect(created.body.payment_options.rails).toEqual(expect.arrayContaining(['agent_wallet', 'x402_usdc']));
        const x = pay(`${stack.url}/x402/orders/${id}`, { method: 'POST', headers: auth });
        const w = sleep(delay).then(() => stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, auth));
        const [xr, wr] = await Promise.all([x, w]);
        const xBody = (await xr.json()) as { code?: string; refund?: { status: string } };
        orders.push({
          id,
          amount: created.body.amount_micros as number,
          x402: xr.status,
          ...(xBody.code ? { xCode: xBody.code } : {}),
          wallet: wr.status,
          ...(wr.body.code ? { wCode: wr.body.code as string } : {}),
        });
      }),
    );
    for (const o of orders) {
      // Never a 5xx, never a plain refusal while the money moved: 200, payment_in_progress (nothing moved) or
      // payment_refunded (given back).
      expect([200, 409]).toContain(o.x402);
      expect([200, 409]).toContain(o.wallet);
      if (o.x402 === 409)
        expect(['payment_in_progress', 'payment_refunded', 'invalid_state_transition']).toContain(o.xCode);
      if (o.wallet === 409) expect(['payment_in_progress', 'invalid_state_transition']).toContain(o.wCode);
      // Exactly one rail holds the order.
      expect(o.x402 === 200 || o.wallet === 200).toBe(true);
      const done = await waitForOrder(stack, o.id, (b) => ['delivered', 'accepted'].includes(b.status as string));
      expect(['x402_usdc', 'agent_wallet']).toContain(done.payment.rail);
    }
    // The books: each order's net charge across both rails is its price (refunds included), to the micro-unit.
    const total = orders.reduce((s, o) => s + o.amount, 0);
    const deadline = Date.now() + 60_000;
    let spent = 0;
    while (Date.now() < deadline) {
      const onChain = Number(chainBefore - (await chain.balance(ANVIL_ADDRESSES.buyer)));
      const fromWallet = walletBefore - (await walletMicros(agentId, key));
      spent = onChain + fromWallet;
      if (spent === total) break;
      await sleep(500);
    }
    expect(spent).toBe(total);
  });
});

describe('x402 and the hosted payment form racing on one order', () => {
  it('charges each order once, counting card payments and their refunds', async () => {
    const agentId = `agent-form-${randomBytes(3).toString('hex')}`;
    const key = await fundedAgent(stack, agentId, 0);
    const auth = { authorization: `Bearer ${key}` };
    const chainBefore = await chain.balance(ANVIL_ADDRESSES.buyer);
    const delays = [0, 0, 100, 300, 600];
    const ids = await Promise.all(
      delays.map(async (delay, i) => {
        const created = await stack.call(
          'POST',
          '/api/v1/orders',
          { service_id: 'smart-consultation', agent_id: agentId, inputs: { type: 'visa', description: `Form ${i}` } },
          auth,
        );
        const id = created.body.order_id as string;
        const form = () =>
          fetch(`${stack.url}/pay/orders/${id}`, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: new URLSearchParams({ email: 'human@example.com' }),
          });
        const [x, f] = await Promise.all([
          pay(`${stack.url}/x402/orders/${id}`, { method: 'POST', headers: auth }),
          sleep(delay).then(form),
        ]);
        expect(x.status).toBeLessThan(500);
        expect(f.status).toBeLessThan(500);
        return { id, amount: created.body.amount_micros as number };
      }),
    );
    let total = 0;
    for (const { id, amount } of ids) {
      const done = await waitForOrder(stack, id, (b) => ['delivered', 'accepted'].includes(b.status as string));
      expect(['x402_usdc', 'linkpay_ncp']).toContain(done.payment.rail);
      // Card money kept for this order: succeeded, not refunded; it must be the order's payment or nothing.
      const kept = await stack.services.db.linkpayTransactions.find({ order_id: id, status: 'succeeded' }).toArray();
      if (done.payment.rail === 'linkpay_ncp') expect(kept.map((t) => t._id)).toEqual([done.payment.transaction_id]);
      else expect(kept).toEqual([]);
      total += done.payment.rail === 'x402_usdc' ? amount : 0;
    }
    // On chain the buyer paid exactly the orders x402 won (a settlement that lost was refunded).
    const deadline = Date.now() + 60_000;
    let onChain = -1;
    while (Date.now() < deadline) {
      onChain = Number(chainBefore - (await chain.balance(ANVIL_ADDRESSES.buyer)));
      if (onChain === total) break;
      await sleep(500);
    }
    expect(onChain).toBe(total);
  });
});

describe('the on-chain refunder', () => {
  it('refunds a settled payment once, however often it is asked', async () => {
    // The pay-to account holds what the orders above paid over x402.
    const refunder = transfersFrom(ANVIL_KEYS.payTo);
    const payTo = await chain.balance(ANVIL_ADDRESSES.payTo);
    expect(payTo).toBeGreaterThanOrEqual(100_000n);
    const before = await chain.balance(ANVIL_ADDRESSES.buyer);
    const p = {
      id: `x4p_test_${randomBytes(6).toString('hex')}`,
      payer: ANVIL_ADDRESSES.buyer.toLowerCase(),
      amount_micros: 100_000,
      asset: chain.asset,
      network: 'eip155:8453',
      pay_to: ANVIL_ADDRESSES.payTo,
    };
    // Three concurrent asks and one after: one transfer.
    const results = await Promise.allSettled([refunder.refund(p), refunder.refund(p), refunder.refund(p)]);
    // An ask that meets the refund still in flight says "not on chain yet" (its workflow retries): retry as it does.
    let again: { transaction: string } | undefined;
    for (let i = 0; i < 40 && !again; i++) {
      again = await refunder.refund(p).catch(() => undefined);
      if (!again) await sleep(250);
    }
    expect(again?.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const sent = results.filter((r) => r.status === 'fulfilled').map((r) => r.value.transaction);
    for (const tx of sent) expect(tx).toBe(again?.transaction);
    expect((await chain.balance(ANVIL_ADDRESSES.buyer)) - before).toBe(100_000n);
    // A payment paid to another address is not refunded from this account.
    await expect(refunder.refund({ ...p, id: `${p.id}-other`, pay_to: ANVIL_ADDRESSES.buyer })).rejects.toThrow(
      /not to the refund account/,
    );
  });
});

describe('a settlement that no order kept', () => {
  it('is refunded on chain by the reconciliation, once, and leaves the books at 0 discrepancies', async () => {
    // An order paid from the wallet, and a settlement for it already on chain (as one that was in flight when the
    // wallet paid, from a process that died before confirming it): the buyer really paid twice.
    const agentId = `agent-late-${randomBytes(3).toString('hex')}`;
    const key = await fundedAgent(stack, agentId, 200);
    const auth = { authorization: `Bearer ${key}` };
    const created = await stack.call(
      'POST',
      '/api/v1/orders',
      { service_id: 'smart-consultation', agent_id: agentId, inputs: { type: 'visa', description: 'Late settlement' } },
      auth,
    );
    const id = created.body.order_id as string;
    const amount = created.body.amount_micros as number;
    expect((await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, auth)).status).toBe(200);
    await waitForOrder(stack, id, (o) => o.status === 'delivered');
    // The buyer's transfer to the pay-to address, through the facilitator (an EIP-3009 authorization the buyer signs).
    const buyerPays = transfersFrom(ANVIL_KEYS.buyer);
    const paymentId = `x4p_late_${randomBytes(6).toString('hex')}`;
    const before = await chain.balance(ANVIL_ADDRESSES.buyer);
    const paid = await buyerPays.refund({
      id: paymentId,
      payer: ANVIL_ADDRESSES.payTo,
      amount_micros: amount,
      asset: chain.asset,
      network: 'eip155:8453',
      pay_to: ANVIL_ADDRESSES.buyer,
    });
    expect(before - (await chain.balance(ANVIL_ADDRESSES.buyer))).toBe(BigInt(amount));
    const at = new Date(Date.now() - 60_000);
    const doc: X402PaymentDoc = {
      _id: paymentId,
      status: 'settled',
      resource: `/x402/orders/${id}`,
      resource_kind: 'order',
      resource_ref: id,
      order_id: id,
      amount_micros: amount,
      asset: chain.asset,
      network: 'eip155:8453',
      pay_to: ANVIL_ADDRESSES.payTo,
      payer: ANVIL_ADDRESSES.buyer.toLowerCase(),
      auth_key: `eip155:8453|${ANVIL_ADDRESSES.buyer.toLowerCase()}|${paymentId}`,
      nonce: paymentId,
      valid_before: 0,
      transaction: paid.transaction,
      tx_key: paid.transaction.toLowerCase(),
      order_key: `order:${id}`,
      payment_id: null,
      error_reason: 'delivery_failed',
      error_message: 'order refused the payment: invalid_state_transition',
      delivery_token_hash: null,
      delivery: null,
      created_at: at,
      updated_at: at,
      settled_at: at,
    };
    await stack.services.db.x402Payments.insertOne(doc);
    const reconcile = async () => {
      const r = await stack.call(
        'POST',
        '/api/v1/operator/reconciliation',
        { grace_seconds: 1 },
        { authorization: `Bearer ${OPERATOR_KEY}` },
      );
      expect(r.status).toBe(200);
      return r.body as { ok: boolean; repaired: { kind: string; order_id?: string }[]; discrepancies: unknown[] };
    };
    const first = await reconcile();
    expect(first.repaired).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'x402_refund', order_id: id })]),
    );
    expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(before);
    // Once given back, nothing more moves and nothing is left: the chain's received total counts the refunded entry.
    const second = await reconcile();
    expect(second.repaired.filter((r) => r.order_id === id)).toEqual([]);
    expect(second.discrepancies).toEqual([]);
    expect(second.ok).toBe(true);
    expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(before);
    // A refunded settlement never pays the order again: its transaction hash is refused.
    const again = await stack.call(
      'POST',
      `/api/v1/orders/${id}/confirm_payment`,
      { rail: 'x402_usdc', transaction_id: paid.transaction },
      auth,
    );
    expect(again.status).toBeGreaterThanOrEqual(400);
    expect(again.status).toBeLessThan(500);
  });
});
