/**
 * Issue 37 §3: the Stripe adapter against stripe-mock (Stripe's own API mock, which checks every request against
 * Stripe's OpenAPI) with the real API, worker, Temporal server and database, LINK_PROVIDER=stripe.
 *
 * stripe-mock is stateless (it answers fixtures), so these tests assert this service's behaviour: the requests it
 * sends (recorded by a proxy in front of the mock: parameters, idempotency keys, API version), and what it does with
 * Stripe's webhook events, each signed as Stripe signs them (`stripe.webhooks.generateTestHeaderString`).
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { ProblemError } from '../../src/errors';
import { StripeLinkProvider, stripeClient } from '../../src/payments/stripe';
import { orderWorkflowId } from '../../workflows/shared';
import { OPERATOR_KEY, fundedAgent, startStack, waitForOrder, type Stack } from '../helpers/stack';
import { startStripeMock, type StripeMock } from '../helpers/stripeMock';

const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const webhooks = new Stripe('sk_test_unused').webhooks;

let stack: Stack;
let mock: StripeMock;
beforeAll(async () => {
  mock = await startStripeMock('succeeded');
  stack = await startStack({
    LINK_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_123',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: mock.url,
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await mock?.stop();
});

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };

/** A human's automation-wf order (its order secret, no agent) awaiting payment. */
async function humanOrder(): Promise<{ id: string; secret: string; amountMicros: number }> {
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    email: 'buyer@example.com',
    inputs: automationInputs,
  });
  expect(created.status).toBe(201);
  return {
    id: created.body.order_id as string,
    secret: created.body.order_secret as string,
    amountMicros: created.body.amount_micros as number,
  };
}

/** A `checkout.session.completed` event of paid session `sessionId` of `orderId`, as Stripe sends it. */
function paidSessionEvent(
  orderId: string,
  amountCents: number,
  sessionId: string,
  paymentIntent = `pi_${randomBytes(8).toString('hex')}`,
) {
  return {
    id: `evt_${randomBytes(8).toString('hex')}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type: 'checkout.session.completed',
    data: {
      object: {
        id: sessionId,
        object: 'checkout.session',
        mode: 'payment',
        status: 'complete',
        payment_status: 'paid',
        client_reference_id: orderId,
        metadata: { order_id: orderId },
        payment_intent: paymentIntent,
        amount_total: amountCents,
        currency: 'usd',
        customer_details: { email: 'buyer@example.com' },
      },
    },
  };
}

/** Posts `payload` to the webhook route, signed with `secret` at `timestamp` (unless `signature` is given). */
async function deliver(
  payload: string,
  opts: { secret?: string; timestamp?: number; signature?: string | null; body?: string } = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  const signature =
    opts.signature === undefined
      ? webhooks.generateTestHeaderString({
          payload,
          secret: opts.secret ?? WEBHOOK_SECRET,
          ...(opts.timestamp ? { timestamp: opts.timestamp } : {}),
        })
      : opts.signature;
  const res = await fetch(`${stack.url}/api/v1/payments/stripe/webhook`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(signature !== null ? { 'stripe-signature': signature } : {}) },
    body: opts.body ?? payload,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

/** Presses Pay on the order's hosted page; returns the Checkout Session the service opened and recorded for it. */
async function pressPay(orderId: string, secret = ''): Promise<string> {
  const res = await fetch(`${stack.url}/pay/orders/${orderId}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret, email: 'buyer@example.com' }),
  });
  expect(res.status).toBe(303);
  const recorded = await stack.services.db.stripeObjects.findOne({ order_id: orderId, kind: 'checkout_session' });
  if (!recorded) throw new Error(`no Checkout Session recorded for ${orderId}`);
  return recorded._id;
}

const mirror = (orderId: string) =>
  stack.services.db.linkpayTransactions.find({ order_id: orderId }).sort({ created_at: 1 }).toArray();
