/**
 * x402 end to end (issue 3): the real API and worker, a private anvil chain answering as Base with the USDC
 * look-alike, this project's facilitator, and buyers using the unmodified x402 client packages
 * (`@x402/fetch`'s wrapFetchWithPayment, `@x402/core` + `@x402/evm` clients). Balances are read on chain.
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { ANVIL_ADDRESSES } from '../../scripts/lib/chain';
import { freePort } from '../../scripts/lib/servers';
import { createApp } from '../../src/app';
import { OrderWorkflows } from '../../src/temporal/orders';
import { MICRO_ITEMS, getMicroItem, microItemGoods } from '../../src/products/micro';
import { TEMPLATES } from '../../src/products/x402/templates';
import { OPERATOR_KEY, startStack, waitForOrder, type Stack } from '../helpers/stack';
import {
  UNFUNDED_KEY,
  payingFetch,
  paymentRequiredOf,
  paymentResponseOf,
  signPayment,
  signatureHeader,
  startX402Chain,
  type X402Chain,
} from '../helpers/x402';

jest.setTimeout(120_000);

let chain: X402Chain;
let stack: Stack;
const pay = payingFetch();
const item = MICRO_ITEMS.find((i) => i.kind === 'recipe') ?? MICRO_ITEMS[0]!;
const cheapItem = [...MICRO_ITEMS].sort((a, b) => a.price_micros - b.price_micros)[0]!;
let payToStart: bigint;
let buyerStart: bigint;

const buyer = ANVIL_ADDRESSES.buyer;
const payTo = ANVIL_ADDRESSES.payTo;

beforeAll(async () => {
  chain = await startX402Chain();
  stack = await startStack(chain.stackConfig);
  payToStart = await chain.balance(payTo);
  buyerStart = await chain.balance(buyer);
});

afterAll(async () => {
  await stack?.stop();
  await chain?.stop();
});

/** The 402 of a resource (no payment) and its decoded requirements. */
async function challenge(path: string, init: RequestInit = {}) {
  const res = await fetch(stack.url + path, init);
  expect(res.status).toBe(402);
  const required = paymentRequiredOf(res);
  return { res, required, body: (await res.json()) as Record<string, unknown> };
}

/** Balance change of payer and pay-to across `fn`. */
async function deltas<T>(fn: () => Promise<T>): Promise<{ result: T; buyer: bigint; payTo: bigint }> {
  const b0 = await chain.balance(buyer);
  const p0 = await chain.balance(payTo);
  const result = await fn();
  return { result, buyer: (await chain.balance(buyer)) - b0, payTo: (await chain.balance(payTo)) - p0 };
}

