/**
 * ACP 2026-04-17, merchant side (issue 37 §1), against the real API, worker, Temporal server and database: a platform
 * the operator issued a key buys catalogue services through checkout sessions, paying with a delegated agent-wallet
 * token or on the hosted page. Every ACP request and answer is validated against the specification's own JSON schemas
 * (test/fixtures/acp-2026-04-17, copied unchanged; ajv 2020-12), beside the service's OpenAPI document (stack.call).
 */
import { createHmac, generateKeyPairSync, timingSafeEqual } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as fs from 'node:fs';
import * as path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { signAcpRequest, type AcpSigningKey } from '../../src/http/acpSignature';
import { encodePaymentSignatureHeader } from '@x402/core/http';
import type { PaymentRequirements } from '@x402/core/types';
import { ANVIL_ADDRESSES } from '../../scripts/lib/chain';
import { signPayment, startX402Chain, type X402Chain } from '../helpers/x402';
import { fundedAgent, OPERATOR_KEY, startStack, waitForOrder, type ApiResponse, type Stack } from '../helpers/stack';

const FIXTURES = path.join(__dirname, '..', 'fixtures', 'acp-2026-04-17');
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'schema.agentic_checkout.json'), 'utf8')), 'checkout');
ajv.addSchema(JSON.parse(fs.readFileSync(path.join(FIXTURES, 'schema.delegate_payment.json'), 'utf8')), 'delegate');

/** Throws with ajv's errors unless `value` is valid against `ref` (`checkout#/$defs/CheckoutSession`, …). */
function conforms(ref: string, value: unknown): void {
  const validate = ajv.getSchema(ref) ?? ajv.compile({ $ref: ref });
  if (!validate(value))
    throw new Error(`${ref}: ${JSON.stringify(validate.errors?.slice(0, 5))}\n${JSON.stringify(value).slice(0, 2000)}`);
}

const VERSION = '2026-04-17';
const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };

let stack: Stack;
let chain: X402Chain;
let platformKey: string;
let otherPlatformKey: string;
/** A platform that signs with HS256, and one that signs with Ed25519. */
const hmacKey: AcpSigningKey = { alg: 'HS256', secret: `hmac-secret-${'x'.repeat(32)}` };
const edPair = generateKeyPairSync('ed25519');
const edPrivate: AcpSigningKey = { alg: 'EdDSA', jwk: edPair.privateKey.export({ format: 'jwk' }) };
let hmacPlatformKey: string;
let edPlatformKey: string;
let n = 0;

/** An ACP request: validated against the spec's request schema `requestRef` (when given) before it is sent. */
async function acp(
  method: string,
  urlPath: string,
  body?: unknown,
  opts: {
    key?: string | null;
    version?: string | null;
    idem?: string | null;
    requestRef?: string;
    /** Signs the request (Signature over `signedBody ?? body`, Timestamp `timestamp ?? now`). */
    sign?: AcpSigningKey;
    signedBody?: unknown;
    timestamp?: string;
  } = {},
): Promise<ApiResponse> {
  if (opts.requestRef) conforms(opts.requestRef, body);
  const key = opts.key === undefined ? platformKey : opts.key;
  const version = opts.version === undefined ? VERSION : opts.version;
  const idem = opts.idem === undefined ? (method === 'POST' ? `acp-test-${process.pid}-${++n}` : null) : opts.idem;
  const timestamp = opts.timestamp ?? new Date().toISOString();
  const signature = opts.sign
    ? signAcpRequest(opts.sign, timestamp, method === 'GET' ? undefined : (opts.signedBody ?? body ?? {}))
    : undefined;
  const res = await stack.call(method, urlPath, body, {
    ...(signature ? { signature, timestamp } : {}),
    ...(key ? { authorization: `Bearer ${key}` } : {}),
    ...(version ? { 'api-version': version } : {}),
    ...(idem ? { 'idempotency-key': idem } : {}),
  });
  if (res.status >= 400) {
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    conforms('checkout#/$defs/Error', res.body);
  }
  return res;
}

