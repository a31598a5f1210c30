/**
 * No public surface names another buyer's order (issue 36 §2; decision 0011: an order id is a capability to read the
 * order and download its deliverables, so nothing a stranger can reach may reveal one). Against the real API, worker,
 * Temporal server, database and a private x402 chain: buyers pay orders on every rail (wallet, payment link, x402),
 * then a stranger, who knows what anyone knows (the settlement transaction hashes are public on chain, and a
 * transaction lookup gives the payment id), calls every operation callable without a credential. The operations are
 * taken from API_OPERATIONS (auth `none` or `x402`), so a new public operation fails the coverage check until it has a
 * probe here. No answer, body or header (x402 headers decoded), may hold a victim's order id (nor its random part, which
 * procurement, quote and webhook ids reuse), order secret or agent key.
 */
import { API_OPERATIONS } from '../../src/routes/operations';
import { authKinds, type OperationDefinition } from '../../src/routes/operation';
import { fundedAgent, OPERATOR_KEY, startStack, waitForOrder, type Stack } from '../helpers/stack';
import { payingFetch, startX402Chain, type X402Chain } from '../helpers/x402';

let chain: X402Chain;
let stack: Stack;

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const consultationInputs = { type: 'visa', description: 'Move to Spain' };
const MCP_HEADERS = {
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
};
const MCP_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** What the victims hold: each must stay out of every public answer, with a label for the failure message. */
let secrets: { label: string; value: string }[] = [];

/** The victims' x402 order payment, as its buyer saw it. */
let x402Order: { orderId: string; transaction: string; paymentId: string; amountMicros: number };

/** What the stranger has of its own, to call the operations that act on an order, a quote or a procurement. */
interface World {
  /** An order of the stranger's awaiting payment, on a service sold on x402_usdc, and its secret. */
  order: string;
  orderSecret: string;
  /** Another, for confirm_payment with a victim's transaction hash. */
  confirmOrder: string;
  /** Another, for the hosted payment page's pay form. */
  payOrder: string;
  quote: string;
  procurement: string;
  /** A victim's hosted booking page (its id is public: it is in the page's URL). */
  bookingPage: string;
  /** A victim's hosted receptionist (its id is public: it is in the chat URL and the snippet). */
  receptionist: string;
  /** The victims' public traces: settlement transaction hashes and the payment ids their lookups give. */
  transactions: string[];
  paymentIds: string[];
}

let world: World;

/** A date a few days ahead, for the booking probes. */
const bookingDate = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);

/** One request of a probe: path parameters, query, JSON body or form, extra headers. */
interface Probe {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  form?: URLSearchParams;
  headers?: Record<string, string>;
}

const mcp = (method: string, params: Record<string, unknown> = {}): Probe => ({
  body: { jsonrpc: '2.0', id: 1, method, params: { _meta: MCP_META, ...params } },
  headers: {
    ...MCP_HEADERS,
    'mcp-method': method,
    ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
  },
});

/**
 * Every operation callable without a credential, by operationId: what a stranger sends. Order-scoped operations are
 * called on the stranger's own order (a stranger has no victim's id: that is the point), the ledger with the
 * victims' public transaction hashes and payment ids.
 */