describe('402 challenge (seed §5, §6.3)', () => {
  it('answers an unknown item 404 without asking for payment', async () => {
    const res = await stack.call('GET', '/x402/item/recipe-no-such-thing');
    expect(res.status).toBe(404);
    expect(res.body).toMatchObject({ code: 'item_not_found', status: 404 });
    expect(res.headers.get('payment-required')).toBeNull();
  });

  it('quotes the exact amount in PAYMENT-REQUIRED, exposed to browsers, with the bazaar extension', async () => {
    const { res, required, body } = await challenge(`/x402/item/${item.id}`);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/PAYMENT-REQUIRED/);
    expect(res.headers.get('access-control-expose-headers')).toMatch(/PAYMENT-RESPONSE/);
    expect(required.x402Version).toBe(2);
    expect(required.resource.url).toBe(`${stack.url}/x402/item/${item.id}`);
    expect(required.accepts).toEqual([
      {
        scheme: 'exact',
        network: 'eip155:8453',
        asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        amount: String(Math.round(item.price * 1_000_000)),
        payTo,
        maxTimeoutSeconds: 60,
        extra: { name: 'USD Coin', version: '2' },
      },
    ]);
    const bazaar = required.extensions?.bazaar as {
      info: { input: { type: string; method: string } };
      schema: Record<string, unknown>;
    };
    expect(bazaar.info.input).toMatchObject({ type: 'http', method: 'GET' });
    expect(bazaar.schema.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(required.extensions?.['payment-identifier']).toMatchObject({ info: { required: false } });
    expect(body).toMatchObject({ code: 'payment_required', amount: String(item.price_micros), price_usd: item.price });
  });

  it('refuses a malformed or version 1 payment header with 400', async () => {
    const garbage = await stack.call('GET', `/x402/item/${item.id}`, undefined, {
      'PAYMENT-SIGNATURE': 'not base64 json!',
    });
    expect(garbage.status).toBe(400);
    expect(garbage.body).toMatchObject({ code: 'invalid_payment_header', param: 'PAYMENT-SIGNATURE' });
    const notPayload = await stack.call('GET', `/x402/item/${item.id}`, undefined, {
      'PAYMENT-SIGNATURE': Buffer.from('{"x402Version":2}').toString('base64'),
    });
    expect(notPayload.status).toBe(400);
    const v1 = await stack.call('GET', `/x402/item/${item.id}`, undefined, {
      'X-PAYMENT': Buffer.from('{"x402Version":1}').toString('base64'),
    });
    expect(v1.status).toBe(400);
  });
});

