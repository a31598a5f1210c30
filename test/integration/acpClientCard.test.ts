/**
 * The generated ACP client (test/generated/acp.ts: openapi-typescript over the copied 2026-04-17 OpenAPI, requests
 * through openapi-fetch) buys each of the 14 services (the monthly one its first month) on the `card_tokenized` handler: the platform's Stripe
 * shared payment token, charged by this service as one PaymentIntent per session against stripe-mock (LINK_PROVIDER
 * =stripe; acpClient.test.ts covers the other handlers). Every answer is validated against the copied JSON schemas.
 *
 * The books: one PaymentIntent per session, each for its session's total under the session's idempotency key; the
 * card mirror holds exactly one succeeded payment per order, for that total, which is the order's recorded payment;
 * nothing refunded; no wallet touched.
 */
import { randomUUID } from 'node:crypto';
import createClient, { type Client } from 'openapi-fetch';
import type { components, paths } from '../generated/acp';
import { ACP_VERSION, conforms, issuePlatform } from '../helpers/acpSpec';
import { startStack, waitForOrder, type Stack } from '../helpers/stack';
import { startStripeMock, type StripeMock } from '../helpers/stripeMock';

let stack: Stack;
let mock: StripeMock;
let acp: Client<paths>;
let platformKey: string;

const header = () => ({
  Authorization: `Bearer ${platformKey}`,
  'Content-Type': 'application/json',
  'API-Version': ACP_VERSION,
  'Idempotency-Key': randomUUID(),
});

interface CatalogueService {
  id: string;
  billing: string;
  payment_rails: string[];
  inputs: Record<string, string>;
}
let services: CatalogueService[];

const inputsOf = (s: CatalogueService): Record<string, string> =>
  Object.fromEntries(
    Object.entries(s.inputs)
      .filter(([, requirement]) => requirement === 'required')
      .map(([name]) => [name, name.includes('email') ? 'buyer@example.com' : `${name} for ${s.id}`]),
  );

type Session = Record<string, any>;
type PaymentData = components['schemas']['PaymentData'];

beforeAll(async () => {
  mock = await startStripeMock('succeeded');
  stack = await startStack({
    LINK_PROVIDER: 'stripe',
    STRIPE_SECRET_KEY: 'sk_test_123',
    STRIPE_WEBHOOK_SECRET: 'whsec_acp_client_card_0123456789',
    STRIPE_API_BASE: mock.url,
  });
  platformKey = await issuePlatform(stack, 'generated-client-card');
  acp = createClient<paths>({ baseUrl: stack.url });
  services = (await stack.call('GET', '/api/v1/services')).body.services as CatalogueService[];
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await mock?.stop();
});

test('buys each of the 14 services on the card_tokenized handler; one PaymentIntent each, the books reconcile', async () => {
  expect(services).toHaveLength(14);
  const bought: { service: string; session: string; order: string; total: number }[] = [];

  for (const service of services) {
    const created = await acp.POST('/checkout_sessions', {
      params: { header: header() },
      body: {
        line_items: [{ id: service.id }],
        currency: 'usd',
        capabilities: {},
        metadata: { inputs: inputsOf(service) },
      },
    });
    expect({ id: service.id, status: created.response.status, error: created.error }).toEqual({
      id: service.id,
      status: 201,
      error: undefined,
    });
    conforms('checkout#/$defs/CheckoutSession', created.data);
    const session = created.data as Session;
    const handlers = session.capabilities.payment.handlers as { id: string; psp?: string }[];
    expect(handlers.find((h) => h.id === 'card_tokenized')).toMatchObject({ psp: 'stripe' });
    const total = (session.totals as { type: string; amount: number }[]).find((t) => t.type === 'total')!.amount;

    const payment: PaymentData = {
      handler_id: 'card_tokenized',
      instrument: { type: 'card', credential: { type: 'spt', token: `spt_test_${service.id.replace(/-/g, '_')}` } },
    };
    const done = await acp.POST('/checkout_sessions/{checkout_session_id}/complete', {
      params: { header: header(), path: { checkout_session_id: session.id as string } },
      body: { payment_data: payment },
    });
    if (done.error) throw new Error(`complete ${service.id}: ${done.response.status} ${JSON.stringify(done.error)}`);
    conforms('checkout#/$defs/CheckoutSessionWithOrder', done.data);
    const completed = done.data as Session;
    expect({ id: service.id, status: completed.status }).toEqual({ id: service.id, status: 'completed' });
    bought.push({ service: service.id, session: session.id as string, order: completed.order.id as string, total });
  }

  // One PaymentIntent per session, for its total, under its idempotency key; nothing refunded.
  const intents = mock.requests.filter((r) => r.method === 'POST' && r.path === '/v1/payment_intents');
  expect(intents).toHaveLength(bought.length);
  for (const b of bought) {
    const mine = intents.filter((r) => r.idempotencyKey === `acp:${b.session}`);
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({
      status: 200,
      params: expect.objectContaining({ amount: String(b.total), currency: 'usd', 'metadata[order_id]': b.order }),
    });
  }
  expect(mock.requests.filter((r) => r.path === '/v1/refunds')).toHaveLength(0);

  // The mirror: exactly one succeeded card payment per order, for the session's total, and it is the order's payment.
  const mirror = await stack.services.db.linkpayTransactions.find({ order_id: { $in: bought.map((b) => b.order) } });
  const byOrder = new Map<string, { _id: string; amount_micros: number; status: string }[]>();
  for (const t of await mirror.toArray()) byOrder.set(t.order_id, [...(byOrder.get(t.order_id) ?? []), t]);
  for (const b of bought) {
    const payments = byOrder.get(b.order) ?? [];
    expect({ service: b.service, payments: payments.map((p) => [p.status, p.amount_micros]) }).toEqual({
      service: b.service,
      payments: [['succeeded', b.total * 10_000]],
    });
    const order = await waitForOrder(stack, b.order, (o) => o.payment !== null);
    expect(order.payment).toMatchObject({ rail: 'linkpay_ncp', transaction_id: payments[0]!._id });
  }
  const charged = [...byOrder.values()].flat().reduce((sum, p) => sum + p.amount_micros, 0);
  expect(charged).toBe(bought.reduce((sum, b) => sum + b.total * 10_000, 0));
  // No wallet was touched: the card paid for everything.
  expect(await stack.services.db.walletEntries.countDocuments({})).toBe(0);
}, 180_000);
