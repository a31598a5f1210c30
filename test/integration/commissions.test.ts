/**
 * Partner commissions through the real API and worker (issue 10 §3): a self-referral through a quote's `partner_id`
 * earns nothing spendable (a second wallet of the buyer: pending while the order is open, cancelled on reject; the
 * buyer itself, a wallet with the buyer's key, an unclaimed wallet: not eligible), a reject after payment leaves the
 * partner with no commission, and a commission becomes spendable only when the order is accepted, by the buyer or by
 * the 72-hour review window elapsing (Temporal's time-skipping test server).
 */
import path from 'node:path';
import { saveHistory } from '../helpers/histories';
import { startStack, waitForOrder, fundedAgent, OPERATOR_KEY, type Stack } from '../helpers/stack';
import {
  fundAgent,
  startTimeSkippingStack,
  waitForOrderTs,
  type TimeSkippingStack,
} from '../helpers/timeSkippingStack';
import { orderWorkflowId } from '../../workflows/shared';

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const operator = { 'x-operator-key': OPERATOR_KEY };
type Api = Pick<Stack, 'call'>;

/** Quote naming `partnerId`, order for `agentId`, paid from its wallet; returns the order id. */
async function partneredOrder(api: Api, agentId: string, key: string, partnerId: string): Promise<string> {
  const quote = await api.call('POST', '/api/v1/quote', { service_id: 'automation-wf', partner_id: partnerId });
  expect(quote.status).toBe(201);
  const order = await api.call(
    'POST',
    '/api/v1/orders',
    { quote_id: quote.body.quote_id, agent_id: agentId, inputs: automationInputs },
    bearer(key),
  );
  expect(order.status).toBe(201);
  const id = order.body.order_id as string;
  expect((await api.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, bearer(key))).status).toBe(200);
  return id;
}