describe('buying with an unmodified x402 client', () => {
  it('buys a micro item: 200 with the goods inline, PAYMENT-RESPONSE, on-chain transfer of the exact amount', async () => {
    const { result: res, buyer: db, payTo: dp } = await deltas(() => pay(`${stack.url}/x402/item/${item.id}`));
    expect(res.status).toBe(200);
    const settle = paymentResponseOf(res);
    expect(settle).toMatchObject({ success: true, network: 'eip155:8453' });
    expect(settle.transaction).toMatch(/^0x[0-9a-f]{64}$/);
    const body = (await res.json()) as {
      item: { id: string };
      content: unknown;
      payment: { transaction: string; status: string };
    };
    expect(body.item.id).toBe(item.id);
    expect(body.content).toEqual(microItemGoods(getMicroItem(item.id)!));
    expect(body.payment).toMatchObject({
      transaction: settle.transaction,
      status: 'settled',
      amount_micros: item.price_micros,
    });
    expect(db).toBe(-BigInt(item.price_micros));
    expect(dp).toBe(BigInt(item.price_micros));
    // The settled record is written while the answer goes out; this process's reads wait for it.
    await expect(stack.services.x402Payments.getByTransaction(settle.transaction)).resolves.toMatchObject({
      status: 'settled',
      transaction: settle.transaction,
    });
  });

  it('a settled record that cannot be written is reported, and reads do not wait on it', async () => {
    const errors: unknown[] = [];
    const ledger = stack.services.x402Payments;
    const ghost = { _id: `x4p_ghost_${randomBytes(6).toString('hex')}` } as Parameters<typeof ledger.recordSettled>[0];
    const shown = ledger.recordSettled(ghost, `0x${'ab'.repeat(32)}`, (err) => errors.push(err));
    expect(shown).toMatchObject({ _id: ghost._id, status: 'settled', tx_key: `0x${'ab'.repeat(32)}` });
    await expect(ledger.get(ghost._id)).resolves.toBeNull();
    expect(String(errors[0])).toMatch(/vanished/);
  });

  it('sells each paid resource of seed 2.13 at its price', async () => {
    const resources: {
      path: string;
      init?: RequestInit;
      micros: number;
      check: (body: Record<string, unknown>) => void;
    }[] = [
      {
        path: `/x402/template?sku=${TEMPLATES[0]!.sku}`,
        micros: 19_000_000,
        check: (b) =>
          expect(b).toMatchObject({
            template: { sku: TEMPLATES[0]!.sku, price_usd: 19 },
            workflow: { nodes: expect.any(Array), connections: expect.any(Object) },
          }),
      },
      {
        path: `/x402/template?sku=${TEMPLATES[17]!.sku}`,
        micros: 362_000_000,
        check: (b) => expect(b).toMatchObject({ template: { price_usd: 362 } }),
      },
      {
        path: '/x402/audit',
        init: {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            name: 'Mine',
            nodes: [
              { name: 'Hook', type: 'n8n-nodes-base.webhook', typeVersion: 2, parameters: {} },
              { name: 'Nope', type: 'n8n-nodes-base.nope', typeVersion: 1, parameters: {} },
            ],
            connections: {},
          }),
        },
        micros: 49_000_000,
        check: (b) => {
          const rules = (b.findings as { rule: string }[]).map((f) => f.rule);
          expect(rules).toEqual(
            expect.arrayContaining([
              'unknown_node_type',
              'trigger_without_actions',
              'disconnected_node',
              'webhook_without_auth',
              'no_error_handling',
            ]),
          );
          expect(typeof b.report).toBe('string');
        },
      },
      {
        path: '/x402/agent-starter',
        micros: 149_000_000,
        check: (b) => {
          expect(b.templates).toHaveLength(3);
          expect((b.integration_notes as unknown[]).length).toBeGreaterThan(3);
        },
      },
      {
        path: '/x402/obs/tick',
        micros: 1_000,
        check: (b) =>
          expect(b).toMatchObject({
            reading: 'agent-traffic-tick',
            agent_visits: expect.any(Number),
            distinct_identities: expect.any(Number),
          }),
      },
      {
        path: '/x402/obs/agents',
        micros: 300_000,
        check: (b) =>
          expect(b).toMatchObject({
            snapshot: 'agent-behaviour',
            totals: expect.any(Object),
            methodology: { caveats: expect.any(Array) },
          }),
      },
      {
        path: '/x402/obs/methodology',
        micros: 100_000,
        check: (b) =>
          expect(b).toMatchObject({ document: 'observation-feed-methodology', exclusions: expect.any(Array) }),
      },
    ];
    for (const r of resources) {
      const { required } = await challenge(r.path, r.init);
      expect({ path: r.path, amount: required.accepts[0]?.amount }).toEqual({ path: r.path, amount: String(r.micros) });
      const { result: res, buyer: db, payTo: dp } = await deltas(() => pay(stack.url + r.path, r.init));
      expect({ path: r.path, status: res.status }).toEqual({ path: r.path, status: 200 });
      expect(paymentResponseOf(res).success).toBe(true);
      r.check((await res.json()) as Record<string, unknown>);
      expect({ path: r.path, db, dp }).toEqual({ path: r.path, db: -BigInt(r.micros), dp: BigInt(r.micros) });
    }
  });

  it('template: no sku → 400 pointing at the catalogue; unknown sku → 404; the catalogue lists 18 skus with prices', async () => {
    const none = await stack.call('GET', '/x402/template');
    expect(none.status).toBe(400);
    expect(none.body).toMatchObject({
      code: 'invalid_request',
      param: 'sku',
      catalogue: `${stack.url}/api/v1/x402/templates`,
    });
    expect(none.headers.get('payment-required')).toBeNull();
    expect((await stack.call('GET', '/x402/template?sku=tpl-nope')).status).toBe(404);
    const cat = await stack.call('GET', '/api/v1/x402/templates');
    expect(cat.body.templates).toHaveLength(18);
    expect(cat.body.price_range).toEqual({ count: 18, min_usd: 19, max_usd: 362 });
    for (const t of cat.body.templates) expect(t.amount).toBe(String(t.price_usd * 1_000_000));
  });

  it('audit: a body that is not a workflow is 400 without a payment challenge', async () => {
    const res = await stack.call('POST', '/x402/audit', { hello: 'world' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('invalid_workflow');
    expect(res.headers.get('payment-required')).toBeNull();
  });
});