const PROBES: Record<string, (w: World) => Probe[]> = {
  listServices: () => [{}],
  getHealth: () => [{}],
  getOpenApiDocument: () => [{}],
  createOrder: () => [{ body: { service_id: 'automation-wf', email: 'x@example.com', inputs: automationInputs } }],
  getOrder: (w) => [{ params: { order_id: w.order } }, { params: { order_id: 'ord_AAAAAAAAAAAAAAAAAAAAAA' } }],
  // A victim's settlement hash offered as the payment of the stranger's order: refused without naming what it paid.
  confirmPayment: (w) =>
    w.transactions.map((tx) => ({
      params: { order_id: w.confirmOrder },
      body: { rail: 'x402_usdc', transaction_id: tx },
    })),
  verifyOrder: (w) => [{ params: { order_id: w.order } }],
  listOrderEvents: (w) => [{ params: { order_id: w.order } }],
  getDeliverable: (w) => [{ params: { order_id: w.order, name: 'report.md' } }],
  createQuote: () => [{ body: { service_id: 'automation-wf' } }],
  getQuote: (w) => [{ params: { quote_id: w.quote } }],
  getWallet: () => [{ params: { agent_id: 'pub-victim' } }, { params: { agent_id: 'pub-stranger-wallet' } }],
  getSubscription: (w) => [{ params: { order_id: w.order } }],
  listTasks: (w) => [{ params: { order_id: w.order } }],
  getTask: (w) => [{ params: { order_id: w.order, n: '1' } }],
  getTaskDeliverable: (w) => [{ params: { order_id: w.order, n: '1', name: 'result.md' } }],
  listWebhookEvents: () => [{}],
  bookingPage: (w) => [{ params: { page_id: w.bookingPage } }, { params: { page_id: 'bp_AAAAAAAAAAAAAAAAAAAAAA' } }],
  getBookingPage: (w) => [{ params: { page_id: w.bookingPage } }],
  getBookingAvailability: (w) => [
    { params: { page_id: w.bookingPage }, query: `service=consultation&date=${bookingDate}` },
    { params: { page_id: w.bookingPage }, query: 'service=nope' },
  ],
  createBooking: (w) => [
    {
      params: { page_id: w.bookingPage },
      body: { service: 'consultation', date: bookingDate, time: '10:00', name: 'S', email: 's@example.com' },
    },
  ],
  receptionistChatPage: (w) => [
    { params: { receptionist_id: w.receptionist } },
    { params: { receptionist_id: 'rc_AAAAAAAAAAAAAAAAAAAAAA' } },
  ],
  receptionistEmbedScript: (w) => [{ params: { receptionist_id: w.receptionist } }],
  getReceptionist: (w) => [{ params: { receptionist_id: w.receptionist } }],
  sendReceptionistMessage: (w) => [
    { params: { receptionist_id: w.receptionist }, body: { text: 'Hi, I would like to book a consultation' } },
    { params: { receptionist_id: w.receptionist }, body: { text: 'What are your hours?', conversation_id: 'cv_x' } },
  ],
  registerWebhook: () => [{ body: { url: 'http://127.0.0.1:9/in' } }],
  mcp: () => [
    mcp('tools/list'),
    mcp('resources/list'),
    mcp('resources/templates/list'),
    mcp('prompts/list'),
    mcp('tools/call', { name: 'trust_status', arguments: {} }),
  ],
  mcpGet: () => [{}],
  // UCP's binding: listing is open; a call must be signed by the profile meta names (unsigned here: refused).
  ucpMcp: (w) => [
    mcp('tools/list'),
    mcp('tools/call', {
      name: 'get_order',
      arguments: { meta: { 'ucp-agent': { profile: 'http://127.0.0.1:9/.well-known/ucp' } }, id: w.order },
    }),
  ],
  acpDiscovery: () => [{}],
  acpFeedProducts: () => [{}],
  ucpProfile: () => [{}],
  mcpDelete: () => [{}],
  discoverServices: () => [{}, { query: 'payment_rail=x402_usdc' }],
  negotiateCapabilities: () => [{ body: { required_capabilities: ['automation'] } }],
  procure: () => [{ body: { objective: 'sync leads to my CRM', budget: 100, auto_purchase: false } }],
  getProcurement: (w) => [{ params: { procurement_id: w.procurement } }],
  getTrustStatus: () => [{}],
  getMicroCatalogue: () => [{}],
  listTemplates: () => [{}],
  buyMicroItem: () => [{ params: { id: 'recipe-no-such-thing' } }],
  buyTemplate: () => [{ query: 'sku=no-such-sku' }],
  buyAudit: () => [{ body: { name: 'x', nodes: [], connections: {} } }],
  buyAgentStarter: () => [{}],
  buyObservationTick: () => [{}],
  buyObservationAgents: () => [{}],
  buyObservationMethodology: () => [{}],
  payOrderX402: (w) => [{ params: { order_id: w.order }, headers: bearer(w.orderSecret) }],
  getX402Delivery: () => [{ params: { token: `dlv_${'A'.repeat(32)}` } }],
  getX402Discovery: () => [{}],
  listX402Payments: (w) => w.transactions.map((tx) => ({ query: `transaction=${tx}` })),
  getX402Payment: (w) => w.paymentIds.map((id) => ({ params: { payment_id: id } })),
  getJwks: () => [{}],
  getDidDocument: () => [{}],
  payCheckoutPage: (w) => [{ params: { order_id: w.payOrder } }],
  payCheckout: (w) => [{ params: { order_id: w.payOrder }, form: new URLSearchParams({ email: 'x@example.com' }) }],
  // Stripe is not the provider of this stack (404), and an event without Stripe's signature is refused either way.
  stripeWebhook: () => [{ body: { id: 'evt_stranger', object: 'event', type: 'checkout.session.completed' } }],
  payServicePage: () => [{ params: { service_id: 'automation-wf' } }],
  payServiceOrder: () => [
    {
      params: { service_id: 'automation-wf' },
      form: new URLSearchParams({ ...automationInputs, email: 'x@example.com' }),
    },
  ],
};

