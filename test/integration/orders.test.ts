/**
 * The order lifecycle against a real Temporal server and a real MongoDB-wire database (issue 2 §3 to §6).
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { connectDatabase } from '../../src/db';
import { orderWorkflowId } from '../../workflows/shared';
import { saveHistory } from '../helpers/histories';
import { InsufficientFundsError, WalletRepository } from '../../src/repos/wallets';
import { startStack, waitForOrder, fundedAgent, OPERATOR_KEY, type Stack } from '../helpers/stack';

let stack: Stack;
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

/**
 * With RECORD_HISTORIES=1, writes the finished workflow history of order `id` to test/fixtures/histories/`name` for
 * the replay test (never over a stored one: test/helpers/histories.ts).
 */
async function recordHistory(name: string, id: string): Promise<void> {
  if (process.env.RECORD_HISTORIES !== '1') return;
  const handle = stack.client.workflow.getHandle(orderWorkflowId(id));
  await handle.result();
  saveHistory(path.resolve(__dirname, '..', 'fixtures', 'histories', name), await handle.fetchHistory());
}

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

describe('catalogue and quotes', () => {
  test('GET /api/v1/services lists the 14 services in the seed envelope', async () => {
    const res = await stack.call('GET', '/api/v1/services');
    expect(res.status).toBe(200);
    expect(res.body.protocol).toMatch(/2\.3$/);
    expect(res.body.services).toHaveLength(14);
    const taskWorker = res.body.services.find((s: { id: string }) => s.id === 'task-worker');
    expect(taskWorker.linkpay_url).toBeNull();
    const receptionist = res.body.services.find((s: { id: string }) => s.id === 'ai-receptionist');
    expect(receptionist.linkpay_url).toBe(`${stack.url}/pay/services/ai-receptionist`);
  });

  test('POST /api/v1/quote returns a binding quote with a partner commission', async () => {
    const res = await stack.call('POST', '/api/v1/quote', { service_id: 'ai-receptionist', partner_id: 'partner-7' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      service_id: 'ai-receptionist',
      amount: 39,
      amount_micros: 39_000_000,
      currency: 'USD',
      billing: 'monthly',
      partner_id: 'partner-7',
      commission: 7.8,
      commission_micros: 7_800_000,
    });
    expect(res.body.quote_id).toMatch(/^quo_/);
    expect(Date.parse(res.body.expires_at)).toBeGreaterThan(Date.parse(res.body.created_at));
    const human = await stack.call('POST', '/api/v1/quote', { service_id: 'ai-receptionist', is_agent: false });
    expect(human.body.amount).toBe(49);
    expect(human.body.commission).toBeNull();
  });

  test('quote errors are problem details: unknown service 404, bad body 400', async () => {
    const unknown = await stack.call('POST', '/api/v1/quote', { service_id: 'no-such-thing' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(unknown.body).toMatchObject({ status: 404, code: 'service_not_found' });
    const bad = await stack.call('POST', '/api/v1/quote', { service_id: 'ai-receptionist', is_agent: 'yes' });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ code: 'invalid_request', param: 'is_agent' });
    const malformed = await stack.call('POST', '/api/v1/quote', '{"service_id": ');
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('invalid_json');
  });
});