describe('on the dev server', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
  });

  test('a self-referral through a second wallet is pending, never spendable, and cancelled by the reject', async () => {
    const buyerKey = await fundedAgent(stack, 'mallory', 100);
    const secondKey = await fundedAgent(stack, 'mallory-2', 0);
    const id = await partneredOrder(stack, 'mallory', buyerKey, 'mallory-2');
    await waitForOrder(stack, id, (o) => o.status === 'delivered');

    // Paid and delivered: the commission is recorded but not in the wallet, so nothing can be spent from it.
    const pending = await stack.call('GET', '/api/v1/partners/mallory-2/commissions', undefined, bearer(secondKey));
    expect(pending.status).toBe(200);
    expect(pending.body.commissions).toEqual([
      expect.objectContaining({
        id: `commission:${id}`,
        status: 'pending',
        commission_micros: 13_800_000,
        credit_tx_id: null,
      }),
    ]);
    expect(pending.body.totals).toMatchObject({ pending_micros: 13_800_000, credited_micros: 0, net_micros: 0 });
    expect(
      (await stack.call('GET', '/api/v1/wallets/mallory-2', undefined, bearer(secondKey))).body.balance_micros,
    ).toBe(0);
    const other = await stack.call(
      'POST',
      '/api/v1/orders',
      { service_id: 'automation-wf', agent_id: 'mallory-2', inputs: automationInputs },
      bearer(secondKey),
    );
    const spend = await stack.call(
      'POST',
      `/api/v1/orders/${other.body.order_id}/confirm_payment`,
      {},
      bearer(secondKey),
    );
    expect([spend.status, spend.body.code]).toEqual([402, 'insufficient_funds']);

    // The buyer rejects: full refund, the commission is cancelled, no money moved to or from the second wallet.
    const rejected = await stack.call(
      'POST',
      `/api/v1/orders/${id}/review`,
      { action: 'reject', reason: 'changed my mind' },
      bearer(buyerKey),
    );
    expect(rejected.body).toMatchObject({ status: 'rejected', refund: { status: 'completed', amount: 69 } });
    const after = await stack.call('GET', '/api/v1/partners/mallory-2/commissions', undefined, operator);
    expect(after.body.commissions[0]).toMatchObject({ status: 'cancelled', credit_tx_id: null, reversal_tx_id: null });
    expect(after.body.totals).toMatchObject({
      pending_micros: 0,
      cancelled_micros: 13_800_000,
      credited_micros: 0,
      net_micros: 0,
    });
    expect(await stack.services.wallets.balance('mallory')).toBe(100_000_000);
    expect(await stack.services.wallets.balance('mallory-2')).toBe(0);
    expect(await stack.services.db.walletEntries.countDocuments({ agent_id: 'mallory-2' })).toBe(0);
  });

  test("the buyer itself, a wallet holding the buyer's key and an unclaimed wallet are not eligible", async () => {
    const key = await fundedAgent(stack, 'sybil', 300);
    // A second wallet claimed with the same credential (the same key hash).
    await fundedAgent(stack, 'sybil-alias', 0);
    const own = await stack.services.wallets.get('sybil');
    await stack.services.db.wallets.updateOne({ _id: 'sybil-alias' }, { $set: { key_hash: own?.key_hash ?? null } });
    const cases = [
      ['sybil', 'the partner is the buying agent'],
      ['sybil-alias', 'the partner wallet and the buyer wallet share an agent key'],
      ['nobody-yet', 'the partner wallet is not claimed (it has no agent key)'],
    ] as const;
    for (const [partner, reason] of cases) {
      const id = await partneredOrder(stack, 'sybil', key, partner);
      await waitForOrder(stack, id, (o) => o.status === 'delivered');
      expect(
        (await stack.call('POST', `/api/v1/orders/${id}/review`, { action: 'accept' }, bearer(key))).body.status,
      ).toBe('accepted');
      const listed = await stack.call('GET', `/api/v1/partners/${partner}/commissions`, undefined, operator);
      expect(listed.body.commissions[0]).toMatchObject({
        order_id: id,
        status: 'not_eligible',
        reason,
        commission_micros: 0,
      });
    }
    expect(await stack.services.wallets.balance('sybil')).toBe(300_000_000 - 3 * 69_000_000);
    expect(await stack.services.wallets.balance('sybil-alias')).toBe(0);
    // Naming an unclaimed id creates no wallet for a stranger to claim later with money in it.
    expect(await stack.services.wallets.get('nobody-yet')).toBeNull();
  });

  test('a reject after payment leaves the partner with no commission; an accepted order pays it', async () => {
    const buyerKey = await fundedAgent(stack, 'buyer-c', 200);
    const partnerKey = await fundedAgent(stack, 'partner-c', 0);
    const rejectedId = await partneredOrder(stack, 'buyer-c', buyerKey, 'partner-c');
    const acceptedId = await partneredOrder(stack, 'buyer-c', buyerKey, 'partner-c');
    await waitForOrder(stack, rejectedId, (o) => o.status === 'delivered');
    await waitForOrder(stack, acceptedId, (o) => o.status === 'delivered');
    expect(await stack.services.wallets.balance('partner-c')).toBe(0);
    expect(
      (await stack.call('POST', `/api/v1/orders/${rejectedId}/review`, { action: 'reject' }, bearer(buyerKey))).body
        .status,
    ).toBe('rejected');
    expect(await stack.services.wallets.balance('partner-c')).toBe(0);
    expect(
      (await stack.call('POST', `/api/v1/orders/${acceptedId}/review`, { action: 'accept' }, bearer(buyerKey))).body
        .status,
    ).toBe('accepted');
    const listed = await stack.call('GET', '/api/v1/partners/partner-c/commissions', undefined, bearer(partnerKey));
    const byOrder = Object.fromEntries(
      listed.body.commissions.map((c: { order_id: string; status: string }) => [c.order_id, c.status]),
    );
    expect(byOrder).toEqual({ [rejectedId]: 'cancelled', [acceptedId]: 'credited' });
    expect(listed.body.totals).toMatchObject({
      credited_micros: 13_800_000,
      cancelled_micros: 13_800_000,
      pending_micros: 0,
      net_micros: 13_800_000,
    });
    const wallet = await stack.call('GET', '/api/v1/wallets/partner-c', undefined, bearer(partnerKey));
    expect(wallet.body.balance_micros).toBe(13_800_000);
    expect(wallet.body.transactions).toEqual([
      expect.objectContaining({ id: `commission:${acceptedId}`, type: 'credit', amount_micros: 13_800_000 }),
    ]);
    expect(await stack.services.wallets.balance('buyer-c')).toBe(200_000_000 - 69_000_000);

    if (process.env.RECORD_HISTORIES === '1') {
      // Histories of the current commission path for the replay test (never written over the stored ones).
      const dir = path.resolve(__dirname, '..', 'fixtures', 'histories');
      for (const [name, id] of [
        ['order-partner-commission-rejected.json', rejectedId],
        ['order-partner-commission-accepted.json', acceptedId],
      ] as const) {
        const handle = stack.client.workflow.getHandle(orderWorkflowId(id));
        await handle.result();
        saveHistory(path.join(dir, name), await handle.fetchHistory());
      }
    }
  });
});

describe('on the time-skipping server', () => {
  let ts: TimeSkippingStack;
  beforeAll(async () => {
    ts = await startTimeSkippingStack();
  }, 120_000);
  afterAll(async () => {
    await ts?.stop();
  });

  test('the commission becomes spendable when the review window elapses without a review', async () => {
    const buyerKey = await fundAgent(ts, 'buyer-w', 100);
    await fundAgent(ts, 'partner-w', 0);
    const id = await partneredOrder(ts, 'buyer-w', buyerKey, 'partner-w');
    await waitForOrderTs(ts, id, (o) => o.status === 'delivered');
    expect(await ts.services.wallets.balance('partner-w')).toBe(0);
    // Awaiting the result lets the test server skip the 72 hours.
    const final = (await ts.env.client.workflow.getHandle(orderWorkflowId(id)).result()) as {
      status: string;
      review: { automatic: boolean };
    };
    expect(final).toMatchObject({ status: 'accepted', review: { automatic: true } });
    expect(await ts.services.wallets.balance('partner-w')).toBe(13_800_000);
    const listed = await ts.call('GET', '/api/v1/partners/partner-w/commissions', undefined, operator);
    expect(listed.body.commissions[0]).toMatchObject({ status: 'credited', credit_tx_id: `commission:${id}` });
  });
});