/** Operations anyone may call: a declared kind `none` (no credential) or `x402` (paid by whoever pays). */
const PUBLIC: readonly OperationDefinition[] = API_OPERATIONS.filter((d) =>
  authKinds(d).some((k) => k === 'none' || k === 'x402'),
);

/** Status, the text of the body and every header value, x402's base64 headers decoded. */
async function send(def: OperationDefinition, probe: Probe): Promise<{ status: number; seen: string }> {
  const path =
    def.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => encodeURIComponent(probe.params?.[name] ?? '')) +
    (probe.query ? `?${probe.query}` : '');
  const method = def.method.toUpperCase();
  let status: number;
  let text: string;
  let headers: Headers;
  if (probe.form) {
    const res = await fetch(`${stack.url}${path}`, {
      method,
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...probe.headers },
      body: probe.form,
      redirect: 'manual',
    });
    ({ status, headers } = res);
    text = await res.text();
  } else {
    const body = method === 'GET' || method === 'DELETE' ? undefined : (probe.body ?? {});
    ({ status, headers, text } = await stack.call(method, path, body, probe.headers ?? {}));
  }
  const parts = [text];
  headers.forEach((value, name) => {
    parts.push(`${name}: ${value}`);
    if (/^(payment-|x-payment)/i.test(name)) parts.push(Buffer.from(value, 'base64').toString('utf8'));
  });
  return { status, seen: parts.join('\n') };
}

