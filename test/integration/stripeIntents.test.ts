/**
 * Issue 37 §3, a card PaymentIntent that Stripe leaves `processing` when ACP's complete charges it (the
 * `card_tokenized` handler): its outcome arrives later as a webhook event. `payment_intent.succeeded` must deliver the
 * order once, however often and however concurrently Stripe sends it; `payment_intent.payment_failed` must leave no
 * order paid and nothing taken; events for intents this service did not create are ignored, never refunded.
 *
 * stripe-mock (stateless) answers every PaymentIntent as `processing` here; the events are built by the test and
 * signed as Stripe signs them (`stripe.webhooks.generateTestHeaderString`).
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import { ACP_VERSION, issuePlatform } from '../helpers/acpSpec';
import { OPERATOR_KEY, startStack, waitForOrder, type Stack } from '../helpers/stack';
import { startStripeMock, type StripeMock } from '../helpers/stripeMock';

const WEBHOOK_SECRET = `whsec_${randomBytes(16).toString('hex')}`;
const webhooks = new Stripe('sk_test_unused').webhooks;
const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };

let stack: Stack;
let mock: StripeMock;
let platformKey: string;
beforeAll(async () => {
  mock = await startStripeMock('processing');
  stack = await startStack({
    LINK_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_123',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: mock.url,
  });
  platformKey = await issuePlatform(stack, 'card-processing-platform');
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await mock?.stop();
});

let n = 0;
const acp = (method: 'GET' | 'POST', path: string, body?: unknown) =>
  stack.call(method, path, body, {
    authorization: `Bearer ${platformKey}`,
    'api-version': ACP_VERSION,
    ...(method === 'POST' ? { 'idempotency-key': `intents-${process.pid}-${++n}` } : {}),
  });

/** A session completed with a card Stripe leaves processing: its order id, total and the recorded PaymentIntent. */
async function processingCheckout(): Promise<{ sessionId: string; orderId: string; cents: number; pi: string }> {
  const created = await acp('POST', '/checkout_sessions', {
    line_items: [{ id: 'automation-wf' }],
    currency: 'usd',
    capabilities: {},
    metadata: { inputs: automationInputs },
  });
  expect(created.status).toBe(201);
  const sessionId = created.body.id as string;
  const cents = (created.body.totals as { type: string; amount: number }[]).find((t) => t.type === 'total')!.amount;
  const done = await acp('POST', `/checkout_sessions/${sessionId}/complete`, {
    payment_data: {
      handler_id: 'card_tokenized',
      instrument: { type: 'card', credential: { type: 'spt', token: 'spt_test_123' } },
    },
  });
  expect({ status: done.status, code: done.body.code }).toEqual({ status: 409, code: 'payment_in_progress' });
  const session = await stack.services.db.checkoutSessions.findOne({ _id: sessionId });
  const orderId = session!.order_id;
  const [intent] = await stack.services.db.stripeObjects
    .find({ order_id: orderId, kind: 'payment_intent' })
    .sort({ created_at: 1 })
    .toArray();
  expect(intent).toMatchObject({ status: 'processing', amount_cents: cents, checkout_session_id: sessionId });
  return { sessionId, orderId, cents, pi: intent!._id };
}

/** A `payment_intent.*` event of `pi`, as Stripe sends it. */
function intentEvent(
  type: 'payment_intent.succeeded' | 'payment_intent.payment_failed',
  pi: string,
  orderId: string,
  cents: number,
) {
  return {
    id: `evt_${randomBytes(8).toString('hex')}`,
    object: 'event',
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
    data: {
      object: {
        id: pi,
        object: 'payment_intent',
        amount: cents,
        amount_received: type === 'payment_intent.succeeded' ? cents : 0,
        currency: 'usd',
        status: type === 'payment_intent.succeeded' ? 'succeeded' : 'requires_payment_method',
        metadata: { order_id: orderId },
      },
    },
  };
}

/** Posts the event signed with the endpoint's secret. */
async function deliver(event: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const payload = JSON.stringify(event);
  const res = await fetch(`${stack.url}/api/v1/payments/stripe/webhook`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'stripe-signature': webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET }),
    },
    body: payload,
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

const mirror = (orderId: string) => stack.services.db.linkpayTransactions.find({ order_id: orderId }).toArray();
const refunds = () => mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/refunds');