const createBody = (inputs?: Record<string, string>, item: Record<string, unknown> = { id: 'automation-wf' }) => ({
  line_items: [item],
  currency: 'usd',
  capabilities: {},
  ...(inputs ? { metadata: { inputs } } : {}),
});

/** A session of automation-wf with every input: ready for payment. */
async function readySession(): Promise<Record<string, any>> {
  const res = await acp('POST', '/checkout_sessions', createBody(automationInputs), {
    requestRef: 'checkout#/$defs/CheckoutSessionCreateRequest',
  });
  expect(res.status).toBe(201);
  conforms('checkout#/$defs/CheckoutSession', res.body);
  expect(res.body.status).toBe('ready_for_payment');
  return res.body;
}

/** A delegated token of `agentKey`'s wallet for `sessionId`, allowing `maxAmount` cents. */
async function delegate(agentKey: string, sessionId: string, maxAmount: number): Promise<string> {
  const body = {
    allowance: {
      reason: 'one_time',
      max_amount: maxAmount,
      currency: 'usd',
      checkout_session_id: sessionId,
      merchant_id: 'agent-commerce',
      expires_at: new Date(Date.now() + 3_600_000).toISOString(),
    },
    risk_signals: [],
    metadata: { source: 'test' },
  };
  const res = await acp('POST', '/agentic_commerce/delegate_payment', body, { key: agentKey });
  expect(res.status).toBe(201);
  conforms('delegate#/$defs/DelegatePaymentResponse', res.body);
  return res.body.id as string;
}

const walletPayment = (token: string) => ({
  payment_data: {
    handler_id: 'agent_wallet',
    instrument: { type: 'wallet_token', credential: { type: 'spt', token } },
  },
});