describe('orders', () => {
  test('wallet-paid order runs awaiting_payment → paid → fulfilling → delivered → accepted with verifiable deliverables', async () => {
    const agentKey = await fundedAgent(stack, 'agent-happy', 100);
    const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
    const created = await stack.call('POST', '/api/v1/orders', {
      quote_id: quote.body.quote_id,
      agent_id: 'agent-happy',
      inputs: automationInputs,
    });
    expect(created.status).toBe(201);
    expect(created.body.order_id).toMatch(/^ord_[A-Za-z0-9_-]{22}$/);
    expect(created.body).toMatchObject({ status: 'awaiting_payment', amount: 69, service_id: 'automation-wf' });
    expect(created.body.payment_options.rails).toEqual(expect.arrayContaining(['linkpay_ncp', 'agent_wallet']));
    const id = created.body.order_id as string;

    const noKey = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {});
    expect(noKey.status).toBe(401);
    const wrongKey = await stack.call(
      'POST',
      `/api/v1/orders/${id}/confirm_payment`,
      {},
      { authorization: 'Bearer ak_wrong' },
    );
    expect(wrongKey.status).toBe(403);

    const paid = await stack.call(
      'POST',
      `/api/v1/orders/${id}/confirm_payment`,
      {},
      { authorization: `Bearer ${agentKey}` },
    );
    expect(paid.status).toBe(200);
    expect(paid.body.payment).toMatchObject({ rail: 'agent_wallet', amount: 69 });
    expect(['paid', 'fulfilling', 'delivered']).toContain(paid.body.status);

    // Confirming again with the same payment is idempotent and charges nothing more.
    const again = await stack.call(
      'POST',
      `/api/v1/orders/${id}/confirm_payment`,
      {},
      { authorization: `Bearer ${agentKey}` },
    );
    expect(again.status).toBe(200);

    const delivered = await waitForOrder(stack, id, (o) => o.status === 'delivered');
    expect(delivered.progress.map((p: { status: string }) => p.status)).toEqual([
      'awaiting_payment',
      'paid',
      'fulfilling',
      'delivered',
    ]);
    expect(delivered.deliverables.length).toBeGreaterThan(0);
    for (const d of delivered.deliverables) {
      const res = await fetch(d.url);
      expect(res.status).toBe(200);
      const bytes = Buffer.from(await res.arrayBuffer());
      expect(sha256(bytes)).toBe(d.sha256);
      expect(bytes.length).toBe(d.size);
      expect(res.headers.get('content-type')).toContain(d.media_type.split(';')[0]);
    }
    const workflowJson = delivered.deliverables.find(
      (d: { media_type: string }) => d.media_type === 'application/json',
    );
    expect(workflowJson).toBeDefined();

    const verification = await stack.call('GET', `/api/v1/orders/${id}/verification`);
    expect(verification.status).toBe(200);
    expect(verification.body.status).toBe('verified');
    expect(verification.body.manifest).toHaveLength(delivered.deliverables.length);

    const accepted = await stack.call(
      'POST',
      `/api/v1/orders/${id}/review`,
      { action: 'accept' },
      { authorization: `Bearer ${agentKey}` },
    );
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('accepted');
    expect(accepted.body.review).toMatchObject({ action: 'accept', automatic: false });

    const wallet = await stack.call('GET', '/api/v1/wallets/agent-happy', undefined, {
      authorization: `Bearer ${agentKey}`,
    });
    expect(wallet.body.balance_micros).toBe(31_000_000);
    expect(wallet.body.transactions.filter((t: { type: string }) => t.type === 'debit')).toHaveLength(1);

    const events = await stack.call('GET', `/api/v1/orders/${id}/events`);
    expect(events.body.events.map((e: { type: string }) => e.type)).toEqual([
      'order.created',
      'order.paid',
      'order.fulfillment_started',
      'order.delivered',
      'order.accepted',
    ]);
    await recordHistory('order-wallet-accepted.json', id);
  });

  test('a transition asked in the wrong state is 409 naming the current state', async () => {
    const key = (await stack.call('GET', '/api/v1/wallets/agent-409')).body.agent_key as string;
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      agent_id: 'agent-409',
      inputs: automationInputs,
    });
    const id = created.body.order_id as string;
    const review = await stack.call(
      'POST',
      `/api/v1/orders/${id}/review`,
      { action: 'accept' },
      { authorization: `Bearer ${key}` },
    );
    expect(review.status).toBe(409);
    expect(review.body).toMatchObject({ code: 'invalid_state_transition', current_status: 'awaiting_payment' });
    const verify = await stack.call('GET', `/api/v1/orders/${id}/verification`);
    expect(verify.status).toBe(409);
  });

  test('insufficient wallet balance is 402 and the order keeps awaiting payment', async () => {
    const key = await fundedAgent(stack, 'agent-poor', 10);
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      agent_id: 'agent-poor',
      inputs: automationInputs,
    });
    const id = created.body.order_id as string;
    const res = await stack.call(
      'POST',
      `/api/v1/orders/${id}/confirm_payment`,
      {},
      { authorization: `Bearer ${key}` },
    );
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({
      code: 'insufficient_funds',
      balance_micros: 10_000_000,
      amount_micros: 69_000_000,
    });
    const order = await stack.call('GET', `/api/v1/orders/${id}`);
    expect(order.body.status).toBe('awaiting_payment');
    const wallet = await stack.call('GET', '/api/v1/wallets/agent-poor', undefined, { authorization: `Bearer ${key}` });
    expect(wallet.body.balance_micros).toBe(10_000_000);
  });

  test('missing required inputs are 422 naming them; bad bodies 400; unknown order 404', async () => {
    const res = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      inputs: { workflow_type: 'x' },
    });
    expect(res.status).toBe(422);
    expect(res.body).toMatchObject({ code: 'missing_inputs', missing: ['source_app', 'target_app'] });
    const none = await stack.call('POST', '/api/v1/orders', { agent_id: 'a' });
    expect(none.status).toBe(400);
    expect(none.body.param).toBe('service_id');
    const extra = await stack.call('POST', '/api/v1/orders', { service_id: 'automation-wf', price: 0 });
    expect(extra.status).toBe(400);
    const unknown = await stack.call('GET', '/api/v1/orders/ord_AAAAAAAAAAAAAAAAAAAAAA');
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('order_not_found');
  });

  test('a quote binds its amount; an expired quote is 409', async () => {
    const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf', is_agent: false });
    const created = await stack.call('POST', '/api/v1/orders', {
      quote_id: quote.body.quote_id,
      inputs: automationInputs,
    });
    expect(created.status).toBe(201);
    expect(created.body.amount).toBe(89);
    expect(created.body.quote_id).toBe(quote.body.quote_id);
    await stack.services.db.quotes.updateOne(
      { _id: quote.body.quote_id },
      { $set: { expires_at: new Date(Date.now() - 1000) } },
    );
    const late = await stack.call('POST', '/api/v1/orders', {
      quote_id: quote.body.quote_id,
      inputs: automationInputs,
    });
    expect(late.status).toBe(409);
    expect(late.body.code).toBe('quote_expired');
    const mismatch = await stack.call('POST', '/api/v1/quote', { service_id: 'task-worker' });
    const bad = await stack.call('POST', '/api/v1/orders', {
      quote_id: mismatch.body.quote_id,
      service_id: 'automation-wf',
      inputs: automationInputs,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.code).toBe('quote_service_mismatch');
  });

  test('Idempotency-Key: a retry returns the same order; another body with the key is 422', async () => {
    const body = { service_id: 'automation-wf', agent_id: 'agent-idem', inputs: automationInputs };
    const first = await stack.call('POST', '/api/v1/orders', body, {
      'idempotency-key': 'key-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
    });
    const second = await stack.call('POST', '/api/v1/orders', body, {
      'idempotency-key': 'key-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
    });
    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.body.order_id).toBe(first.body.order_id);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    const conflict = await stack.call(
      'POST',
      '/api/v1/orders',
      { ...body, agent_id: 'other' },
      { 'idempotency-key': 'key-1-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70' },
    );
    expect(conflict.status).toBe(422);
    expect(conflict.body.code).toBe('idempotency_conflict');
    expect(await stack.services.db.orders.countDocuments({ agent_id: 'agent-idem' })).toBe(1);
  });

  // Issue 36: callers without a credential share one scope, so their keys must be unguessable; with a credential
  // (the buyer's own scope) a short key is fine.
  test('Idempotency-Key: without a credential a guessable key is 400; with one it is taken', async () => {
    const body = { service_id: 'automation-wf', inputs: automationInputs };
    const guessable = await stack.call('POST', '/api/v1/orders', body, { 'idempotency-key': 'demo-1' });
    expect(guessable.status).toBe(400);
    expect(guessable.body.code).toBe('invalid_request');
    expect(guessable.body.detail).toMatch(/at least 32 characters/);
    const key = await fundedAgent(stack, 'agent-idem-short', 0);
    const mine = await stack.call(
      'POST',
      '/api/v1/orders',
      { ...body, agent_id: 'agent-idem-short' },
      { 'idempotency-key': 'demo-1', authorization: `Bearer ${key}` },
    );
    expect(mine.status).toBe(201);
  });

  test('Idempotency-Key: a claim in flight answers 409 while its lease runs, and is taken over once it has lapsed', async () => {
    const body = { service_id: 'automation-wf', agent_id: 'agent-idem-lease', inputs: automationInputs };
    const first = await stack.call('POST', '/api/v1/orders', body, {
      'idempotency-key': 'key-lease-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
    });
    expect(first.status).toBe(201);
    const keys = stack.services.db.idempotencyKeys;
    const claim = await keys.findOne({ 'response.body.order_id': first.body.order_id });
    expect(claim?.state).toBe('done');
    // As if the first request's process had died mid-request: its claim is left in flight.
    await keys.updateOne(
      { _id: claim!._id },
      { $set: { state: 'in_flight', response: null, lease_until: new Date(Date.now() + 60_000) } },
    );
    const during = await stack.call('POST', '/api/v1/orders', body, {
      'idempotency-key': 'key-lease-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
    });
    expect(during.status).toBe(409);
    expect(during.body.code).toBe('idempotency_in_flight');
    expect(during.headers.get('retry-after')).toBe('1');
    await keys.updateOne({ _id: claim!._id }, { $set: { lease_until: new Date(Date.now() - 1) } });
    const after = await stack.call('POST', '/api/v1/orders', body, {
      'idempotency-key': 'key-lease-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
    });
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    const replay = await stack.call('POST', '/api/v1/orders', body, {
      'idempotency-key': 'key-lease-7f3c2a9e-4b1d-4e8a-9c6f-2d5b8a1e3f70',
    });
    expect(replay.body.order_id).toBe(after.body.order_id);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
  });

  test('reject refunds the wallet and ends the order rejected', async () => {
    const key = await fundedAgent(stack, 'agent-reject', 69);
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      agent_id: 'agent-reject',
      inputs: automationInputs,
    });
    const id = created.body.order_id as string;
    expect(
      (await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, { authorization: `Bearer ${key}` })).status,
    ).toBe(200);
    await waitForOrder(stack, id, (o) => o.status === 'delivered');
    const rejected = await stack.call(
      'POST',
      `/api/v1/orders/${id}/review`,
      { action: 'reject', reason: 'wrong target app' },
      { authorization: `Bearer ${key}` },
    );
    expect(rejected.status).toBe(200);
    expect(rejected.body.status).toBe('rejected');
    expect(rejected.body.refund).toMatchObject({ status: 'completed', rail: 'agent_wallet', amount: 69 });
    const wallet = await stack.call('GET', '/api/v1/wallets/agent-reject', undefined, {
      authorization: `Bearer ${key}`,
    });
    expect(wallet.body.balance_micros).toBe(69_000_000);
    const twice = await stack.call(
      'POST',
      `/api/v1/orders/${id}/review`,
      { action: 'accept' },
      { authorization: `Bearer ${key}` },
    );
    expect(twice.status).toBe(409);
    await recordHistory('order-wallet-rejected.json', id);
  });

  test('hosted payment link: checkout page, Pay, and a transaction refused for another order', async () => {
    const a = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      email: 'buyer@example.com',
      inputs: automationInputs,
    });
    const b = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      email: 'buyer@example.com',
      inputs: automationInputs,
    });
    const page = await fetch(a.body.payment_options.linkpay_ncp.checkout_url);
    const html = await page.text();
    expect(html).toContain('$69.00');
    expect(html).toContain('<button');
    const pay = await fetch(a.body.payment_options.linkpay_ncp.checkout_url, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'email=buyer%40example.com',
    });
    expect(pay.status).toBe(200);
    const paidOrder = await waitForOrder(stack, a.body.order_id, (o) => o.payment !== null);
    expect(paidOrder.payment.rail).toBe('linkpay_ncp');
    const tx = paidOrder.payment.transaction_id as string;
    expect(tx).toMatch(/^lp_/);
    const reuse = await stack.call('POST', `/api/v1/orders/${b.body.order_id}/confirm_payment`, { transaction_id: tx });
    expect(reuse.status).toBe(409);
    expect(reuse.body.code).toBe('transaction_already_used');
    const same = await stack.call('POST', `/api/v1/orders/${a.body.order_id}/confirm_payment`, { transaction_id: tx });
    expect(same.status).toBe(200);
    const unknownTx = await stack.call('POST', `/api/v1/orders/${b.body.order_id}/confirm_payment`, {
      transaction_id: 'lp_doesnotexist',
    });
    expect(unknownTx.status).toBe(402);
    expect(unknownTx.body.code).toBe('transaction_not_found');
  });

  test('a service not sold on a rail refuses it', async () => {
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'robot-control-system',
      inputs: { robot_type: 'arm', controller: 'ros2', objective: 'pick and place' },
    });
    expect(created.status).toBe(201);
    const res = await stack.call('POST', `/api/v1/orders/${created.body.order_id}/confirm_payment`, {
      rail: 'x402_usdc',
      transaction_id: '0x' + 'ab'.repeat(32),
    });
    expect(res.status).toBe(422);
    expect(res.body.code).toBe('rail_not_offered');
  });

  test('a bundle is fulfilled as one child workflow per included service plus a manifest', async () => {
    const key = await fundedAgent(stack, 'agent-bundle', 200);
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'starter-pack',
      agent_id: 'agent-bundle',
      inputs: { business_name: 'Cedar Dental', industry: 'dental clinic', contact_email: 'ops@cedar.example' },
    });
    expect(created.status).toBe(201);
    const id = created.body.order_id as string;
    expect(
      (await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, { authorization: `Bearer ${key}` })).status,
    ).toBe(200);
    const delivered = await waitForOrder(stack, id, (o) => o.status === 'delivered');
    const services = new Set(delivered.deliverables.map((d: { service_id: string }) => d.service_id));
    expect(services).toEqual(new Set(['starter-pack', 'smart-consultation', 'website-booking', 'ai-receptionist']));
    const children = [];
    for await (const wf of stack.client.workflow.list({
      query: `WorkflowType = 'fulfillmentWorkflow' AND WorkflowId STARTS_WITH 'order-${id}-part-'`,
    })) {
      children.push(wf.workflowId);
    }
    expect(children.sort()).toEqual([
      `order-${id}-part-1-smart-consultation`,
      `order-${id}-part-2-website-booking`,
      `order-${id}-part-3-ai-receptionist`,
    ]);
  });

  test('operators find orders by search attributes', async () => {
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      agent_id: 'agent-sa',
      inputs: automationInputs,
    });
    const id = created.body.order_id as string;
    const handle = stack.client.workflow.getHandle(`order-${id}`);
    const desc = await handle.describe();
    expect(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['OrderStatus', 'awaiting_payment'],
        ['ServiceId', 'automation-wf'],
        ['AgentId', 'agent-sa'],
      ]),
    );
    expect(await desc.staticSummary()).toContain(id);
  });
});