const requestsTo = (method: string, path: string) =>
  mock.requests.filter((r) => r.method === method && r.path === path);

test('a link order paid through Stripe Checkout end to end; the webhook event twice confirms one payment; a refusal refunds at Stripe', async () => {
  const { id, secret, amountMicros } = await humanOrder();
  const cents = amountMicros / 10_000;

  // The hosted page offers the card payment on Stripe's page, not the local test provider.
  const page = await (await fetch(`${stack.url}/pay/orders/${id}?secret=${secret}`)).text();
  expect(page).toContain('by card');
  expect(page).toContain('Stripe');
  expect(page).not.toContain('id="test-mode"');

  // Pay opens the order's Checkout Session and sends the buyer to Stripe's page.
  const press = () =>
    fetch(`${stack.url}/pay/orders/${id}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret, email: 'buyer@example.com' }),
    });
  const first = await press();
  expect(first.status).toBe(303);
  expect(first.headers.get('location')).toMatch(/^https:\/\/checkout\.stripe\.com\//);
  const sessions = requestsTo('POST', '/v1/checkout/sessions');
  expect(sessions).toHaveLength(1);
  expect(sessions[0]).toMatchObject({
    status: 200,
    params: {
      mode: 'payment',
      client_reference_id: id,
      'metadata[order_id]': id,
      'payment_intent_data[metadata][order_id]': id,
      'line_items[0][quantity]': '1',
      'line_items[0][price_data][currency]': 'usd',
      'line_items[0][price_data][unit_amount]': String(cents),
      success_url: `${stack.config.PUBLIC_BASE_URL}/pay/orders/${id}?secret=${secret}`,
    },
  });
  expect(sessions[0]?.idempotencyKey).toMatch(new RegExp(`^checkout:${id}:[0-9a-f]{16}$`));
  // Pressed again: the same request under the same key, so Stripe answers the same session.
  expect((await press()).status).toBe(303);
  expect(requestsTo('POST', '/v1/checkout/sessions')[1]?.idempotencyKey).toBe(sessions[0]?.idempotencyKey);

  // Stripe's event confirms the order through its workflow; delivered twice, one payment.
  const recorded = await stack.services.db.stripeObjects.find({ order_id: id, kind: 'checkout_session' }).toArray();
  expect(recorded.length).toBeGreaterThan(0);
  const event = paidSessionEvent(id, cents, recorded[0]!._id);
  const payload = JSON.stringify(event);
  const pi = event.data.object.payment_intent;
  for (let i = 0; i < 2; i++) {
    const res = await deliver(payload);
    expect(res).toMatchObject({ status: 200, body: { outcome: 'confirmed', order_id: id, transaction_id: pi } });
  }
  const delivered = await waitForOrder(stack, id, (o) => o.status === 'delivered', 45_000);
  expect(delivered.payment).toMatchObject({ rail: 'linkpay_ncp', transaction_id: pi, amount: amountMicros / 1e6 });
  expect(await mirror(id)).toEqual([
    expect.objectContaining({ _id: pi, provider: 'stripe', status: 'succeeded', amount_micros: amountMicros }),
  ]);
  expect(requestsTo('POST', '/v1/refunds')).toHaveLength(0);

  // The buyer rejects the delivery: the workflow refunds through the same port, at Stripe, once.
  const reject = await fetch(`${stack.url}/pay/orders/${id}/review`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret, action: 'reject', reason: 'not what I asked for' }),
  });
  expect(reject.status).toBe(200);
  const rejected = await waitForOrder(stack, id, (o) => o.refund?.status === 'completed');
  expect(rejected.refund).toMatchObject({ rail: 'linkpay_ncp', transaction_id: pi, amount_micros: amountMicros });
  const refunds = requestsTo('POST', '/v1/refunds');
  expect(refunds).toEqual([
    expect.objectContaining({
      status: 200,
      idempotencyKey: `refund:${pi}`,
      params: { payment_intent: pi, 'metadata[order_id]': id },
    }),
  ]);
  expect((await mirror(id))[0]).toMatchObject({ status: 'refunded' });
}, 60_000);

test('a webhook whose signature does not hold is refused 400 and changes nothing', async () => {
  const { id, secret, amountMicros } = await humanOrder();
  const payload = JSON.stringify(paidSessionEvent(id, amountMicros / 10_000, await pressPay(id, secret)));
  const refusals = [
    await deliver(payload, { body: payload.replace('"amount_total":', '"amount_total":1') }), // tampered body
    await deliver(payload, { secret: 'whsec_someone_else_0123456789' }), // another secret
    await deliver(payload, { timestamp: Math.floor(Date.now() / 1000) - 600 }), // 10 minutes old
    await deliver(payload, { signature: null }), // none
  ];
  for (const r of refusals) expect(r).toMatchObject({ status: 400, body: { code: 'webhook_signature_invalid' } });
  expect(await mirror(id)).toEqual([]);
  expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('awaiting_payment');
});

test('a Stripe payment for an order that has closed, or was paid otherwise, is refunded at Stripe', async () => {
  // Closed: its workflow terminated while awaiting payment.
  const closed = await humanOrder();
  const closedSession = await pressPay(closed.id, closed.secret);
  await stack.client.workflow.getHandle(orderWorkflowId(closed.id)).terminate('issue 37: an operator stopped it');
  const late = paidSessionEvent(closed.id, closed.amountMicros / 10_000, closedSession);
  expect(await deliver(JSON.stringify(late))).toMatchObject({ status: 200, body: { outcome: 'refunded' } });
  expect(await mirror(closed.id)).toEqual([expect.objectContaining({ status: 'refunded' })]);

  // Paid from the agent's wallet first: the card payment that lands afterwards is given back.
  const agentKey = await fundedAgent(stack, 'agent-stripe', 200);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    agent_id: 'agent-stripe',
    inputs: automationInputs,
  });
  const orderId = created.body.order_id as string;
  // The human opened Stripe's page before the agent paid from its wallet.
  const walletSession = await pressPay(orderId);
  const paid = await stack.call(
    'POST',
    `/api/v1/orders/${orderId}/confirm_payment`,
    { rail: 'agent_wallet' },
    { authorization: `Bearer ${agentKey}` },
  );
  expect(paid.status).toBe(200);
  const second = paidSessionEvent(orderId, (created.body.amount_micros as number) / 10_000, walletSession);
  expect(await deliver(JSON.stringify(second))).toMatchObject({ status: 200, body: { outcome: 'refunded' } });
  expect(await mirror(orderId)).toEqual([expect.objectContaining({ status: 'refunded' })]);

  const refunded = requestsTo('POST', '/v1/refunds').map((r) => r.params.payment_intent);
  expect(refunded).toEqual(
    expect.arrayContaining([late.data.object.payment_intent, second.data.object.payment_intent]),
  );
  // Paid once, on the wallet.
  expect((await waitForOrder(stack, orderId, (o) => o.payment !== null)).payment).toMatchObject({
    rail: 'agent_wallet',
  });
}, 45_000);

test("another merchant's paid Checkout Session on a shared Stripe account is ignored, never refunded", async () => {
  const { id, secret, amountMicros } = await humanOrder();
  const cents = amountMicros / 10_000;
  const ours = await pressPay(id, secret);
  const refundsBefore = requestsTo('POST', '/v1/refunds').length;
  const foreign = [
    // A session this service never opened, naming an order id it does not know.
    paidSessionEvent(`ord_${randomBytes(8).toString('hex')}`, cents, `cs_test_${randomBytes(8).toString('hex')}`),
    // A session this service never opened, naming one of its orders (its metadata is the other merchant's to write).
    paidSessionEvent(id, cents, `cs_test_${randomBytes(8).toString('hex')}`),
    // This service's session id with another order, or another amount.
    paidSessionEvent(`ord_${randomBytes(8).toString('hex')}`, cents, ours),
    paidSessionEvent(id, cents + 100, ours),
  ];
  for (const event of foreign)
    expect(await deliver(JSON.stringify(event))).toMatchObject({ status: 200, body: { outcome: 'ignored' } });
  expect(requestsTo('POST', '/v1/refunds')).toHaveLength(refundsBefore);
  expect(await mirror(id)).toEqual([]);
  expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('awaiting_payment');
});

test("ACP's delegated card payment: the token is read, one PaymentIntent is confirmed with it, and the order takes it", async () => {
  const stripe = stack.services.stripe;
  if (!stripe) throw new Error('LINK_PROVIDER=stripe has no adapter');
  const { id, amountMicros } = await humanOrder();
  const cents = amountMicros / 10_000;
  const charge = await stripe.chargeDelegatedCard({
    token: 'spt_test_123',
    orderId: id,
    amountCents: cents,
    idempotencyKey: `acp:cs_${id}`,
    metadata: { checkout_session_id: `cs_${id}` },
  });
  expect(charge).toMatchObject({ transaction_id: expect.stringMatching(/^pi_/), amount_micros: amountMicros });

  const [token] = requestsTo('GET', '/v1/shared_payment/granted_tokens/spt_test_123');
  expect(token).toMatchObject({ status: 200, stripeVersion: stack.config.STRIPE_SPT_API_VERSION });
  const intents = requestsTo('POST', '/v1/payment_intents');
  expect(intents.at(-1)).toMatchObject({
    status: 200,
    idempotencyKey: `acp:cs_${id}`,
    stripeVersion: stack.config.STRIPE_SPT_API_VERSION,
    params: expect.objectContaining({
      amount: String(cents),
      currency: 'usd',
      confirm: 'true',
      'payment_method_data[shared_payment_granted_token]': 'spt_test_123',
      'metadata[order_id]': id,
      'metadata[checkout_session_id]': `cs_${id}`,
    }),
  });

  // The ACP handler then confirms the order with the PaymentIntent: the workflow verifies it from the mirror.
  const confirm = await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {
    rail: 'linkpay_ncp',
    transaction_id: charge.transaction_id,
  });
  expect(confirm.status).toBe(200);
  expect(confirm.body.payment).toMatchObject({ rail: 'linkpay_ncp', transaction_id: charge.transaction_id });
}, 45_000);

test('an ACP checkout session paid with the card_tokenized handler: one PaymentIntent, the order paid, complete again charges nothing', async () => {
  const issued = await stack.call(
    'POST',
    '/api/v1/acp/platforms',
    { name: 'card-platform' },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  expect(issued.status).toBe(201);
  let n = 0;
  const acp = (method: 'GET' | 'POST', path: string, body?: unknown) =>
    stack.call(method, path, body, {
      authorization: `Bearer ${issued.body.api_key as string}`,
      'api-version': '2026-04-17',
      ...(method === 'POST' ? { 'idempotency-key': `card-${process.pid}-${++n}` } : {}),
    });
  const created = await acp('POST', '/checkout_sessions', {
    line_items: [{ id: 'automation-wf' }],
    currency: 'usd',
    capabilities: {},
    metadata: { inputs: automationInputs },
  });
  expect(created.body).toMatchObject({ id: expect.any(String) });
  expect(created.status).toBe(201);
  // Offered as the spec's tokenized-card handler, the PSP named.
  const handlers = created.body.capabilities.payment.handlers as { id: string; name: string; psp: string }[];
  expect(handlers.find((h) => h.id === 'card_tokenized')).toMatchObject({
    name: 'dev.acp.tokenized.card',
    psp: 'stripe',
  });
  const sessionId = created.body.id as string;
  const total = (created.body.totals as { type: string; amount: number }[]).find((t) => t.type === 'total')?.amount;
  const pay = {
    payment_data: {
      handler_id: 'card_tokenized',
      instrument: { type: 'card', credential: { type: 'spt', token: 'spt_test_123' } },
    },
  };
  const before = requestsTo('POST', '/v1/payment_intents').length;
  const done = await acp('POST', `/checkout_sessions/${sessionId}/complete`, pay);
  expect(done.status).toBe(200);
  expect(done.body.status).toBe('completed');
  const orderId = done.body.order.id as string;
  const intents = requestsTo('POST', '/v1/payment_intents').slice(before);
  expect(intents).toHaveLength(1);
  expect(intents[0]).toMatchObject({
    idempotencyKey: `acp:${sessionId}`,
    params: expect.objectContaining({ amount: String(total), 'metadata[order_id]': orderId }),
  });
  const order = await waitForOrder(stack, orderId, (o) => o.payment !== null);
  expect(order.payment).toMatchObject({ rail: 'linkpay_ncp', transaction_id: expect.stringMatching(/^pi_/) });
  // A retry of complete (a new request) answers the completed session and takes nothing more.
  const again = await acp('POST', `/checkout_sessions/${sessionId}/complete`, pay);
  expect(again.status).toBe(200);
  expect(requestsTo('POST', '/v1/payment_intents').slice(before)).toHaveLength(1);
  // A token that is not a shared payment token is refused before anything is committed.
  const other = await acp('POST', '/checkout_sessions', {
    line_items: [{ id: 'automation-wf' }],
    currency: 'usd',
    capabilities: {},
    metadata: { inputs: automationInputs },
  });
  const bad = await acp('POST', `/checkout_sessions/${other.body.id as string}/complete`, {
    payment_data: {
      handler_id: 'card_tokenized',
      instrument: { type: 'card', credential: { type: 'spt', token: 'vt_x' } },
    },
  });
  expect(bad.status).toBe(422);
  expect(bad.body).toMatchObject({ code: 'payment_token_invalid' });
  expect((await acp('GET', `/checkout_sessions/${other.body.id as string}`)).body.status).toBe('ready_for_payment');
}, 60_000);

test('a delegated card payment Stripe does not confirm, or a token that is not one, takes nothing', async () => {
  // The bundled fixture answers a confirmation with `requires_payment_method`, as Stripe answers a declined card.
  const declining = await startStripeMock();
  try {
    const settings = {
      secretKey: 'sk_test_123',
      webhookSecret: WEBHOOK_SECRET,
      apiBase: declining.url,
      sptApiVersion: stack.config.STRIPE_SPT_API_VERSION,
      publicBaseUrl: stack.config.PUBLIC_BASE_URL,
    };
    const adapter = new StripeLinkProvider(stack.services.db, stripeClient(settings), settings);
    const { id } = await humanOrder();
    const attempt = (token: string) =>
      adapter.chargeDelegatedCard({ token, orderId: id, amountCents: 6900, idempotencyKey: `acp:${token}:${id}` });
    await expect(attempt('spt_declined')).rejects.toMatchObject({ code: 'payment_failed', status: 402 });
    await expect(attempt('pm_card_visa')).rejects.toBeInstanceOf(ProblemError);
    await expect(attempt('pm_card_visa')).rejects.toMatchObject({ code: 'payment_token_invalid' });
    expect(declining.requests.filter((r) => r.path === '/v1/payment_intents')).toHaveLength(1);
    expect(await mirror(id)).toEqual([]);
  } finally {
    await declining.stop();
  }
});

test('a deployment that declares itself production does not start with the local (test-mode) provider', async () => {
  await expect(startStack({ DEPLOYMENT_ENV: 'production' })).rejects.toThrow(/LINK_PROVIDER/);
  await expect(startStack({ DEPLOYMENT_ENV: 'production', LINK_PROVIDER: 'stripe' })).rejects.toThrow(
    /STRIPE_SECRET_KEY/,
  );
});