describe('settlement rules (issue 3 §2)', () => {
  it('a replayed payment gets 402 with the facilitator reason and moves no money', async () => {
    const { required } = await challenge(`/x402/item/${cheapItem.id}`);
    const headers = signatureHeader(await signPayment(required));
    const first = await stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, headers);
    expect(first.status).toBe(200);
    const { result: replay, buyer: db } = await deltas(() =>
      stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, headers),
    );
    expect(replay.status).toBe(402);
    expect(paymentRequiredOf(replay).error).toBe('invalid_exact_evm_nonce_already_used');
    expect(replay.body).toMatchObject({ code: 'payment_required', reason: 'invalid_exact_evm_nonce_already_used' });
    expect(db).toBe(0n);
  });

  it('two parallel requests with one payload deliver once and charge once', async () => {
    const { required } = await challenge(`/x402/item/${cheapItem.id}`);
    const headers = signatureHeader(await signPayment(required));
    const { result, buyer: db } = await deltas(() =>
      Promise.all([0, 1, 2].map(() => stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, headers))),
    );
    expect(result.map((r) => r.status).sort()).toEqual([200, 402, 402]);
    expect(db).toBe(-BigInt(cheapItem.price_micros));
  });

  it('parallel distinct payments all settle', async () => {
    const { required } = await challenge(`/x402/item/${cheapItem.id}`);
    const payloads = await Promise.all([0, 1, 2, 3, 4].map(() => signPayment(required)));
    const { result, payTo: dp } = await deltas(() =>
      Promise.all(payloads.map((p) => stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, signatureHeader(p)))),
    );
    expect(result.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
    expect(new Set(result.map((r) => r.body.payment.transaction)).size).toBe(5);
    expect(dp).toBe(5n * BigInt(cheapItem.price_micros));
  });

  it.each([
    ['amount', { amount: '1' }, 'invalid_exact_evm_payload_authorization_value_mismatch'],
    ['pay-to', { payTo: '0x000000000000000000000000000000000000dEaD' }, 'invalid_exact_evm_recipient_mismatch'],
    ['network', { network: 'eip155:84532' as const }, 'invalid_exact_evm_signature'],
    ['EIP-712 domain', { extra: { name: 'USDC', version: '2' } }, 'invalid_exact_evm_signature'],
    [
      'expiry (authorization too short-lived)',
      { maxTimeoutSeconds: 3 },
      'invalid_exact_evm_payload_authorization_valid_before',
    ],
  ])('refuses a payment signed for the wrong %s with 402 and the reason', async (_what, signFor, reason) => {
    const { required } = await challenge(`/x402/item/${cheapItem.id}`);
    const payload = await signPayment(required, { signFor });
    const { result: res, buyer: db } = await deltas(() =>
      stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, signatureHeader(payload)),
    );
    expect(res.status).toBe(402);
    expect(paymentRequiredOf(res).error).toBe(reason);
    expect(db).toBe(0n);
    // The claim written while the payment was verified is withdrawn: nothing kept for a payment never settled.
    const auth = payload.payload.authorization as { from: string; nonce: string };
    await expect(
      stack.services.x402Payments.getByAuthorization(required.accepts[0]!.network, auth.from, auth.nonce),
    ).resolves.toBeNull();
  });

  it('refuses an authorization that expired before it was presented (signed ten minutes ago) with 402', async () => {
    const { required } = await challenge(`/x402/item/${cheapItem.id}`);
    const realNow = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(realNow - 10 * 60_000);
    let payload;
    try {
      payload = await signPayment(required);
    } finally {
      clock.mockRestore();
    }
    expect(Number((payload.payload.authorization as { validBefore: string }).validBefore)).toBeLessThan(
      Math.floor(realNow / 1000),
    );
    const { result: res, buyer: db } = await deltas(() =>
      stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, signatureHeader(payload)),
    );
    expect(res.status).toBe(402);
    expect(paymentRequiredOf(res).error).toBe('invalid_exact_evm_payload_authorization_valid_before');
    expect(db).toBe(0n);
  });

  it('refuses requirements the server did not offer (client claims another amount) with 402', async () => {
    const { required } = await challenge(`/x402/item/${cheapItem.id}`);
    const payload = await signPayment(required, { signFor: { amount: '1' }, keepAccepted: true });
    const res = await stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, signatureHeader(payload));
    expect(res.status).toBe(402);
    expect(paymentRequiredOf(res).error).toBe('No matching payment requirements');
  });

  it('refuses a buyer without enough USDC with 402 insufficient balance', async () => {
    const { required } = await challenge(`/x402/item/${cheapItem.id}`);
    const unfunded = await signPayment(required, { key: UNFUNDED_KEY });
    const res = await stack.call('GET', `/x402/item/${cheapItem.id}`, undefined, signatureHeader(unfunded));
    expect(res.status).toBe(402);
    expect(paymentRequiredOf(res).error).toBe('invalid_exact_evm_insufficient_balance');
    // Well signed, so verified offline; settlement refused it before sending anything, so nothing is kept.
    expect(res.body).not.toHaveProperty('payment');
    const auth = unfunded.payload.authorization as { from: string; nonce: string };
    await expect(
      stack.services.x402Payments.getByAuthorization(required.accepts[0]!.network, auth.from, auth.nonce),
    ).resolves.toBeNull();
  });

  it('payment-identifier: a retried purchase returns the same goods without a second charge', async () => {
    const id = `pay_${randomBytes(12).toString('hex')}`;
    const path = `/x402/template?sku=${TEMPLATES[1]!.sku}`;
    const { required } = await challenge(path);
    const firstHeaders = signatureHeader(await signPayment(required, { paymentId: id }));
    const first = await deltas(async () => stack.call('GET', path, undefined, firstHeaders));
    expect(first.result.status).toBe(200);
    expect(first.buyer).toBe(-BigInt(TEMPLATES[1]!.price_micros));
    // The identical payload again (its nonce is spent, so without the id this would be a 402 replay): same goods.
    const resent = await deltas(async () => stack.call('GET', path, undefined, firstHeaders));
    expect(resent.result.status).toBe(200);
    expect(resent.result.body).toEqual(first.result.body);
    expect(resent.buyer).toBe(0n);
    // The client lost the response and re-signs (new nonce) with the same id: same goods, no charge.
    const again = await deltas(async () =>
      stack.call('GET', path, undefined, signatureHeader(await signPayment(required, { paymentId: id }))),
    );
    expect(again.result.status).toBe(200);
    expect(again.result.headers.get('payment-identifier-replayed')).toBe('true');
    expect(again.result.body).toEqual(first.result.body);
    expect(again.result.headers.get('payment-response')).toBe(first.result.headers.get('payment-response'));
    expect(again.buyer).toBe(0n);
    // The same id for another purchase on the same resource: 409.
    const other = `/x402/template?sku=${TEMPLATES[2]!.sku}`;
    const { required: otherReq } = await challenge(other);
    const conflict = await stack.call(
      'GET',
      other,
      undefined,
      signatureHeader(await signPayment(otherReq, { paymentId: id })),
    );
    expect(conflict.status).toBe(409);
    expect(conflict.body.code).toBe('payment_identifier_conflict');
  });
});