describe('wallets', () => {
  test('the key is shown once; reading needs it; operators credit', async () => {
    const first = await stack.call('GET', '/api/v1/wallets/agent-keys');
    expect(first.status).toBe(200);
    expect(first.body.agent_key).toMatch(/^ak_/);
    expect(first.body.balance).toBe(0);
    const second = await stack.call('GET', '/api/v1/wallets/agent-keys');
    expect(second.status).toBe(401);
    const withKey = await stack.call('GET', '/api/v1/wallets/agent-keys', undefined, {
      authorization: `Bearer ${first.body.agent_key}`,
    });
    expect(withKey.status).toBe(200);
    expect(withKey.body.agent_key).toBeUndefined();
    const noOperator = await stack.call('POST', '/api/v1/wallets/agent-keys/credits', {
      amount: 5,
      transaction_id: 't1',
    });
    expect(noOperator.status).toBe(401);
    const credit = await stack.call(
      'POST',
      '/api/v1/wallets/agent-keys/credits',
      { amount: 5.25, transaction_id: 't1' },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    expect(credit.status).toBe(201);
    const replay = await stack.call(
      'POST',
      '/api/v1/wallets/agent-keys/credits',
      { amount: 5.25, transaction_id: 't1' },
      { 'x-operator-key': OPERATOR_KEY },
    );
    expect(replay.body.balance_micros).toBe(5_250_000);
  });

  test('100 parallel debits never overdraw and a retried debit applies once', async () => {
    const wallets = stack.services.wallets;
    await wallets.credit('agent-parallel', 50_000_000, 'seed', 'seed', 'test');
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, (_, i) => wallets.debit('agent-parallel', 1_000_000, `d-${i}`, 'parallel', 'test')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50);
    expect(await wallets.balance('agent-parallel')).toBe(0);
    await wallets.credit('agent-parallel', 3_000_000, 'seed-2', 'seed', 'test');
    await Promise.all([1, 2, 3].map(() => wallets.debit('agent-parallel', 1_000_000, 'same-id', 'retry', 'test')));
    expect(await wallets.balance('agent-parallel')).toBe(2_000_000);
    const snap = await wallets.snapshot('agent-parallel');
    expect(snap?.entries.filter((e) => e.tx_id === 'same-id')).toHaveLength(1);
    expect(snap?.entries.every((e) => e.balance_after_micros >= 0)).toBe(true);
  });

  test("parallel debits from two connections (two processes' worth) never overdraw", async () => {
    const other = await connectDatabase(stack.config.MONGODB_URI, stack.config.MONGODB_DB);
    try {
      const a = stack.services.wallets;
      const b = new WalletRepository(other);
      await a.credit('agent-two-procs', 30_000_000, 'seed', 'seed', 'test');
      const results = await Promise.allSettled(
        Array.from({ length: 100 }, (_, i) =>
          (i % 2 ? a : b).debit('agent-two-procs', 1_000_000, `d-${i}`, 'parallel', 'test'),
        ),
      );
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(30);
      expect(
        results
          .filter((r) => r.status === 'rejected')
          .every((r) => (r as PromiseRejectedResult).reason instanceof InsufficientFundsError),
      ).toBe(true);
      const snap = await a.snapshot('agent-two-procs');
      expect(snap?.balance_micros).toBe(0);
      // The ledger agrees with the wallet: 31 entries numbered 1..31, each balance the previous one minus its debit.
      expect(snap?.entries.map((e) => e.seq)).toEqual(Array.from({ length: 31 }, (_, i) => i + 1));
      for (let i = 1; i < (snap?.entries.length ?? 0); i++) {
        expect(snap!.entries[i]!.balance_after_micros).toBe(
          snap!.entries[i - 1]!.balance_after_micros - snap!.entries[i]!.amount_micros,
        );
      }
    } finally {
      await other.close();
    }
  });

  test('a movement whose ledger entry was lost (process died after the wallet update) is applied once and its entry rewritten', async () => {
    const wallets = stack.services.wallets;
    await wallets.credit('agent-crashy', 5_000_000, 'seed', 'seed', 'test');
    const entry = await wallets.debit('agent-crashy', 2_000_000, 'order:crashy', 'Order crashy', 'test');
    // Simulate the crash window: the wallet was updated, the ledger entry never written.
    await stack.services.db.walletEntries.deleteOne({ _id: entry._id });
    const retried = await wallets.debit('agent-crashy', 2_000_000, 'order:crashy', 'Order crashy', 'test');
    expect(retried).toMatchObject({ tx_id: 'order:crashy', seq: entry.seq, balance_after_micros: 3_000_000 });
    expect(await wallets.balance('agent-crashy')).toBe(3_000_000);
    // A read of the wallet also repairs a missing entry.
    await stack.services.db.walletEntries.deleteOne({ _id: entry._id });
    const snap = await wallets.snapshot('agent-crashy');
    expect(snap?.entries.map((e) => [e.tx_id, e.balance_after_micros])).toEqual([
      ['seed', 5_000_000],
      ['order:crashy', 3_000_000],
    ]);
  });
});