beforeAll(async () => {
  chain = await startX402Chain();
  stack = await startStack(chain.stackConfig);

  // Wallet rail: an agent pays from its wallet and gets its deliverable.
  const agentKey = await fundedAgent(stack, 'pub-victim', 100);
  const walletOrder = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    agent_id: 'pub-victim',
    inputs: automationInputs,
  });
  expect(walletOrder.status).toBe(201);
  const walletOrderId = walletOrder.body.order_id as string;
  const paidByWallet = await stack.call(
    'POST',
    `/api/v1/orders/${walletOrderId}/confirm_payment`,
    {},
    bearer(agentKey),
  );
  expect(paidByWallet.status).toBe(200);

  // A website-booking order paid from another wallet: its page is hosted, and public.
  const bookerKey = await fundedAgent(stack, 'pub-booker', 100);
  const bookingOrder = await stack.call('POST', '/api/v1/orders', {
    service_id: 'website-booking',
    agent_id: 'pub-booker',
    inputs: {
      business_name: 'Victim Clinic',
      industry: 'Clinic',
      services: 'Consultation (30 min)',
      opening_hours: 'Mon-Sun 8am-6pm',
      timezone: 'UTC',
    },
  });
  expect(bookingOrder.status).toBe(201);
  const bookingOrderId = bookingOrder.body.order_id as string;
  expect(
    (await stack.call('POST', `/api/v1/orders/${bookingOrderId}/confirm_payment`, {}, bearer(bookerKey))).status,
  ).toBe(200);

  // An ai-receptionist paid from a third wallet: its receptionist is hosted, and public.
  const receptionistKey = await fundedAgent(stack, 'pub-receptionist', 100);
  const receptionistOrder = await stack.call('POST', '/api/v1/orders', {
    service_id: 'ai-receptionist',
    agent_id: 'pub-receptionist',
    inputs: { business_name: 'Victim Dental', contact_email: 'front@victim.example', services: 'Consultation' },
  });
  expect(receptionistOrder.status).toBe(201);
  const receptionistOrderId = receptionistOrder.body.order_id as string;
  expect(
    (await stack.call('POST', `/api/v1/orders/${receptionistOrderId}/confirm_payment`, {}, bearer(receptionistKey)))
      .status,
  ).toBe(200);

  // Payment-link rail: a human buyer with its order secret.
  const linkOrder = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    email: 'victim@example.com',
    inputs: automationInputs,
  });
  expect(linkOrder.status).toBe(201);
  const linkTx = await stack.services.linkpay.createTransaction(
    linkOrder.body.order_id,
    linkOrder.body.amount_micros,
    'USD',
    'victim@example.com',
  );
  const paidByLink = await stack.call('POST', `/api/v1/orders/${linkOrder.body.order_id}/confirm_payment`, {
    transaction_id: linkTx.id,
  });
  expect(paidByLink.status).toBe(200);

  // x402 rail: the order paid in USDC on chain, and a micro item bought by the same payer.
  const x402Created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'smart-consultation',
    inputs: consultationInputs,
  });
  expect(x402Created.status).toBe(201);
  const pay = payingFetch();
  const paid = await pay(x402Created.body.payment_options.x402_usdc.resource as string, {
    method: 'POST',
    headers: bearer(x402Created.body.order_secret as string),
  });
  expect(paid.status).toBe(200);
  const paidBody = (await paid.json()) as { payment: { transaction: string; payment_id: string } };
  x402Order = {
    orderId: x402Created.body.order_id,
    transaction: paidBody.payment.transaction,
    paymentId: paidBody.payment.payment_id,
    amountMicros: x402Created.body.amount_micros,
  };
  const item = (await stack.call('GET', '/api/v1/x402/micro')).body.items[0] as { id: string };
  const itemBuy = await pay(`${stack.url}/x402/item/${item.id}`);
  expect(itemBuy.status).toBe(200);
  const itemPayment = ((await itemBuy.json()) as { payment: { transaction: string; payment_id: string } }).payment;

  // Internal text on the ledger, as a failed confirmation records it (the workflow's or database's own words).
  await stack.services.db.x402Payments.updateOne(
    { _id: x402Order.paymentId },
    {
      $set: {
        error_reason: 'delivery_failed',
        error_message: `WorkflowUpdateFailedError: order ${x402Order.orderId} on mongodb://db-internal:27017`,
      },
    },
  );
  await stack.services.x402Payments.noteDeliveryFailure(itemPayment.payment_id, 'ECONNREFUSED db-internal:27017');

  await waitForOrder(stack, walletOrderId, (o) => o.status === 'delivered');
  await waitForOrder(stack, bookingOrderId, (o) => o.status === 'delivered');
  const bookingPage = (await stack.services.db.bookingPages.findOne({ order_id: bookingOrderId }))?._id ?? '';
  expect(bookingPage).toMatch(/^bp_/);
  await waitForOrder(stack, x402Order.orderId, (o) => o.status === 'delivered');
  await waitForOrder(stack, receptionistOrderId, (o) => o.status === 'delivered');
  const receptionist = (await stack.services.db.receptionists.findOne({ order_id: receptionistOrderId }))?._id ?? '';
  expect(receptionist).toMatch(/^rc_/);

  secrets = [
    { label: 'agent key of the wallet buyer', value: agentKey },
    { label: 'agent key of the booking page buyer', value: bookerKey },
    { label: 'agent key of the receptionist buyer', value: receptionistKey },
    { label: 'order secret of the link order', value: linkOrder.body.order_secret },
    { label: 'order secret of the x402 order', value: x402Created.body.order_secret },
  ];
  for (const [label, id] of [
    ['wallet order', walletOrderId],
    ['booking page order', bookingOrderId],
    ['receptionist order', receptionistOrderId],
    ['link order', linkOrder.body.order_id as string],
    ['x402 order', x402Order.orderId],
  ] as const) {
    secrets.push({ label: `${label} id`, value: id });
    secrets.push({ label: `random part of the ${label} id`, value: id.replace(/^ord_/, '') });
  }
  for (const s of secrets) expect(s.value).toMatch(/^[A-Za-z0-9_-]{20,}$/);

  world = {
    ...(await strangerWorld()),
    bookingPage,
    receptionist,
    transactions: [x402Order.transaction, itemPayment.transaction],
    paymentIds: [x402Order.paymentId, itemPayment.payment_id],
  };
}, 180_000);

afterAll(async () => {
  await stack?.stop();
  await chain?.stop();
});

/** The stranger's own orders, quote and procurement. */
async function strangerWorld(): Promise<Omit<World, 'transactions' | 'paymentIds' | 'bookingPage' | 'receptionist'>> {
  const order = async () => {
    const res = await stack.call('POST', '/api/v1/orders', {
      service_id: 'smart-consultation',
      inputs: consultationInputs,
    });
    expect(res.status).toBe(201);
    return res.body as { order_id: string; order_secret: string };
  };
  const own = await order();
  const quote = await stack.call('POST', '/api/v1/quote', { service_id: 'automation-wf' });
  expect(quote.status).toBe(201);
  const procurement = await stack.call('POST', '/api/v1/procure', {
    objective: 'sync leads to my CRM',
    budget: 100,
    auto_purchase: false,
  });
  expect(procurement.status).toBe(201);
  return {
    order: own.order_id,
    orderSecret: own.order_secret,
    confirmOrder: (await order()).order_id,
    payOrder: (await order()).order_id,
    quote: quote.body.quote_id as string,
    procurement: procurement.body.procurement_id as string,
  };
}