describe('order paid over x402 (issue 3 §8)', () => {
  it('offers x402_usdc in payment options and marks the order paid through the workflow', async () => {
    const created = await stack.call('POST', '/api/v1/orders', {
      service_id: 'smart-consultation',
      inputs: { type: 'visa', description: 'Move to Spain' },
    });
    expect(created.status).toBe(201);
    const order = created.body;
    const asBuyer = { authorization: `Bearer ${order.order_secret}` };
    expect(order.payment_options.rails).toContain('x402_usdc');
    expect(order.payment_options.x402_usdc).toMatchObject({
      resource: `${stack.url}/x402/orders/${order.order_id}`,
      network: 'eip155:8453',
      asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
      amount: String(order.amount_micros),
    });
    // Paying the order is the buyer's action: without its credential there is no challenge.
    expect((await stack.call('POST', `/x402/orders/${order.order_id}`)).status).toBe(401);
    const { required } = await challenge(`/x402/orders/${order.order_id}`, { method: 'POST', headers: asBuyer });
    expect(required.accepts[0]?.amount).toBe(String(order.amount_micros));

    const { result: res, payTo: dp } = await deltas(() =>
      pay(order.payment_options.x402_usdc.resource, { method: 'POST', headers: asBuyer }),
    );
    expect(res.status).toBe(200);
    const body = (await res.json()) as {
      order: { status: string; payment: { rail: string; transaction_id: string } };
      payment: { transaction: string };
    };
    expect(body.order.payment).toMatchObject({ rail: 'x402_usdc', transaction_id: body.payment.transaction });
    expect(dp).toBe(BigInt(order.amount_micros));
    const delivered = await waitForOrder(stack, order.order_id, (o) => o.status === 'delivered');
    expect(delivered.payment.rail).toBe('x402_usdc');

    // Paid: no second x402 payment is asked.
    expect((await stack.call('POST', `/x402/orders/${order.order_id}`, undefined, asBuyer)).status).toBe(409);
  });

  it('refuses x402 for services without the rail, and a transaction hash that paid something else', async () => {
    const noRail = await stack.call('POST', '/api/v1/orders', {
      service_id: 'robot-control-system',
      inputs: { robot_type: 'arm', controller: 'ros2', objective: 'pick' },
    });
    expect(
      (
        await stack.call('POST', `/x402/orders/${noRail.body.order_id}`, undefined, {
          authorization: `Bearer ${noRail.body.order_secret}`,
        })
      ).status,
    ).toBe(422);

    const itemBuy = await pay(`${stack.url}/x402/item/${cheapItem.id}`);
    const tx = paymentResponseOf(itemBuy).transaction;
    const order = await stack.call('POST', '/api/v1/orders', {
      service_id: 'smart-consultation',
      inputs: { type: 'visa', description: 'x' },
    });
    const confirm = await stack.call('POST', `/api/v1/orders/${order.body.order_id}/confirm_payment`, {
      rail: 'x402_usdc',
      transaction_id: tx,
    });
    expect(confirm.status).toBe(409);
    expect(confirm.body.code).toBe('transaction_already_used');
    const unknown = await stack.call('POST', `/api/v1/orders/${order.body.order_id}/confirm_payment`, {
      transaction_id: `0x${'ab'.repeat(32)}`,
    });
    expect(unknown.status).toBe(402);
    expect(unknown.body.code).toBe('transaction_not_found');
  });
});