describe('long polling and cached reads', () => {
  test('GET /orders/{id} with Prefer: wait and the held ETag answers when the order changes, 304 when it does not', async () => {
    const agentKey = await fundedAgent(stack, 'agent-longpoll', 100);
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      agent_id: 'agent-longpoll',
      inputs: automationInputs,
    });
    const id = created.body.order_id as string;
    const first = await stack.call('GET', `/api/v1/orders/${id}`);
    const etag = first.headers.get('etag') as string;
    expect(etag).toMatch(/^W\/"[0-9a-f]{32}"$/);
    // Unchanged within the wait: 304 after about a second, no body.
    const t0 = Date.now();
    const unchanged = await stack.call('GET', `/api/v1/orders/${id}`, undefined, {
      prefer: 'wait=1',
      'if-none-match': etag,
    });
    expect(unchanged.status).toBe(304);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(900);
    expect(unchanged.headers.get('preference-applied')).toBe('wait=1');
    // Changed during the wait: answered with the new state long before the 20 s are up.
    const waiting = stack.call('GET', `/api/v1/orders/${id}`, undefined, { prefer: 'wait=20', 'if-none-match': etag });
    const t1 = Date.now();
    await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, { authorization: `Bearer ${agentKey}` });
    const changed = await waiting;
    expect(changed.status).toBe(200);
    expect(changed.body.status).not.toBe('awaiting_payment');
    expect(changed.headers.get('etag')).not.toBe(etag);
    expect(Date.now() - t1).toBeLessThan(10_000);
    // Without Prefer: wait, a matching ETag is a plain conditional GET.
    const now = await stack.call('GET', `/api/v1/orders/${id}`);
    const conditional = await stack.call('GET', `/api/v1/orders/${id}`, undefined, {
      'if-none-match': now.headers.get('etag') as string,
    });
    expect([200, 304]).toContain(conditional.status);
    if (conditional.status === 200) expect(conditional.body.status).not.toBe(now.body.status);
  });

  test('the catalogue, discovery and micro catalogue carry an ETag and answer 304 to it', async () => {
    for (const url of ['/api/v1/services', '/api/v1/discover?capability=booking', '/api/v1/x402/micro']) {
      const res = await stack.call('GET', url);
      expect(res.status).toBe(200);
      const etag = res.headers.get('etag') as string;
      expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
      const again = await stack.call('GET', url);
      expect(again.headers.get('etag')).toBe(etag);
      expect(again.text).toBe(res.text);
      const notModified = await stack.call('GET', url, undefined, { 'if-none-match': etag });
      expect([url, notModified.status]).toEqual([url, 304]);
      expect(notModified.text).toBe('');
    }
    const other = await stack.call('GET', '/api/v1/discover?capability=crm');
    expect(other.headers.get('etag')).not.toBe(
      (await stack.call('GET', '/api/v1/discover?capability=booking')).headers.get('etag'),
    );
  });
});

describe('health and OpenAPI', () => {
  test('GET /health reports each dependency', async () => {
    const res = await stack.call('GET', '/health');
    expect(res.status).toBe(200);
    expect(res.body.dependencies).toEqual({
      database: { status: 'up' },
      temporal: { status: 'up', namespace: expect.any(String) },
    });
  });

  test('GET /api/v1/openapi.json is an OpenAPI 3.1 document generated from the schemas', async () => {
    const res = await stack.call('GET', '/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.paths['/api/v1/orders'].post.requestBody.content['application/json'].schema).toBeDefined();
    expect(Object.keys(res.body.components.schemas)).toEqual(expect.arrayContaining(['Order', 'Quote', 'Problem']));
  });

  test('unknown routes are 404 problems', async () => {
    const res = await stack.call('GET', '/api/v1/nope');
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('not_found');
  });
});
