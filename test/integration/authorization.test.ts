/**
 * Who may act on what (issue 10 §1, §2), against the real API, worker, Temporal server and database: every action
 * that changes an order needs the buyer's credential (the agent key of its agent_id, or the order secret of an order
 * without one): none is 401, anyone else's (another agent, the operator) is 403. Wallets are claimed only with a
 * credential their owner was given, and every GET that returns buyer data refuses strangers. And, generated from the
 * operation list (issue 27 §1): every operation that declares a credential refuses a request without one (401) and
 * one with a stranger's (403), so an operation whose gate forgot its policy cannot go unnoticed.
 */
import { startStack, waitForOrder, fundedAgent, OPERATOR_KEY, type Stack } from '../helpers/stack';
import { API_OPERATIONS } from '../../src/routes/operations';
import { authKinds, type OperationDefinition } from '../../src/routes/operation';
import { sha256Hex } from '../../src/hash';

let stack: Stack;
let strangerKey: string;
beforeAll(async () => {
  stack = await startStack();
  strangerKey = await fundedAgent(stack, 'authz-stranger', 500);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
const operator = { 'x-operator-key': OPERATOR_KEY };

/** A delivered automation-wf order of a funded agent; returns its id and the agent key. */
async function deliveredAgentOrder(agentId: string): Promise<{ id: string; key: string }> {
  const key = await fundedAgent(stack, agentId, 69);
  const created = await stack.call('POST', '/api/v1/orders', {
    service_id: 'automation-wf',
    agent_id: agentId,
    inputs: automationInputs,
  });
  expect(created.status).toBe(201);
  expect(created.body.order_secret).toBeUndefined(); // the wallet key is this buyer's credential
  const id = created.body.order_id as string;
  expect((await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, {}, bearer(key))).status).toBe(200);
  await waitForOrder(stack, id, (o) => o.status === 'delivered');
  return { id, key };
}

describe('actions on an order need the buyer', () => {
  test("a stranger can neither accept nor reject another agent's delivered order; the buyer's reject still refunds", async () => {
    const { id, key } = await deliveredAgentOrder('authz-victim');
    const review = (body: unknown, headers?: Record<string, string>) =>
      stack.call('POST', `/api/v1/orders/${id}/review`, body, headers);

    const none = await review({ action: 'accept' });
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toBe('Bearer');
    expect(none.body.code).toBe('unauthorized');
    expect((await review({ action: 'accept' }, bearer(strangerKey))).body).toMatchObject({
      status: 403,
      code: 'forbidden',
    });
    expect((await review({ action: 'reject' }, bearer(OPERATOR_KEY))).status).toBe(403);
    expect((await review({ action: 'accept' }, bearer('os_not-this-orders-secret-at-all'))).status).toBe(403);
    expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('delivered');

    const rejected = await review({ action: 'reject', reason: 'not mine' }, bearer(key));
    expect(rejected.status).toBe(200);
    expect(rejected.body).toMatchObject({ status: 'rejected', refund: { status: 'completed', amount: 69 } });
    expect(await stack.services.wallets.balance('authz-victim')).toBe(69_000_000);
  });

  test('an order without agent_id is acted on with its order secret, shown once at creation', async () => {
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'automation-wf',
      email: 'buyer@example.com',
      inputs: automationInputs,
    });
    expect(created.status).toBe(201);
    const secret = created.body.order_secret as string;
    expect(secret).toMatch(/^os_[A-Za-z0-9_-]{43}$/);
    const id = created.body.order_id as string;
    const read = await stack.call('GET', `/api/v1/orders/${id}`);
    expect(read.body.order_secret).toBeUndefined();
    expect(JSON.stringify(read.body)).not.toContain(secret);
    const stored = await stack.services.db.orders.findOne({ _id: id });
    expect(stored?.buyer_secret_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(stored)).not.toContain(secret);

    // Pay on the hosted-link rail, then review: strangers refused, the secret holder accepted.
    const tx = await stack.services.linkpay.createTransaction(
      id,
      created.body.amount_micros,
      'USD',
      'buyer@example.com',
    );
    expect((await stack.call('POST', `/api/v1/orders/${id}/confirm_payment`, { transaction_id: tx.id })).status).toBe(
      200,
    );
    await waitForOrder(stack, id, (o) => o.status === 'delivered');
    expect((await stack.call('POST', `/api/v1/orders/${id}/review`, { action: 'reject' })).status).toBe(401);
    expect(
      (await stack.call('POST', `/api/v1/orders/${id}/review`, { action: 'reject' }, bearer(strangerKey))).status,
    ).toBe(403);
    const accepted = await stack.call('POST', `/api/v1/orders/${id}/review`, { action: 'accept' }, bearer(secret));
    expect(accepted.status).toBe(200);
    expect(accepted.body.status).toBe('accepted');
  });

  test('a human on the payment link gets a link with the order secret and reviews from it', async () => {
    const form = new URLSearchParams({
      workflow_type: 'lead_sync',
      source_app: 'Typeform',
      target_app: 'HubSpot',
      email: 'human@example.com',
    });
    const created = await fetch(`${stack.url}/pay/services/automation-wf`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form,
      redirect: 'manual',
    });
    expect(created.status).toBe(302);
    const location = new URL(created.headers.get('location') ?? '', stack.url);
    const secret = location.searchParams.get('secret') ?? '';
    expect(secret).toMatch(/^os_/);
    const id = location.pathname.split('/').pop() ?? '';
    const checkout = await fetch(location);
    expect(checkout.headers.get('referrer-policy')).toBe('no-referrer');
    const paid = await fetch(`${stack.url}/pay/orders/${id}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ secret }),
    });
    expect(paid.status).toBe(200);
    expect(await paid.text()).toContain(`/pay/orders/${id}?secret=${secret}`);
    await waitForOrder(stack, id, (o) => o.status === 'delivered');
    expect(await (await fetch(`${stack.url}/pay/orders/${id}?secret=${secret}`)).text()).toContain('Reject and refund');
    expect(await (await fetch(`${stack.url}/pay/orders/${id}`)).text()).not.toContain('Reject and refund');

    const reviewForm = (s: string) =>
      fetch(`${stack.url}/pay/orders/${id}/review`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ secret: s, action: 'reject' }),
      });
    expect((await reviewForm('')).status).toBe(401);
    expect((await reviewForm(`os_${'x'.repeat(43)}`)).status).toBe(403);
    const rejected = await reviewForm(secret);
    expect(rejected.status).toBe(200);
    expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('rejected');
  });

  test('cancel, subscription cancel and invoice payment, further tasks and x402 payment refuse strangers before anything else', async () => {
    const { id } = await deliveredAgentOrder('authz-actions');
    for (const path of [`/api/v1/orders/${id}/cancel`, `/api/v1/orders/${id}/tasks`, `/x402/orders/${id}`]) {
      const body = path.endsWith('/tasks') ? { task_prompt: 'write five e-mails' } : {};
      expect({ path, status: (await stack.call('POST', path, body)).status }).toEqual({
        path,
        status: path.endsWith('/tasks') ? 422 : 401,
      });
      expect({ path, status: (await stack.call('POST', path, body, bearer(strangerKey))).status }).toEqual({
        path,
        status: path.endsWith('/tasks') ? 422 : 403,
      });
    }

    // A monthly service: its subscription starts at delivery.
    const key = await fundedAgent(stack, 'authz-sub', 39);
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'ai-receptionist',
      agent_id: 'authz-sub',
      inputs: { business_name: 'Cedar Dental', contact_email: 'front@cedar.example', services: 'cleaning, whitening' },
    });
    expect(created.status).toBe(201);
    const subId = created.body.order_id as string;
    expect((await stack.call('POST', `/api/v1/orders/${subId}/confirm_payment`, {}, bearer(key))).status).toBe(200);
    await waitForOrder(stack, subId, (o) => o.subscription?.status === 'active');
    const cancel = `/api/v1/orders/${subId}/subscription/cancel`;
    const invoice = `/api/v1/orders/${subId}/subscription/invoices/inv_${subId}_2/pay`;
    expect((await stack.call('POST', cancel, {})).status).toBe(401);
    expect((await stack.call('POST', cancel, {}, bearer(strangerKey))).status).toBe(403);
    expect((await stack.call('POST', cancel, {}, operator)).status).toBe(403);
    expect((await stack.call('POST', invoice, { transaction_id: 'lp_x' }, bearer(strangerKey))).status).toBe(403);
    expect((await stack.call('GET', `/api/v1/orders/${subId}/subscription`)).body.cancel_at_period_end).toBe(false);
    const own = await stack.call('POST', cancel, { reason: 'closing the clinic' }, bearer(key));
    expect(own.status).toBe(200);
    expect(own.body.cancel_at_period_end).toBe(true);
  });
});

describe('wallets are claimed only with a credential their owner holds', () => {
  test('a credit to a wallet without a key issues the key to the operator, not to the first reader', async () => {
    const credit = await stack.call(
      'POST',
      '/api/v1/wallets/authz-credited/credits',
      { amount: 40, transaction_id: 'grant-1' },
      operator,
    );
    expect(credit.status).toBe(201);
    const issued = credit.body.agent_key as string;
    expect(issued).toMatch(/^ak_/);
    // A second credit issues nothing: the wallet has its key.
    const again = await stack.call(
      'POST',
      '/api/v1/wallets/authz-credited/credits',
      { amount: 1, transaction_id: 'grant-2' },
      operator,
    );
    expect(again.body.agent_key).toBeUndefined();

    const stranger = await stack.call('GET', '/api/v1/wallets/authz-credited');
    expect(stranger.status).toBe(401);
    expect(stranger.body.agent_key).toBeUndefined();
    expect((await stack.call('GET', '/api/v1/wallets/authz-credited', undefined, bearer(strangerKey))).status).toBe(
      403,
    );
    const owner = await stack.call('GET', '/api/v1/wallets/authz-credited', undefined, bearer(issued));
    expect(owner.status).toBe(200);
    expect(owner.body.balance_micros).toBe(41_000_000);
  });

  test('a keyless wallet (e.g. credited a commission) gets a key only from the operator; the owner rotates it', async () => {
    await stack.services.wallets.credit('authz-keyless', 5_000_000, 'commission:x', 'commission', 'test');
    expect((await stack.call('GET', '/api/v1/wallets/authz-keyless')).status).toBe(401);
    expect((await stack.call('POST', '/api/v1/wallets/authz-keyless/key', {})).status).toBe(401);
    expect((await stack.call('POST', '/api/v1/wallets/authz-keyless/key', {}, bearer(strangerKey))).status).toBe(403);
    expect((await stack.call('POST', '/api/v1/wallets/authz-nowhere/key', {}, operator)).status).toBe(404);

    const issued = await stack.call('POST', '/api/v1/wallets/authz-keyless/key', {}, operator);
    expect(issued.status).toBe(201);
    const key = issued.body.agent_key as string;
    expect((await stack.call('POST', '/api/v1/wallets/authz-keyless/key', {}, operator)).body).toMatchObject({
      status: 409,
      code: 'wallet_claimed',
    });

    const rotated = await stack.call('POST', '/api/v1/wallets/authz-keyless/key', {}, bearer(key));
    expect(rotated.status).toBe(201);
    const next = rotated.body.agent_key as string;
    expect(next).not.toBe(key);
    expect((await stack.call('GET', '/api/v1/wallets/authz-keyless', undefined, bearer(key))).status).toBe(403);
    expect(
      (await stack.call('GET', '/api/v1/wallets/authz-keyless', undefined, bearer(next))).body.balance_micros,
    ).toBe(5_000_000);
  });
});

describe('GETs that return buyer data refuse strangers', () => {
  test('each endpoint: no credential 401, another agent key 403, the owner 200', async () => {
    const ownerKey = await fundedAgent(stack, 'authz-reader', 10);
    const hook = await stack.call(
      'POST',
      '/api/v1/webhooks',
      { url: 'http://127.0.0.1:9/in', agent_id: 'authz-reader' },
      bearer(ownerKey),
    );
    expect(hook.status).toBe(200);
    const cases: { path: string; owner: Record<string, string> }[] = [
      { path: '/api/v1/wallets/authz-reader', owner: bearer(ownerKey) },
      { path: `/api/v1/webhooks/${hook.body.id}`, owner: bearer(ownerKey) },
      { path: `/api/v1/webhooks/${hook.body.id}/deliveries`, owner: bearer(ownerKey) },
      { path: '/api/v1/partners/authz-reader/commissions', owner: bearer(ownerKey) },
      { path: '/api/v1/engineering/queue', owner: operator },
      { path: '/api/v1/x402/payments', owner: operator },
    ];
    for (const { path, owner } of cases) {
      expect({ path, status: (await stack.call('GET', path)).status }).toEqual({ path, status: 401 });
      expect({ path, status: (await stack.call('GET', path, undefined, bearer(strangerKey))).status }).toEqual({
        path,
        status: 403,
      });
      expect({ path, status: (await stack.call('GET', path, undefined, owner)).status }).toEqual({ path, status: 200 });
    }
    // Listing webhooks shows only the caller's own endpoints.
    const theirs = await stack.call('GET', '/api/v1/webhooks', undefined, bearer(strangerKey));
    expect(theirs.body.webhooks.map((w: { id: string }) => w.id)).not.toContain(hook.body.id);
    // Procurements and orders are read by their unguessable ids (capabilities): an unknown id is 404.
    expect((await stack.call('GET', '/api/v1/procurements/prc_AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
    expect((await stack.call('GET', '/api/v1/orders/ord_AAAAAAAAAAAAAAAAAAAAAA')).status).toBe(404);
  });
});

/** What one probe of an operation sends: path parameters, a query, a JSON body or (the /pay review) a form. */
interface Probe {
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  /** The form of an operation whose credential is the order secret in its `secret` field. */
  form?: (secret: string | undefined) => URLSearchParams;
  /** A stranger's credential is not refused here, and why (the answer it gets instead). */
  stranger?: { status: number; why: string };
  /** The code of the 401 without a credential, where the protocol names its own (UCP: signature_missing). */
  noneCode?: string;
}

/** The resources the probes act on, each owned by someone other than the stranger. */
interface World {
  owner: string;
  ownerKey: string;
  /** An agent order awaiting payment (automation-wf). */
  order: string;
  /** A per-task order of the owner (task-worker). */
  taskOrder: string;
  /** A monthly order whose subscription is active (ai-receptionist). */
  subOrder: string;
  /** An order without agent, and the secret of another such order (the stranger's). */
  humanOrder: string;
  otherSecret: string;
  /** A webhook endpoint of the owner's orders. */
  endpoint: string;
  /** A live hosted booking page of the owner's order, with an owner key the stranger does not hold. */
  bookingPage: string;
}

/**
 * Every operation that declares a credential, by operationId: how to reach the part it protects. Operations that
 * declare `none` beside a credential are probed where they need it (agent_wallet rail, auto_purchase, agent_id).
 */
const PROBES: Record<string, (w: World) => Probe> = {
  confirmPayment: (w) => ({ params: { order_id: w.order }, body: {} }),
  reviewOrder: (w) => ({ params: { order_id: w.order }, body: { action: 'accept' } }),
  cancelOrder: (w) => ({ params: { order_id: w.order }, body: {} }),
  payOrderX402: (w) => ({ params: { order_id: w.order } }),
  submitTask: (w) => ({ params: { order_id: w.taskOrder }, body: { task_prompt: 'write five e-mails' } }),
  cancelSubscription: (w) => ({ params: { order_id: w.subOrder }, body: {} }),
  paySubscriptionInvoice: (w) => ({
    params: { order_id: w.subOrder, invoice_id: `inv_${w.subOrder}_2` },
    body: { transaction_id: 'lp_x' },
  }),
  getWallet: (w) => ({ params: { agent_id: w.owner } }),
  creditWallet: (w) => ({ params: { agent_id: w.owner }, body: { amount: 1, transaction_id: 'gate-credit' } }),
  issueWalletKey: (w) => ({ params: { agent_id: w.owner }, body: {} }),
  listPartnerCommissions: (w) => ({ params: { partner_id: w.owner } }),
  procure: (w) => ({
    body: { objective: 'sync leads to my CRM', budget: 100, auto_purchase: true, agent_id: w.owner },
  }),
  registerWebhook: (w) => ({ body: { url: 'http://127.0.0.1:9/in', agent_id: w.owner } }),
  issueBookingOwnerKey: (w) => ({ params: { order_id: w.order }, body: {} }),
  listBookings: (w) => ({ params: { page_id: w.bookingPage } }),
  getOrderReceptionist: (w) => ({ params: { order_id: w.subOrder } }),
  listReceptionistConversations: (w) => ({ params: { order_id: w.subOrder } }),
  cancelBooking: (w) => ({ params: { page_id: w.bookingPage, booking_id: 'bk_gate' }, body: {} }),
  listWebhooks: () => ({
    stranger: {
      status: 200,
      why: "any Bearer token lists the endpoints it manages: the stranger's own, none of the owner's",
    },
  }),
  getWebhook: (w) => ({ params: { id: w.endpoint } }),
  updateWebhook: (w) => ({ params: { id: w.endpoint }, body: { enabled: false } }),
  deleteWebhook: (w) => ({ params: { id: w.endpoint } }),
  listWebhookDeliveries: (w) => ({ params: { id: w.endpoint } }),
  retryWebhookDelivery: (w) => ({ params: { id: w.endpoint, event_id: 'evt_x' } }),
  listEngineeringQueue: () => ({}),
  claimEngineering: (w) => ({ params: { order_id: w.order }, body: { engineer: 'ada' } }),
  uploadEngineeringDeliverable: (w) => ({
    params: { order_id: w.order },
    body: { engineer: 'ada', name: 'x.md', content_base64: 'eA==' },
  }),
  markEngineeringReady: (w) => ({ params: { order_id: w.order }, body: { engineer: 'ada' } }),
  runReconciliation: () => ({ body: {} }),
  getReconciliation: () => ({}),
  listX402Payments: () => ({}),
  // ACP (issue 37 §1): a platform's API key; an agent key is none, whatever session the path names.
  createCheckoutSession: () => ({ body: { line_items: [{ id: 'automation-wf' }], currency: 'usd', capabilities: {} } }),
  getCheckoutSession: () => ({ params: { checkout_session_id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' } }),
  updateCheckoutSession: () => ({ params: { checkout_session_id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' }, body: {} }),
  completeCheckoutSession: () => ({
    params: { checkout_session_id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' },
    body: { payment_data: { handler_id: 'hosted_link' } },
  }),
  cancelCheckoutSession: () => ({ params: { checkout_session_id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' }, body: {} }),
  delegatePayment: () => ({
    body: {},
    stranger: {
      status: 400,
      why: "any agent key delegates its own wallet (nobody else's): let in, the probe is refused for its missing API-Version",
    },
  }),
  createAcpPlatform: () => ({ body: { name: 'probe' } }),
  pushAcpFeed: () => ({ params: { platform_id: 'acpp_probe' }, body: { url: 'https://feeds.example/api' } }),
  // UCP (issue 37 §2): a platform is its signed profile; a Bearer token is no signature (401 signature_missing).
  ucpCreateCheckout: () => ({
    body: { line_items: [{ item: { id: 'automation-wf' }, quantity: 1 }] },
    ...UCP_UNSIGNED,
  }),
  ucpGetCheckout: () => ({ params: { id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' }, ...UCP_UNSIGNED }),
  ucpUpdateCheckout: () => ({
    params: { id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' },
    body: { line_items: [{ item: { id: 'automation-wf' }, quantity: 1 }] },
    ...UCP_UNSIGNED,
  }),
  ucpCompleteCheckout: () => ({
    params: { id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' },
    body: { payment: { instruments: [{ id: 'pi', handler_id: 'hosted_link', type: 'hosted_link' }] } },
    ...UCP_UNSIGNED,
  }),
  ucpCancelCheckout: () => ({ params: { id: 'cs_AAAAAAAAAAAAAAAAAAAAAA' }, body: {}, ...UCP_UNSIGNED }),
  ucpGetOrder: () => ({ params: { id: 'ord_AAAAAAAAAAAAAAAAAAAAAA' }, ...UCP_UNSIGNED }),

  payReview: (w) => ({
    params: { order_id: w.humanOrder },
    form: (secret) => new URLSearchParams({ ...(secret ? { secret } : {}), action: 'reject' }),
  }),
};

/** A UCP probe: unsigned with or without a Bearer token, both 401 signature_missing (src/http/ucp.ts). */
const UCP_UNSIGNED = {
  noneCode: 'signature_missing',
  stranger: { status: 401, why: 'a UCP platform is identified by its RFC 9421 signature, not a Bearer token' },
};

/** Operations that need a credential for some request: a declared kind other than `none` and `x402` (paid). */
const GUARDED: readonly OperationDefinition[] = API_OPERATIONS.filter((d) =>
  authKinds(d).some((k) => k !== 'none' && k !== 'x402'),
);

describe("every operation that declares a credential refuses none (401) and a stranger's (403)", () => {
  let w: World;
  beforeAll(async () => {
    const owner = 'gate-owner';
    const ownerKey = await fundedAgent(stack, owner, 300);
    const order = async (body: Record<string, unknown>) => {
      const res = await stack.call('POST', '/api/v1/orders', body);
      expect(res.status).toBe(201);
      return res.body as { order_id: string; order_secret?: string };
    };
    const agentOrder = await order({ service_id: 'automation-wf', agent_id: owner, inputs: automationInputs });
    const taskOrder = await order({
      service_id: 'task-worker',
      agent_id: owner,
      inputs: { task_prompt: 'Research the three cheapest CRM tools', format: 'markdown' },
    });
    const human = await order({ service_id: 'automation-wf', email: 'h@example.com', inputs: automationInputs });
    const other = await order({ service_id: 'automation-wf', email: 'o@example.com', inputs: automationInputs });
    // A monthly service: its subscription starts at delivery.
    const subKey = await fundedAgent(stack, 'gate-sub', 39);
    const sub = await order({
      service_id: 'ai-receptionist',
      agent_id: 'gate-sub',
      inputs: { business_name: 'Birch Dental', contact_email: 'front@birch.example', services: 'cleaning' },
    });
    expect(
      (await stack.call('POST', `/api/v1/orders/${sub.order_id}/confirm_payment`, {}, bearer(subKey))).status,
    ).toBe(200);
    await waitForOrder(stack, sub.order_id, (o) => o.subscription?.status === 'active');
    const hook = await stack.call(
      'POST',
      '/api/v1/webhooks',
      { url: 'http://127.0.0.1:9/in', agent_id: owner },
      bearer(ownerKey),
    );
    expect(hook.status).toBe(200);
    // A live booking page (as a delivery writes it) whose owner key is not the stranger's.
    const bookingPage = 'bp_gateprobe0000000000000';
    await stack.services.db.bookingPages.insertOne({
      _id: bookingPage,
      order_id: agentOrder.order_id,
      service_id: 'website-booking',
      config: { services: [], availability: {} },
      html: '<!DOCTYPE html><title>gate</title>',
      owner_key_hash: sha256Hex('bpk_the-owners-key'),
      created_at: new Date(),
      updated_at: new Date(),
    });
    w = {
      owner,
      ownerKey,
      order: agentOrder.order_id,
      taskOrder: taskOrder.order_id,
      subOrder: sub.order_id,
      humanOrder: human.order_id,
      otherSecret: other.order_secret ?? '',
      endpoint: hook.body.id as string,
      bookingPage,
    };
  }, 120_000);

  test('the probes cover exactly the operations that declare a credential', () => {
    expect(GUARDED.length).toBeGreaterThan(20);
    expect(GUARDED.map((d) => d.id).filter((id) => !(id in PROBES))).toEqual([]);
    expect(Object.keys(PROBES).filter((id) => !GUARDED.some((d) => d.id === id))).toEqual([]);
  });

  test("each: without a credential 401 unauthorized, with a stranger's 403 forbidden; nothing changes", async () => {
    const outcomes: string[] = [];
    const expected: string[] = [];
    const send = async (def: OperationDefinition, probe: Probe, credential: string | undefined) => {
      const path =
        def.path.replace(/\{([A-Za-z0-9_]+)\}/g, (_m, name: string) => encodeURIComponent(probe.params?.[name] ?? '')) +
        (probe.query ? `?${probe.query}` : '');
      if (probe.form) {
        const res = await fetch(`${stack.url}${path}`, {
          method: def.method.toUpperCase(),
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: probe.form(credential),
        });
        return { status: res.status, code: ((await res.json()) as { code?: string }).code };
      }
      const method = def.method.toUpperCase();
      const body = method === 'GET' || method === 'DELETE' ? undefined : (probe.body ?? {});
      const res = await stack.call(method, path, body, credential ? bearer(credential) : {});
      return { status: res.status, code: res.body?.code as string | undefined };
    };
    for (const def of GUARDED) {
      const probe = PROBES[def.id]?.(w) ?? {};
      const none = await send(def, probe, undefined);
      outcomes.push(`${def.id} none ${none.status} ${none.code}`);
      expected.push(`${def.id} none 401 ${probe.noneCode ?? 'unauthorized'}`);
      const strangerCredential = probe.form ? w.otherSecret : strangerKey;
      const stranger = await send(def, probe, strangerCredential);
      const want = probe.stranger?.status ?? 403;
      outcomes.push(`${def.id} stranger ${stranger.status}${want === 403 ? ` ${stranger.code}` : ''}`);
      expected.push(`${def.id} stranger ${want}${want === 403 ? ' forbidden' : ''}`);
    }
    expect(outcomes).toEqual(expected);

    // Refused requests changed nothing: the orders still await payment, the owner's key and endpoint still work.
    for (const id of [w.order, w.taskOrder, w.humanOrder])
      expect((await stack.call('GET', `/api/v1/orders/${id}`)).body.status).toBe('awaiting_payment');
    const wallet = await stack.call('GET', `/api/v1/wallets/${w.owner}`, undefined, bearer(w.ownerKey));
    expect(wallet.status).toBe(200);
    expect(wallet.body.balance_micros).toBe(300_000_000);
    const endpoint = await stack.call('GET', `/api/v1/webhooks/${w.endpoint}`, undefined, bearer(w.ownerKey));
    expect(endpoint.body.status).toBe('enabled');
    expect((await stack.call('GET', `/api/v1/orders/${w.subOrder}/subscription`)).body.cancel_at_period_end).toBe(
      false,
    );
  });
});