describe('public lookups of an x402 payment (issue 36 §2)', () => {
  test('by transaction hash and by payment id: status, amount and transaction, nothing that names the order', async () => {
    const expected = {
      payment_id: x402Order.paymentId,
      status: 'settled',
      transaction: x402Order.transaction,
      amount_micros: x402Order.amountMicros,
      amount: x402Order.amountMicros / 1_000_000,
      resource: `${stack.url}/x402/orders/{order_id}`,
      resource_kind: 'order',
      resource_ref: null,
      error_reason: 'delivery_failed',
    };
    const byTx = await stack.call('GET', `/api/v1/x402/payments?transaction=${x402Order.transaction}`);
    expect(byTx.status).toBe(200);
    expect(byTx.body.payments).toEqual([expect.objectContaining(expected)]);
    const byId = await stack.call('GET', `/api/v1/x402/payments/${x402Order.paymentId}`);
    expect(byId.status).toBe(200);
    expect(byId.body).toMatchObject(expected);
    for (const entry of [byTx.body.payments[0], byId.body]) {
      expect(entry).not.toHaveProperty('order_id');
      expect(entry).not.toHaveProperty('error_message');
    }
    for (const res of [byTx, byId]) {
      expect(res.text).not.toContain(x402Order.orderId);
      expect(res.text).not.toContain(x402Order.orderId.replace(/^ord_/, ''));
      expect(res.text).not.toMatch(/db-internal|WorkflowUpdateFailedError/);
    }

    // The operator sees the whole entry.
    const operator = { 'x-operator-key': OPERATOR_KEY };
    const full = await stack.call('GET', `/api/v1/x402/payments/${x402Order.paymentId}`, undefined, operator);
    expect(full.body).toMatchObject({
      order_id: x402Order.orderId,
      resource: `${stack.url}/x402/orders/${x402Order.orderId}`,
      resource_ref: x402Order.orderId,
      error_message: expect.stringContaining('WorkflowUpdateFailedError'),
    });
    const fullByTx = await stack.call(
      'GET',
      `/api/v1/x402/payments?transaction=${x402Order.transaction}`,
      undefined,
      operator,
    );
    expect(fullByTx.body.payments[0]).toMatchObject({ order_id: x402Order.orderId });
  });

  test("a victim's transaction hash offered for the stranger's own order is refused without naming what it paid", async () => {
    const res = await stack.call('POST', `/api/v1/orders/${world.confirmOrder}/confirm_payment`, {
      rail: 'x402_usdc',
      transaction_id: x402Order.transaction,
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('transaction_already_used');
    expect(res.text).not.toContain(x402Order.orderId);
  });
});

describe('every operation callable without a credential', () => {
  test('the probes cover exactly the public operations', () => {
    expect(PUBLIC.length).toBeGreaterThan(40);
    expect(PUBLIC.map((d) => d.id).filter((id) => !(id in PROBES))).toEqual([]);
    expect(Object.keys(PROBES).filter((id) => !PUBLIC.some((d) => d.id === id))).toEqual([]);
  });

  test("answers a stranger without any victim's order id, order secret or agent key", async () => {
    const leaks: string[] = [];
    const answered: string[] = [];
    for (const def of PUBLIC) {
      const probes = PROBES[def.id]?.(world) ?? [];
      expect({ op: def.id, probes: probes.length > 0 }).toEqual({ op: def.id, probes: true });
      for (const probe of probes) {
        const { status, seen } = await send(def, probe);
        answered.push(`${def.id} ${status}`);
        if (status >= 500) leaks.push(`${def.id}: ${status} (a public operation never answers 5xx to this)`);
        for (const s of secrets) if (seen.includes(s.value)) leaks.push(`${def.id} → ${status}: ${s.label}`);
      }
    }
    expect(leaks).toEqual([]);
    // The ledger probes reached the victims' entries (not a 404 that would prove nothing).
    expect(answered.filter((a) => /^(listX402Payments|getX402Payment) 200$/.test(a))).toHaveLength(4);
    expect(answered.filter((a) => a === 'confirmPayment 409')).toHaveLength(2);
  }, 120_000);
});