test('payment_intent.succeeded of a processing card charge delivers the order once, however often it comes at once', async () => {
  const { sessionId, orderId, cents, pi } = await processingCheckout();
  expect(await mirror(orderId)).toEqual([]);
  expect((await stack.call('GET', `/api/v1/orders/${orderId}`)).body.status).toBe('awaiting_payment');

  // Stripe delivers the event three times at the same moment, then once more later (its retries).
  const event = intentEvent('payment_intent.succeeded', pi, orderId, cents);
  const answers = await Promise.all([deliver(event), deliver(event), deliver(event)]);
  answers.push(await deliver(event));
  for (const a of answers)
    expect(a).toMatchObject({ status: 200, body: { outcome: 'confirmed', order_id: orderId, transaction_id: pi } });

  const delivered = await waitForOrder(stack, orderId, (o) => o.status === 'delivered', 45_000);
  expect(delivered.payment).toMatchObject({ rail: 'linkpay_ncp', transaction_id: pi, amount: cents / 100 });
  // One payment mirrored, for the session's total; nothing refunded.
  expect(await mirror(orderId)).toEqual([
    expect.objectContaining({ _id: pi, status: 'succeeded', amount_micros: cents * 10_000, provider: 'stripe' }),
  ]);
  expect(refunds()).toHaveLength(0);
  expect(await stack.services.db.stripeObjects.findOne({ _id: pi })).toMatchObject({ status: 'succeeded' });
  // The session reads completed with its order.
  const got = await acp('GET', `/checkout_sessions/${sessionId}`);
  expect(got.body).toMatchObject({ status: 'completed', order: { id: orderId } });
}, 90_000);

test('payment_intent.payment_failed leaves the order unpaid and nothing taken; strangers’ intents are ignored', async () => {
  const { orderId, cents, pi } = await processingCheckout();
  const failed = intentEvent('payment_intent.payment_failed', pi, orderId, cents);
  const answers = await Promise.all([deliver(failed), deliver(failed)]);
  for (const a of answers)
    expect(a).toMatchObject({ status: 200, body: { outcome: 'failed', order_id: orderId, transaction_id: pi } });
  expect(await stack.services.db.stripeObjects.findOne({ _id: pi })).toMatchObject({ status: 'failed' });

  // Intents this service did not create, or not for this order and amount, change nothing and are not refunded.
  const foreign = [
    intentEvent('payment_intent.succeeded', `pi_${randomBytes(8).toString('hex')}`, orderId, cents),
    intentEvent('payment_intent.succeeded', pi, `ord_${randomBytes(8).toString('hex')}`, cents),
    intentEvent('payment_intent.succeeded', pi, orderId, cents + 100),
    intentEvent('payment_intent.payment_failed', `pi_${randomBytes(8).toString('hex')}`, orderId, cents),
  ];
  for (const event of foreign)
    expect(await deliver(event)).toMatchObject({ status: 200, body: { outcome: 'ignored' } });

  expect(await mirror(orderId)).toEqual([]);
  expect(refunds()).toHaveLength(0);
  const order = await stack.call('GET', `/api/v1/orders/${orderId}`);
  expect(order.body).toMatchObject({ status: 'awaiting_payment', payment: null });
}, 60_000);

test('a card charge Stripe took that no payment record shows is found by the reconciliation: the running order adopts it, a second one is refunded', async () => {
  const reconcile = async () => {
    const res = await stack.call(
      'POST',
      '/api/v1/operator/reconciliation',
      { grace_seconds: 1 },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    expect(res.status).toBe(200);
    return res.body as { repaired: { kind: string; order_id?: string; action: string }[] };
  };
  // A process died after recording the intent's success and before its payment record (the event's or the charge's).
  const { orderId, cents, pi } = await processingCheckout();
  const past = new Date(Date.now() - 60_000);
  await stack.services.db.stripeObjects.updateOne({ _id: pi }, { $set: { status: 'succeeded', created_at: past } });
  expect(await mirror(orderId)).toEqual([]);
  const before = refunds().length;

  const first = await reconcile();
  expect(first.repaired).toContainEqual(
    expect.objectContaining({ kind: 'unrecorded_card_charge', order_id: orderId, action: expect.stringMatching(pi) }),
  );
  const delivered = await waitForOrder(stack, orderId, (o) => o.status === 'delivered', 45_000);
  expect(delivered.payment).toMatchObject({ rail: 'linkpay_ncp', transaction_id: pi, amount: cents / 100 });
  expect(refunds()).toHaveLength(before);

  // Another intent recorded as succeeded for the same order (paid already): given back at Stripe, once.
  const second = `pi_${randomBytes(8).toString('hex')}`;
  await stack.services.db.stripeObjects.insertOne({
    _id: second,
    kind: 'payment_intent',
    order_id: orderId,
    checkout_session_id: null,
    amount_cents: cents,
    status: 'succeeded',
    created_at: past,
    updated_at: past,
  });
  const again = await reconcile();
  expect(again.repaired).toContainEqual(
    expect.objectContaining({
      kind: 'unrecorded_card_charge',
      order_id: orderId,
      action: expect.stringMatching(/refunded/),
    }),
  );
  expect(refunds().map((r) => r.params.payment_intent)).toContain(second);
  expect(refunds()).toHaveLength(before + 1);
  const records = await mirror(orderId);
  expect(records.map((r) => `${r._id} ${r.status}`).sort()).toEqual([`${pi} succeeded`, `${second} refunded`].sort());
  // Settled: the next run finds nothing more to do for this order.
  const third = await reconcile();
  expect(third.repaired.filter((r) => r.order_id === orderId)).toEqual([]);
  expect(refunds()).toHaveLength(before + 1);
}, 90_000);