describe('ledger, discovery and catalogue', () => {
  it('the ledger pages through every payment and its settled sum equals the on-chain balance changes to the micro-unit', async () => {
    const seen: {
      status: string;
      amount_micros: number;
      payer: string;
      transaction: string | null;
      network: string;
      resource: string;
      created_at: string;
    }[] = [];
    let url: string | null = '/api/v1/x402/payments?limit=7';
    let pages = 0;
    while (url) {
      const res = await stack.call('GET', url.replace(stack.url, ''), undefined, { 'x-operator-key': OPERATOR_KEY });
      expect(res.status).toBe(200);
      seen.push(...res.body.payments);
      url = res.body.next;
      pages++;
    }
    expect(pages).toBeGreaterThan(1);
    expect(new Set(seen.map((p) => JSON.stringify(p))).size).toBe(seen.length);
    const settled = seen.filter((p) => p.status === 'settled');
    for (const p of settled) {
      expect(p.transaction).toMatch(/^0x[0-9a-f]{64}$/);
      expect(p).toMatchObject({ network: 'eip155:8453', payer: buyer.toLowerCase() });
      expect(p.resource).toMatch(new RegExp(`^${stack.url}/x402/`));
    }
    expect(new Set(settled.map((p) => p.transaction)).size).toBe(settled.length);
    const total = settled.reduce((s, p) => s + BigInt(p.amount_micros), 0n);
    expect((await chain.balance(payTo)) - payToStart).toBe(total);
    expect(buyerStart - (await chain.balance(buyer))).toBe(total);
    const times = seen.map((p) => Date.parse(p.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);

    const bad = await stack.call('GET', '/api/v1/x402/payments?cursor=garbage', undefined, {
      'x-operator-key': OPERATOR_KEY,
    });
    expect(bad.status).toBe(400);

    // Others see no full ledger, only a payment they name by its transaction hash, without the order it paid.
    expect((await stack.call('GET', '/api/v1/x402/payments')).status).toBe(401);
    expect(
      (await stack.call('GET', '/api/v1/x402/payments', undefined, { authorization: 'Bearer ak_someone' })).status,
    ).toBe(403);
    const mine = settled.find((p) => p.resource.includes('/x402/orders/'))!; // paid an order: the order id stays hidden
    const own = await stack.call('GET', `/api/v1/x402/payments?transaction=${mine.transaction}`);
    expect(own.status).toBe(200);
    expect(own.body.payments).toEqual([
      expect.objectContaining({
        transaction: mine.transaction,
        amount_micros: mine.amount_micros,
        resource: `${stack.url}/x402/orders/{order_id}`,
        resource_ref: null,
      }),
    ]);
    expect(own.body.payments[0]).not.toHaveProperty('order_id');
    expect(own.body.payments[0]).not.toHaveProperty('error_message');
  });

  it('serves the discovery document of seed 2.13 with a live facilitator check', async () => {
    const res = await stack.call('GET', '/.well-known/x402');
    expect(res.status).toBe(200);
    const doc = res.body;
    const micro = (await stack.call('GET', '/api/v1/x402/micro')).body;
    expect(doc).toMatchObject({
      x402_version: 2,
      enabled: true,
      facilitator: chain.facilitatorUrl,
      wallet: payTo,
      currency: 'USDC',
      network: 'eip155:8453',
      item_count: 489 + 6,
      micro_tier: {
        name: micro.name,
        count: 489,
        price_range_usd: micro.price_range,
        total_value_usd: micro.total_value_usd,
        why: micro.why,
        catalogue: `${stack.url}/api/v1/x402/micro`,
      },
      facilitator_network_support: { supported: true },
    });
    expect(typeof doc.note).toBe('string');
    expect(typeof doc.micro_tier.buy).toBe('string');
    expect(doc.facilitator_network_support.detail).toContain(ANVIL_ADDRESSES.facilitator);
    const rows = doc.resources.map((r: Record<string, unknown>) => [
      r.resource,
      r.price_usd,
      r.amount,
      r.priced_per_item,
    ]);
    expect(rows).toEqual([
      [`${stack.url}/x402/template`, null, null, true],
      [`${stack.url}/x402/audit`, 49, '49000000', false],
      [`${stack.url}/x402/agent-starter`, 149, '149000000', false],
      [`${stack.url}/x402/obs/tick`, 0.001, '1000', false],
      [`${stack.url}/x402/obs/agents`, 0.3, '300000', false],
      [`${stack.url}/x402/obs/methodology`, 0.1, '100000', false],
    ]);
    for (const r of doc.resources) {
      expect(r).toMatchObject({
        asset: 'USDC',
        asset_address: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
        network: 'eip155:8453',
        scheme: 'exact',
        pay_to: payTo,
        description: expect.any(String),
      });
    }
    expect(doc.resources[0]).toMatchObject({
      price_range: { count: 18, min_usd: 19, max_usd: 362 },
      how_to_price_it: expect.stringContaining('/api/v1/x402/templates'),
    });
  });

  it('describes every x402 endpoint in the OpenAPI document', async () => {
    const doc = (await stack.call('GET', '/api/v1/openapi.json')).body;
    for (const p of [
      '/api/v1/x402/micro',
      '/api/v1/x402/templates',
      '/x402/item/{id}',
      '/x402/template',
      '/x402/audit',
      '/x402/agent-starter',
      '/x402/obs/tick',
      '/x402/obs/agents',
      '/x402/obs/methodology',
      '/x402/orders/{order_id}',
      '/.well-known/x402',
      '/api/v1/x402/payments',
    ]) {
      expect({ p, present: p in doc.paths }).toEqual({ p, present: true });
    }
    expect(doc.paths['/x402/audit'].post.responses['402'].headers['PAYMENT-REQUIRED']).toBeDefined();
  });

  it('serves the micro catalogue envelope of seed 2.12 computed from its items', async () => {
    const env = (await stack.call('GET', '/api/v1/x402/micro')).body;
    expect(env).toMatchObject({ tier: 'impulse', version: 2, currency: 'USD', count: 489 });
    expect(env.items).toHaveLength(489);
    const micros = env.items.map((i: { price: number }) => Math.round(i.price * 1_000_000));
    expect(env.total_value_usd * 1_000_000).toBeCloseTo(
      micros.reduce((a: number, b: number) => a + b, 0),
      0,
    );
    expect(env.price_range).toEqual([Math.min(...micros) / 1e6, Math.max(...micros) / 1e6]);
    expect(Object.values(env.by_kind).reduce((a, b) => (a as number) + (b as number), 0)).toBe(489);
    expect(env.how_to_buy).toHaveLength(3);
    expect(env.endpoints).toEqual({
      catalogue: `${stack.url}/api/v1/x402/micro`,
      discovery: `${stack.url}/.well-known/x402`,
      ledger: `${stack.url}/api/v1/x402/payments`,
    });
  });

  it("the observation tick counts this test file's own agent traffic", async () => {
    for (let i = 0; i < 3; i++)
      await fetch(`${stack.url}/api/v1/services`, {
        headers: { 'user-agent': 'obs-probe/1.0', 'x-agent-id': 'obs-probe' },
      });
    const res = await pay(`${stack.url}/x402/obs/tick`);
    const tick = (await res.json()) as {
      agent_visits: number;
      distinct_identities: number;
      single_endpoint_share: number;
    };
    expect(tick.agent_visits).toBeGreaterThanOrEqual(3);
    expect(tick.distinct_identities).toBeGreaterThanOrEqual(2);
    expect(tick.single_endpoint_share).toBeGreaterThan(0);
    expect(tick.single_endpoint_share).toBeLessThanOrEqual(1);
  });
});

describe('facilitator down', () => {
  it('answers paid resources 502 facilitator_error and reports the network unsupported in the discovery document', async () => {
    const config = { ...stack.config, X402_FACILITATOR_URL: `http://127.0.0.1:${await freePort()}` };
    const app = createApp({
      config,
      services: stack.services,
      temporal: stack.client,
      orderWorkflows: new OrderWorkflows(stack.client, config.TEMPORAL_TASK_QUEUE),
    });
    const server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    try {
      const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
      const res = await fetch(`${base}/x402/item/${item.id}`);
      expect(res.status).toBe(502);
      expect(await res.json()).toMatchObject({ code: 'facilitator_error' });
      const doc = (await (await fetch(`${base}/.well-known/x402`)).json()) as {
        facilitator_network_support: { supported: boolean; detail: string };
      };
      expect(doc.facilitator_network_support.supported).toBe(false);
      expect(doc.facilitator_network_support.detail).toContain('failed');
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
    }
  });
});
