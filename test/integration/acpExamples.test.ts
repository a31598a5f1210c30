/**
 * The ACP 2026-04-17 example flows (examples/2026-04-17/examples.agentic_checkout.json, copied unchanged into
 * test/fixtures/acp-2026-04-17) replayed against the real API, worker, Temporal and database. Each request body is
 * the example's, adapted only where it must be ours (each adaptation is commented): the item id becomes a catalogue
 * service, the service's inputs ride in `metadata.inputs`, and the card handler and its `spt_…` token become the
 * agent-wallet handler and a delegated `vt_…` token. Every request is checked against the spec's request schema
 * before it is sent, every answer against the spec's response schema (and the service's OpenAPI, stack.call).
 * What the examples ask for that is not offered (fulfillment details and options, discount codes, a tax exemption)
 * is answered with `messages[]` errors (docs/agent-checkouts.md, "Not supported").
 */
import { randomUUID } from 'node:crypto';
import { ACP_EXAMPLES, ACP_VERSION, conforms, issuePlatform } from '../helpers/acpSpec';
import { fundedAgent, startStack, waitForOrder, type ApiResponse, type Stack } from '../helpers/stack';

let stack: Stack;
let platformKey: string;
let agentKey: string;
const SERVICE = 'automation-wf';
const INPUTS = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };
const example = (name: string): Record<string, any> => structuredClone(ACP_EXAMPLES[name]) as Record<string, any>;

/** An ACP request of the platform; `requestRef` (a spec schema) checks the body before it is sent. */
async function acp(
  method: string,
  urlPath: string,
  body?: unknown,
  opts: { requestRef?: string; idem?: string | null } = {},
): Promise<ApiResponse> {
  if (opts.requestRef) conforms(opts.requestRef, body);
  const idem = opts.idem === undefined ? (method === 'POST' ? `replay-${randomUUID()}` : null) : opts.idem;
  const res = await stack.call(method, urlPath, body, {
    authorization: `Bearer ${platformKey}`,
    'api-version': ACP_VERSION,
    ...(idem ? { 'idempotency-key': idem } : {}),
  });
  if (res.status >= 400) conforms('checkout#/$defs/Error', res.body);
  return res;
}

/** The example's create request, with our catalogue service and its inputs (both ours; nothing else changed). */
function createFrom(name: string): Record<string, any> {
  const body = example(name);
  expect(body.line_items).toEqual([{ id: 'item_123' }]);
  body.line_items = [{ id: SERVICE }]; // ours: a catalogue service id (GET /api/v1/services)
  body.metadata = { inputs: INPUTS }; // ours: the service's required inputs (metadata is open in the spec)
  return body;
}

/** A delegated wallet token (ours, in place of the example's `spt_123`) for `sessionId`. */
async function delegatedToken(sessionId: string, maxAmount: number): Promise<string> {
  const res = await stack.call(
    'POST',
    '/agentic_commerce/delegate_payment',
    {
      allowance: {
        reason: 'one_time',
        max_amount: maxAmount,
        currency: 'usd',
        checkout_session_id: sessionId,
        merchant_id: 'agent-commerce',
        expires_at: new Date(Date.now() + 3_600_000).toISOString(),
      },
    },
    { authorization: `Bearer ${agentKey}`, 'api-version': ACP_VERSION, 'idempotency-key': randomUUID() },
  );
  expect(res.status).toBe(201);
  conforms('delegate#/$defs/DelegatePaymentResponse', res.body);
  return res.body.id as string;
}

/** The example's complete request, paying with the agent wallet (ours) instead of the example's card. */
function completeFrom(name: string, token: string): Record<string, any> {
  const body = example(name);
  body.payment_data.handler_id = 'agent_wallet'; // ours: the handler this service offers (no card handler here)
  body.payment_data.instrument = { type: 'wallet_token', credential: { type: 'spt', token } }; // ours: vt_… token
  return body;
}

const codes = (res: ApiResponse) => (res.body.messages as { code: string; param: string }[]).map((m) => m);