beforeAll(async () => {
  chain = await startX402Chain();
  stack = await startStack(chain.stackConfig);
  const issue = async (name: string, extra: Record<string, unknown> = {}) => {
    const res = await stack.call(
      'POST',
      '/api/v1/acp/platforms',
      { name, ...extra },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    expect(res.status).toBe(201);
    expect(res.body.api_key).toMatch(/^acp_/);
    return res.body.api_key as string;
  };
  platformKey = await issue('platform-a');
  otherPlatformKey = await issue('platform-b');
  hmacPlatformKey = await issue('platform-hmac', { request_signing: { alg: 'HS256', secret: hmacKey.secret } });
  edPlatformKey = await issue('platform-ed', {
    request_signing: { alg: 'EdDSA', jwk: edPair.publicKey.export({ format: 'jwk' }) },
  });
}, 120_000);
afterAll(async () => {
  await stack?.stop();
  await chain?.stop();
});

test('discovery at /.well-known/acp.json conforms to DiscoveryResponse', async () => {
  const res = await stack.call('GET', '/.well-known/acp.json');
  expect(res.status).toBe(200);
  conforms('checkout#/$defs/DiscoveryResponse', res.body);
  expect(res.body).toMatchObject({ protocol: { name: 'acp', version: VERSION }, api_base_url: stack.url });
});

test('headers: an unsupported or missing API-Version is 400 naming the supported one; POST needs Idempotency-Key', async () => {
  const wrong = await acp('POST', '/checkout_sessions', createBody(automationInputs), { version: '2026-01-30' });
  expect(wrong.status).toBe(400);
  expect(wrong.body).toMatchObject({ type: 'invalid_request', code: 'unsupported_api_version', param: 'API-Version' });
  expect(wrong.body.message).toContain('2026-04-17');
  expect((await acp('GET', '/checkout_sessions/cs_x', undefined, { version: null })).body.code).toBe(
    'unsupported_api_version',
  );
  const noKey = await acp('POST', '/checkout_sessions', createBody(automationInputs), { idem: null });
  expect(noKey.status).toBe(400);
  expect(noKey.body.code).toBe('idempotency_key_required');
});

test('credentials: none 401, an agent key 403, another platform finds no session (404)', async () => {
  const session = await readySession();
  const none = await acp('GET', `/checkout_sessions/${session.id}`, undefined, { key: null });
  expect(none.status).toBe(401);
  expect(none.body.code).toBe('unauthorized');
  const agentKey = await fundedAgent(stack, 'acp-not-a-platform', 0);
  expect((await acp('GET', `/checkout_sessions/${session.id}`, undefined, { key: agentKey })).status).toBe(403);
  const other = await acp('GET', `/checkout_sessions/${session.id}`, undefined, { key: otherPlatformKey });
  expect(other.status).toBe(404);
  expect(other.body.code).toBe('checkout_session_not_found');
  const otherComplete = await acp('POST', `/checkout_sessions/${session.id}/cancel`, {}, { key: otherPlatformKey });
  expect(otherComplete.status).toBe(404);
  // Untouched by the stranger.
  expect((await acp('GET', `/checkout_sessions/${session.id}`)).body.status).toBe('ready_for_payment');
});

test('missing inputs: not_ready_for_payment with a message naming each, until an update gives them', async () => {
  const created = await acp('POST', '/checkout_sessions', createBody(), {
    requestRef: 'checkout#/$defs/CheckoutSessionCreateRequest',
  });
  expect(created.status).toBe(201);
  conforms('checkout#/$defs/CheckoutSession', created.body);
  expect(created.body.status).toBe('not_ready_for_payment');
  expect(created.body.messages.map((m: { code: string; param: string }) => `${m.code} ${m.param}`)).toEqual([
    'missing $.metadata.inputs.workflow_type',
    'missing $.metadata.inputs.source_app',
    'missing $.metadata.inputs.target_app',
  ]);
  // Priced by a binding quote: $69 agent price = 6900 cents.
  expect(created.body.totals.find((t: { type: string }) => t.type === 'total').amount).toBe(6900);
  expect(created.body.quote_id).toMatch(/^quo_/);
  const id = created.body.id as string;

  const early = await acp('POST', `/checkout_sessions/${id}/complete`, { payment_data: { handler_id: 'hosted_link' } });
  expect(early.status).toBe(409);
  expect(early.body).toMatchObject({ code: 'checkout_session_not_ready', param: '$.metadata.inputs.workflow_type' });

  const partial = await acp('POST', `/checkout_sessions/${id}`, {
    metadata: { inputs: { workflow_type: 'lead_sync', source_app: 'Typeform' } },
  });
  expect(partial.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSession', partial.body);
  expect(partial.body.messages.map((m: { param: string }) => m.param)).toEqual(['$.metadata.inputs.target_app']);
  const ready = await acp('POST', `/checkout_sessions/${id}`, { metadata: { inputs: { target_app: 'HubSpot' } } });
  expect(ready.body).toMatchObject({ status: 'ready_for_payment', messages: [] });
});

test('quantity above 1 is a quantity_exceeded message; two line items are refused', async () => {
  const res = await acp(
    'POST',
    '/checkout_sessions',
    createBody(automationInputs, { id: 'automation-wf', quantity: 2 }),
  );
  expect(res.status).toBe(201);
  conforms('checkout#/$defs/CheckoutSession', res.body);
  expect(res.body.status).toBe('not_ready_for_payment');
  expect(res.body.messages).toEqual([
    expect.objectContaining({ code: 'quantity_exceeded', param: '$.line_items[0].quantity' }),
  ]);
  const two = await acp('POST', '/checkout_sessions', {
    ...createBody(automationInputs),
    line_items: [{ id: 'automation-wf' }, { id: 'task-worker' }],
  });
  expect(two.status).toBe(400);
  expect(two.body.param).toBe('$.line_items');
  const unknown = await acp('POST', '/checkout_sessions', createBody(automationInputs, { id: 'no-such-service' }));
  expect(unknown.status).toBe(400);
  expect(unknown.body.param).toBe('$.line_items[0].id');
  // A monthly service sells its first month; the session tells the buyer renewals are invoices, besides what is missing.
  const monthly = await acp('POST', '/checkout_sessions', createBody(undefined, { id: 'ai-receptionist' }));
  expect(monthly.status).toBe(201);
  conforms('checkout#/$defs/CheckoutSession', monthly.body);
  expect(monthly.body.status).toBe('not_ready_for_payment');
  const kinds = (monthly.body.messages as { type: string; param: string }[]).map((m) => `${m.type} ${m.param}`);
  expect(kinds).toContain('info $.line_items[0]');
  expect(kinds.filter((k) => k.startsWith('error'))).toEqual([
    'error $.metadata.inputs.business_name',
    'error $.metadata.inputs.contact_email',
    'error $.metadata.inputs.services',
  ]);
});

test('buys automation-wf with a delegated wallet token: one order, one debit, however often complete is retried', async () => {
  const agentKey = await fundedAgent(stack, 'acp-buyer', 100);
  const session = await readySession();
  const id = session.id as string;

  // A token that allows less than the total, or was issued for another session, does not pay it.
  const small = await delegate(agentKey, id, 6899);
  const refused = await acp('POST', `/checkout_sessions/${id}/complete`, walletPayment(small));
  expect(refused.status).toBe(422);
  expect(refused.body).toMatchObject({
    code: 'payment_token_invalid',
    param: '$.payment_data.instrument.credential.token',
  });
  const elsewhere = await delegate(agentKey, 'cs_another_session', 10_000);
  expect((await acp('POST', `/checkout_sessions/${id}/complete`, walletPayment(elsewhere))).status).toBe(422);
  expect(await stack.services.wallets.balance('acp-buyer')).toBe(100_000_000);

  const token = await delegate(agentKey, id, 6900);
  const completeBody = walletPayment(token);
  conforms('checkout#/$defs/CheckoutSessionCompleteRequest', completeBody);
  const first = await acp('POST', `/checkout_sessions/${id}/complete`, completeBody, { idem: 'acp-complete-1' });
  expect(first.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', first.body);
  expect(first.body.status).toBe('completed');
  const orderId = first.body.order.id as string;
  expect(first.body.order).toMatchObject({
    checkout_session_id: id,
    permalink_url: `${stack.url}/api/v1/orders/${orderId}`,
  });
  expect(await stack.services.wallets.balance('acp-buyer')).toBe(31_000_000);

  // The same request again (replayed), and a new one with another key: the same order, no second debit.
  const replay = await acp('POST', `/checkout_sessions/${id}/complete`, completeBody, { idem: 'acp-complete-1' });
  expect(replay.headers.get('idempotent-replayed')).toBe('true');
  expect(replay.body.order.id).toBe(orderId);
  const again = await acp('POST', `/checkout_sessions/${id}/complete`, completeBody);
  expect(again.status).toBe(200);
  expect(again.body.order.id).toBe(orderId);
  expect(await stack.services.wallets.balance('acp-buyer')).toBe(31_000_000);
  expect(await stack.services.db.orders.countDocuments({ agent_id: 'acp-buyer' })).toBe(1);

  const order = await waitForOrder(stack, orderId, (o) => o.status === 'delivered');
  expect(order).toMatchObject({ service_id: 'automation-wf', agent_id: 'acp-buyer' });
  const got = await acp('GET', `/checkout_sessions/${id}`);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', got.body);
  expect(got.body.order.status).toBe('completed');

  // Completed: no longer cancelable (405), nor changeable (409).
  const cancel = await acp('POST', `/checkout_sessions/${id}/cancel`, {});
  expect(cancel.status).toBe(405);
  expect(cancel.body.code).toBe('checkout_session_not_cancelable');
  expect((await acp('POST', `/checkout_sessions/${id}`, { metadata: { inputs: {} } })).status).toBe(409);
}, 90_000);

test('a complete that died after its commitment, or after the charge, is finished by the next: one order, one debit', async () => {
  const agentKey = await fundedAgent(stack, 'acp-crash', 100);
  const session = await readySession();
  const id = session.id as string;
  const token = await delegate(agentKey, id, 6900);
  // As a process that died right after recording the commitment (before the order existed) leaves it.
  await stack.services.db.checkoutSessions.updateOne(
    { _id: id },
    {
      $set: {
        status: 'complete_in_progress',
        payment: { handler_id: 'agent_wallet', token_id: token, agent_id: 'acp-crash' },
        completed_at: new Date(),
      },
      $inc: { version: 1 },
    },
  );
  const stuck = await acp('GET', `/checkout_sessions/${id}`);
  conforms('checkout#/$defs/CheckoutSession', stuck.body);
  expect(stuck.body.status).toBe('complete_in_progress');
  expect((await acp('POST', `/checkout_sessions/${id}/cancel`, {})).status).toBe(405);

  const done = await acp('POST', `/checkout_sessions/${id}/complete`, walletPayment(token));
  expect(done.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', done.body);
  expect(done.body.status).toBe('completed');
  expect(await stack.services.wallets.balance('acp-crash')).toBe(31_000_000);

  // As a process that died after the charge, before the session said completed: finished without a second debit.
  await stack.services.db.checkoutSessions.updateOne(
    { _id: id },
    { $set: { status: 'complete_in_progress' }, $inc: { version: 1 } },
  );
  const again = await acp('POST', `/checkout_sessions/${id}/complete`, walletPayment(token));
  expect(again.body).toMatchObject({ status: 'completed', order: { id: done.body.order.id } });
  expect(await stack.services.wallets.balance('acp-crash')).toBe(31_000_000);
  expect(await stack.services.db.orders.countDocuments({ agent_id: 'acp-crash' })).toBe(1);
}, 90_000);

test('buys automation-wf through the hosted link: requires_escalation with continue_url, completed once paid', async () => {
  const session = await readySession();
  const id = session.id as string;
  const body = {
    payment_data: {
      handler_id: 'hosted_link',
      instrument: { type: 'hosted_link', credential: { type: 'none', token: 'none' } },
    },
    buyer: { email: 'human@example.com' },
  };
  conforms('checkout#/$defs/CheckoutSessionCompleteRequest', body);
  const res = await acp('POST', `/checkout_sessions/${id}/complete`, body);
  expect(res.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', res.body);
  expect(res.body.status).toBe('requires_escalation');
  const orderId = res.body.order.id as string;
  expect(res.body.order.status).toBe('created');
  const link = new URL(res.body.continue_url as string);
  expect(link.pathname).toBe(`/pay/orders/${orderId}`);
  const secret = link.searchParams.get('secret') ?? '';
  expect(secret).toMatch(/^os_/);

  const pay = await fetch(`${stack.url}/pay/orders/${orderId}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ secret, email: 'human@example.com' }),
  });
  expect(pay.status).toBe(200);
  await waitForOrder(stack, orderId, (o) => o.status !== 'awaiting_payment');
  const done = await acp('GET', `/checkout_sessions/${id}`);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', done.body);
  expect(done.body.status).toBe('completed');
  expect(done.body.continue_url).toBeUndefined();
  expect((await acp('POST', `/checkout_sessions/${id}/cancel`, {})).status).toBe(405);
}, 90_000);

test('cancel: an open session is canceled once; then 405, and it takes no update or complete', async () => {
  const session = await readySession();
  const id = session.id as string;
  const canceled = await acp('POST', `/checkout_sessions/${id}/cancel`, {
    intent_trace: { reason_code: 'buyer_cancelled' },
  });
  expect(canceled.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSession', canceled.body);
  expect(canceled.body.status).toBe('canceled');
  expect((await acp('POST', `/checkout_sessions/${id}/cancel`, {})).status).toBe(405);
  expect((await acp('POST', `/checkout_sessions/${id}`, { buyer: { email: 'a@example.com' } })).status).toBe(409);
  const complete = await acp('POST', `/checkout_sessions/${id}/complete`, {
    payment_data: { handler_id: 'hosted_link' },
  });
  expect(complete.status).toBe(409);
  expect(complete.body.code).toBe('checkout_session_closed');
});

test.each([
  ['HS256', () => hmacPlatformKey, () => hmacKey],
  ['EdDSA', () => edPlatformKey, () => edPrivate],
])(
  '%s-signing platform: signed requests pass; unsigned, tampered or stale ones are 401 invalid_signature',
  async (_alg, keyOf, signerOf) => {
    const key = keyOf();
    const sign = signerOf();
    const body = createBody(automationInputs);
    const created = await acp('POST', '/checkout_sessions', body, { key, sign });
    expect(created.status).toBe(201);
    conforms('checkout#/$defs/CheckoutSession', created.body);
    const id = created.body.id as string;
    expect((await acp('GET', `/checkout_sessions/${id}`, undefined, { key, sign })).status).toBe(200);

    const refusedWith = async (res: ApiResponse, message: RegExp) => {
      expect(res.status).toBe(401);
      expect(res.body).toMatchObject({ type: 'invalid_request', code: 'invalid_signature' });
      expect(res.body.message).toMatch(message);
    };
    await refusedWith(await acp('GET', `/checkout_sessions/${id}`, undefined, { key }), /Missing Timestamp/);
    // The router matches paths whatever their case: so does the signature check (a raw request: the path is not one
    // the OpenAPI document names, which the stack's conformance check would refuse).
    const mixedCase = await fetch(`${stack.url}/Checkout_Sessions/${id}`, {
      headers: { authorization: `Bearer ${key}`, 'api-version': VERSION },
    });
    expect(mixedCase.status).toBe(401);
    expect(await mixedCase.json()).toMatchObject({ code: 'invalid_signature' });
    // The body sent is not the body signed.
    await refusedWith(
      await acp(
        'POST',
        `/checkout_sessions/${id}`,
        { buyer: { email: 'mallory@example.com' } },
        {
          key,
          sign,
          signedBody: { buyer: { email: 'alice@example.com' } },
        },
      ),
      /verification failed/,
    );
    const stale = new Date(Date.now() - 600_000).toISOString();
    await refusedWith(
      await acp(
        'POST',
        `/checkout_sessions/${id}`,
        { buyer: { email: 'alice@example.com' } },
        {
          key,
          sign,
          timestamp: stale,
        },
      ),
      /outside allowed window/,
    );
    // A key of another platform signs nothing for this one.
    const foreign: AcpSigningKey =
      sign.alg === 'HS256' ? { alg: 'HS256', secret: 'y'.repeat(40) } : { alg: 'HS256', secret: hmacKey.secret };
    await refusedWith(
      await acp('GET', `/checkout_sessions/${id}`, undefined, { key, sign: foreign }),
      /verification failed/,
    );
    // Nothing changed by the refused requests.
    const after = await acp('GET', `/checkout_sessions/${id}`, undefined, { key, sign });
    expect(after.body.buyer).toBeUndefined();
  },
);

test('a platform key that is not a public key of its algorithm is refused at issue', async () => {
  const res = await stack.call(
    'POST',
    '/api/v1/acp/platforms',
    { name: 'bad', request_signing: { alg: 'ES256', jwk: edPair.publicKey.export({ format: 'jwk' }) } },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  expect(res.status).toBe(400);
});

/** The x402 credential for `session`: a payload signed by the buyer for the requirements its x402 handler offers. */
async function x402Credential(session: Record<string, any>): Promise<string> {
  const handler = session.capabilities.payment.handlers.find((h: { id: string }) => h.id === 'x402');
  const accepts = handler.config.accepts as PaymentRequirements[];
  const payload = await signPayment({
    x402Version: 2,
    resource: { url: `${stack.url}/checkout_sessions/${session.id}/complete`, description: '', mimeType: '' },
    accepts,
  });
  return encodePaymentSignatureHeader(payload);
}

const x402Payment = (token: string) => ({
  payment_data: {
    handler_id: 'x402',
    instrument: { type: 'x402', credential: { type: 'x402_payment_payload', token } },
  },
});

test('buys automation-wf over x402: the signed payload settles on chain, the order is paid once', async () => {
  const session = await readySession();
  const id = session.id as string;
  const x402 = session.capabilities.payment.handlers.find((h: { id: string }) => h.id === 'x402');
  expect(x402.config.accepts[0]).toMatchObject({ scheme: 'exact', amount: '69000000', payTo: ANVIL_ADDRESSES.payTo });
  const before = await chain.balance(ANVIL_ADDRESSES.buyer);

  // No payload: refused before anything is committed (the session stays open and cancelable).
  const bare = await acp('POST', `/checkout_sessions/${id}/complete`, { payment_data: { handler_id: 'x402' } });
  expect(bare.status).toBe(400);
  expect(bare.body.param).toBe('$.payment_data.instrument.credential.token');

  const body = x402Payment(await x402Credential(session));
  conforms('checkout#/$defs/CheckoutSessionCompleteRequest', body);
  const done = await acp('POST', `/checkout_sessions/${id}/complete`, body);
  expect(done.status).toBe(200);
  conforms('checkout#/$defs/CheckoutSessionWithOrder', done.body);
  expect(done.body.status).toBe('completed');
  expect(done.headers.get('payment-response')).toBeTruthy();
  const orderId = done.body.order.id as string;
  const order = await waitForOrder(stack, orderId, (o) => o.payment !== null);
  expect(order.payment).toMatchObject({ rail: 'x402_usdc' });
  expect(before - (await chain.balance(ANVIL_ADDRESSES.buyer))).toBe(69_000_000n);

  // The same payload again (another Idempotency-Key): the session is completed, nothing settles twice.
  const again = await acp('POST', `/checkout_sessions/${id}/complete`, body);
  expect(again.body).toMatchObject({ status: 'completed', order: { id: orderId } });
  expect(before - (await chain.balance(ANVIL_ADDRESSES.buyer))).toBe(69_000_000n);
}, 90_000);

test('x402: a payload for too little is refused with 402 and nothing is paid; a service without x402 is refused', async () => {
  const session = await readySession();
  const id = session.id as string;
  const handler = session.capabilities.payment.handlers.find((h: { id: string }) => h.id === 'x402');
  const real = handler.config.accepts[0] as PaymentRequirements;
  const cheap = await signPayment(
    { x402Version: 2, resource: { url: `${stack.url}/x`, description: '', mimeType: '' }, accepts: [real] },
    { signFor: { amount: '1000000' } },
  );
  const before = await chain.balance(ANVIL_ADDRESSES.buyer);
  const refused = await acp(
    'POST',
    `/checkout_sessions/${id}/complete`,
    x402Payment(encodePaymentSignatureHeader(cheap)),
  );
  expect(refused.status).toBe(402);
  expect(refused.headers.get('payment-required')).toBeTruthy();
  expect(await chain.balance(ANVIL_ADDRESSES.buyer)).toBe(before);
  // The right payload then pays it.
  const paid = await acp('POST', `/checkout_sessions/${id}/complete`, x402Payment(await x402Credential(session)));
  expect(paid.body.status).toBe('completed');

  // integration-project is not sold over x402: no x402 handler offered, and complete with one is refused.
  const other = await acp(
    'POST',
    '/checkout_sessions',
    createBody({ systems: 'SAP, Salesforce', direction: 'two_way' }, { id: 'integration-project' }),
  );
  expect(other.status).toBe(201);
  expect(other.body.capabilities.payment.handlers.map((h: { id: string }) => h.id)).toEqual([
    'agent_wallet',
    'hosted_link',
  ]);
  const noX402 = await acp(
    'POST',
    `/checkout_sessions/${other.body.id}/complete`,
    x402Payment(paid.headers.get('x') ?? 'e30='),
  );
  expect(noX402.status).toBe(422);
  expect(noX402.body).toMatchObject({ code: 'rail_not_offered', param: '$.payment_data.handler_id' });
}, 90_000);

/** A platform's order-events receiver: verifies Merchant-Signature itself (HMAC-SHA256 of "<t>.<raw body>", ±300 s). */
async function startAcpReceiver(secret: string) {
  const events: { type: string; data: Record<string, any>; verified: boolean }[] = [];
  const server = http.createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString('utf8')));
    req.on('end', () => {
      const m = /^t=(\d+),v1=([a-f0-9]{64})$/.exec(String(req.headers['merchant-signature'] ?? ''));
      const expected = m ? createHmac('sha256', secret).update(`${m[1]}.${raw}`).digest() : null;
      const verified =
        !!m &&
        !!expected &&
        Math.abs(Date.now() / 1000 - Number(m[1])) <= 300 &&
        timingSafeEqual(expected, Buffer.from(m[2] ?? '', 'hex'));
      const body = JSON.parse(raw);
      events.push({ ...body, verified });
      res.writeHead(verified ? 200 : 401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          verified
            ? { received: true }
            : { type: 'invalid_request', code: 'invalid_signature', message: 'Webhook signature verification failed.' },
        ),
      );
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/agentic_checkout/webhooks/order_events`;
  return { url, events, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

test('order events reach the platform webhook signed with Merchant-Signature, in order, as ACP WebhookEvents', async () => {
  const secret = `platform-webhook-secret-${'z'.repeat(24)}`;
  const receiver = await startAcpReceiver(secret);
  try {
    const issued = await stack.call(
      'POST',
      '/api/v1/acp/platforms',
      { name: 'platform-hooks', webhook: { url: receiver.url, secret } },
      { authorization: `Bearer ${OPERATOR_KEY}` },
    );
    expect(issued.status).toBe(201);
    expect(issued.body.webhook).toEqual({ url: receiver.url, secret });
    const key = issued.body.api_key as string;
    const agentKey = await fundedAgent(stack, 'acp-hooks', 100);
    const created = await acp('POST', '/checkout_sessions', createBody(automationInputs), { key });
    const id = created.body.id as string;
    const token = await delegate(agentKey, id, 6900);
    const done = await acp('POST', `/checkout_sessions/${id}/complete`, walletPayment(token), { key });
    expect(done.body.status).toBe('completed');
    const orderId = done.body.order.id as string;
    await waitForOrder(stack, orderId, (o) => o.status === 'delivered');
    const deadline = Date.now() + 30_000;
    while (!receiver.events.some((e) => e.data.status === 'completed') && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 200));
    expect(receiver.events.every((e) => e.verified)).toBe(true);
    expect(receiver.events.map((e) => `${e.type} ${e.data.status}`)).toEqual([
      'order_create created',
      'order_update confirmed',
      'order_update processing',
      'order_update completed',
    ]);
    for (const e of receiver.events) {
      expect(Object.keys(e).sort()).toEqual(['data', 'type', 'verified']);
      conforms('checkout#/$defs/Order', e.data);
      expect(e.data).toMatchObject({
        type: 'order',
        id: orderId,
        checkout_session_id: id,
        permalink_url: `${stack.url}/api/v1/orders/${orderId}`,
      });
      expect(e.data.totals.find((t: { type: string }) => t.type === 'total').amount).toBe(6900);
    }
    // Another platform's orders never reach this receiver.
    expect(new Set(receiver.events.map((e) => e.data.id))).toEqual(new Set([orderId]));
  } finally {
    await receiver.stop();
  }
}, 90_000);