beforeAll(async () => {
  stack = await startStack();
  platformKey = await issuePlatform(stack, 'replay-platform');
  agentKey = await fundedAgent(stack, 'acp-replay', 1000);
}, 120_000);
afterAll(async () => {
  await stack?.stop();
});

test('create → get → update → complete → get, as the examples, paid from the wallet once', async () => {
  const created = await acp('POST', '/checkout_sessions', createFrom('create_checkout_session_request'), {
    requestRef: 'checkout#/$defs/CheckoutSessionCreateRequest',
  });
  expect(created.status).toBe(201);
  conforms('checkout#/$defs/CheckoutSession', created.body);
  expect(created.body.status).toBe('ready_for_payment');
  // The example's fulfillment_details: nothing ships here, said so instead of dropped.
  expect(codes(created)).toEqual([
    expect.objectContaining({ type: 'error', code: 'unsupported', param: '$.fulfillment_details' }),
  ]);
  const id = created.body.id as string;
  const total = created.body.totals.find((t: { type: string }) => t.type === 'total').amount as number;
  expect(total).toBe(6900);

  const got = await acp('GET', `/checkout_sessions/${id}`);
  expect(got.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSession', got.body);
  expect(got.body.messages).toEqual([]); // the unsupported field was not stored

  // The update example unchanged: a selected fulfillment option (and order notes, accepted).
  const updated = await acp('POST', `/checkout_sessions/${id}`, example('update_checkout_session_request'), {
    requestRef: 'checkout#/$defs/CheckoutSessionUpdateRequest',
  });
  expect(updated.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSession', updated.body);
  expect(updated.body.status).toBe('ready_for_payment');
  expect(codes(updated)).toEqual([
    expect.objectContaining({ code: 'unsupported', param: '$.selected_fulfillment_options' }),
  ]);

  const before = await stack.services.wallets.balance('acp-replay');
  const body = completeFrom('complete_checkout_session_request', await delegatedToken(id, total));
  const completed = await acp('POST', `/checkout_sessions/${id}/complete`, body, {
    requestRef: 'checkout#/$defs/CheckoutSessionCompleteRequest',
  });
  expect(completed.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', completed.body);
  expect(completed.body.status).toBe('completed');
  expect(completed.body.buyer).toMatchObject({ email: 'johnsmith@mail.com', first_name: 'John' });
  expect(before - (await stack.services.wallets.balance('acp-replay'))).toBe(total * 10_000);

  const orderId = completed.body.order.id as string;
  await waitForOrder(stack, orderId, (o) => o.status === 'delivered');
  const after = await acp('GET', `/checkout_sessions/${id}`);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', after.body);
  expect(after.body.order).toMatchObject({ id: orderId, checkout_session_id: id, status: 'completed' });
  // The example response's shape: the same top-level members, where this service has them.
  for (const key of ['id', 'protocol', 'capabilities', 'status', 'currency', 'line_items', 'totals', 'order'])
    expect(ACP_EXAMPLES.complete_checkout_session_response).toHaveProperty(key);
  expect(before - (await stack.services.wallets.balance('acp-replay'))).toBe(total * 10_000);
}, 90_000);

test('the attribution variants of create and complete (affiliate_attribution accepted, buys once)', async () => {
  const created = await acp(
    'POST',
    '/checkout_sessions',
    createFrom('create_checkout_session_request_with_first_touch_attribution'),
    { requestRef: 'checkout#/$defs/CheckoutSessionCreateRequest' },
  );
  expect(created.status).toBe(201);
  conforms('checkout#/$defs/CheckoutSession', created.body);
  const id = created.body.id as string;
  const body = completeFrom(
    'complete_checkout_session_request_with_last_touch_attribution',
    await delegatedToken(id, 6900),
  );
  const completed = await acp('POST', `/checkout_sessions/${id}/complete`, body, {
    requestRef: 'checkout#/$defs/CheckoutSessionCompleteRequest',
  });
  expect(completed.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', completed.body);
  expect(completed.body.status).toBe('completed');
}, 60_000);

test.each(['cancel_checkout_session_request', 'cancel_checkout_session_request_timing_deferred'])(
  '%s: the session is canceled, and a second cancel is 405',
  async (name) => {
    const created = await acp('POST', '/checkout_sessions', createFrom('create_checkout_session_request'));
    const id = created.body.id as string;
    const canceled = await acp('POST', `/checkout_sessions/${id}/cancel`, example(name), {
      requestRef: 'checkout#/$defs/CancelSessionRequest',
    });
    expect(canceled.status).toBe(200);
    conforms('checkout#/$defs/CheckoutSession', canceled.body);
    expect(canceled.body.status).toBe(ACP_EXAMPLES.cancel_checkout_session_response.status);
    expect((await acp('POST', `/checkout_sessions/${id}/cancel`, example(name))).status).toBe(405);
  },
);

test('the error examples: an unknown item, a missing Idempotency-Key, a key reused with another body', async () => {
  const bad = createFrom('create_checkout_session_request');
  bad.line_items = [{ id: 'invalid_item' }]; // as error_400_invalid_item
  const invalid = await acp('POST', '/checkout_sessions', bad);
  expect(invalid.status).toBe(400);
  expect(invalid.body.type).toBe(ACP_EXAMPLES.error_400_invalid_item.type);
  expect(invalid.body.param).toBe('$.line_items[0].id'); // the request's path (the example names `.item.id`)

  const noKey = await acp('POST', '/checkout_sessions', createFrom('create_checkout_session_request'), { idem: null });
  expect(noKey.status).toBe(400);
  expect(noKey.body).toMatchObject({
    type: ACP_EXAMPLES.error_400_idempotency_key_required.type,
    code: ACP_EXAMPLES.error_400_idempotency_key_required.code,
  });

  const key = `replay-conflict-${randomUUID()}`;
  expect(
    (await acp('POST', '/checkout_sessions', createFrom('create_checkout_session_request'), { idem: key })).status,
  ).toBe(201);
  const conflict = await acp(
    'POST',
    '/checkout_sessions',
    createFrom('create_checkout_session_request_with_first_touch_attribution'),
    {
      idem: key,
    },
  );
  expect(conflict.status).toBe(422);
  expect(conflict.body).toMatchObject({
    type: ACP_EXAMPLES.error_422_idempotency_conflict.type,
    code: ACP_EXAMPLES.error_422_idempotency_conflict.code,
  });
});

test('discount codes, coupons and a tax exemption are answered, not ignored; the totals stay the quote', async () => {
  const body = {
    ...createFrom('create_checkout_session_request'),
    discounts: { codes: ['SAVE10', 'EXPIRED50'] }, // as discount-extension/rejected-discount-code.json
    coupons: ['WELCOME'],
    buyer: { email: 'buyer@example.com', tax_exemption: { certificate_id: 'cert_1', exemption_type: 'resale' } },
    fulfillment_groups: [],
  };
  const created = await acp('POST', '/checkout_sessions', body);
  expect(created.status).toBe(201);
  conforms('checkout#/$defs/CheckoutSession', created.body);
  expect(created.body.status).toBe('ready_for_payment');
  expect(codes(created).map((m) => `${m.code} ${m.param}`)).toEqual([
    'unsupported $.fulfillment_details',
    'unsupported $.fulfillment_groups',
    'unsupported $.buyer.tax_exemption',
    'coupon_invalid $.discounts.codes[0]',
    'coupon_invalid $.discounts.codes[1]',
    'coupon_invalid $.coupons[0]',
  ]);
  expect(created.body.buyer).toEqual({ email: 'buyer@example.com' });
  expect(created.body.totals.find((t: { type: string }) => t.type === 'total').amount).toBe(6900);

  const updated = await acp(
    'POST',
    `/checkout_sessions/${created.body.id}`,
    { discounts: { codes: ['SAVE20'] } },
    {
      requestRef: 'checkout#/$defs/CheckoutSessionUpdateRequest',
    },
  );
  expect(updated.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSession', updated.body);
  expect(codes(updated).map((m) => `${m.code} ${m.param}`)).toEqual(['coupon_invalid $.discounts.codes[0]']);
});
