/**
 * UCP business side (issue 37 §2), against the real API, worker, Temporal server and database: platforms identified by
 * their profiles (served here on a local server) and RFC 9421 signatures buy catalogue services through UCP checkout
 * sessions, on the agent wallet (a delegated token) and the hosted link (requires_escalation, continue_url). Every UCP
 * message is validated against the copied UCP JSON schemas (ajv 2020-12, ../helpers/ucpSchemas.ts), beside the
 * service's OpenAPI document (stack.call). Refusals: each with the spec's code and status.
 */
import { createPublicKey } from 'node:crypto';
import { createVerifier, httpbis } from 'http-message-signatures';
import { contentDigest } from '../../src/ucp/signatures';
import { UCP_VERSION } from '../../src/ucp/profiles';
import { fundedAgent, startStack, type ApiResponse, type Stack } from '../helpers/stack';
import { platformKey, platformProfile, profileServer, UcpPlatform } from '../helpers/ucpClient';
import { UCP, ucpConforms } from '../helpers/ucpSchemas';

let stack: Stack;
let profiles: Awaited<ReturnType<typeof profileServer>>;
let alice: UcpPlatform;
let bob: UcpPlatform;

/** Expects a UCP protocol error `{code, content}` with `status`. */
function refused(res: ApiResponse, status: number, code: string): void {
  expect({ status: res.status, code: (res.body as { code?: string })?.code }).toEqual({ status, code });
  expect(Object.keys(res.body as object).sort()).toEqual(['code', 'content']);
}

/** A checkout answer: validated against checkout.json. */
function checkout(res: ApiResponse, status = 200): Record<string, any> {
  expect(res.status).toBe(status);
  ucpConforms(UCP.checkout, res.body);
  return res.body as Record<string, any>;
}

const INPUTS: Record<string, Record<string, string>> = {
  'automation-wf': { workflow_type: 'new order notification', source_app: 'Shopify', target_app: 'Slack' },
  'integration-project': { systems: 'Shopify, NetSuite', direction: 'bidirectional', volume: '5k orders per day' },
  'automation-audit': {
    business_description: 'Logistics company typing phone orders into Excel',
    current_tools: 'Excel, Gmail, QuickBooks',
    pain_points: 'Late invoices; double data entry',
  },
};

const createBody = (serviceId: string, inputs?: Record<string, string>) => ({
  line_items: [{ item: { id: serviceId }, quantity: 1 }],
  buyer: { email: 'buyer@example.com' },
  ...(inputs ? { service_inputs: inputs } : {}),
});

/** A created session, validated as a create request and a checkout answer. */
async function create(p: UcpPlatform, serviceId: string, inputs?: Record<string, string>) {
  const body = createBody(serviceId, inputs);
  ucpConforms(UCP.checkout, body, 'create');
  return checkout(await p.send('create_checkout', { body }), 201);
}

beforeAll(async () => {
  stack = await startStack();
  profiles = await profileServer();
  const a = platformKey('alice-2026');
  const b = platformKey('bob-2026');
  const hook = `${profiles.base}/hooks/alice`;
  for (const [name, doc] of [
    ['/alice/.well-known/ucp', platformProfile([a.jwk], hook)],
    ['/bob/.well-known/ucp', platformProfile([b.jwk], `${profiles.base}/hooks/bob`)],
    ['/old/.well-known/ucp', platformProfile([a.jwk], hook, '2026-01-11')],
    ['/malformed/.well-known/ucp', { ucp: { version: UCP_VERSION, services: {} }, keys: [a.jwk] }],
    ['/notjson/.well-known/ucp', '<html>not a profile</html>'],
  ] as const) {
    if (typeof doc !== 'string' && name !== '/malformed/.well-known/ucp') ucpConforms(UCP.platformProfile, doc);
    profiles.set(name, doc);
  }
  alice = new UcpPlatform(stack, `${profiles.base}/alice/.well-known/ucp`, {
    privateKey: a.privateKey,
    kid: 'alice-2026',
  });
  bob = new UcpPlatform(stack, `${profiles.base}/bob/.well-known/ucp`, { privateKey: b.privateKey, kid: 'bob-2026' });
}, 120_000);

afterAll(async () => {
  await profiles?.close();
  await stack?.stop();
});

test('the profile at /.well-known/ucp: version, REST service, checkout and order, payment handlers, our signing keys', async () => {
  const res = await stack.call('GET', '/.well-known/ucp');
  expect(res.status).toBe(200);
  ucpConforms(UCP.businessProfile, res.body);
  expect(res.headers.get('cache-control')).toMatch(/public, max-age=\d+/);
  const profile = res.body as Record<string, any>;
  expect(profile.ucp.version).toBe(UCP_VERSION);
  expect(profile.ucp.services['dev.ucp.shopping'][0]).toMatchObject({ transport: 'rest', endpoint: stack.url });
  expect(Object.keys(profile.ucp.capabilities).sort()).toEqual([
    'dev.ucp.shopping.ap2_mandate',
    'dev.ucp.shopping.checkout',
    'dev.ucp.shopping.order',
  ]);
  expect(profile.ucp.capabilities['dev.ucp.shopping.ap2_mandate'][0]).toMatchObject({
    extends: 'dev.ucp.shopping.checkout',
    config: { vp_formats_supported: { 'dc+sd-jwt': {} } },
  });
  expect(Object.keys(profile.ucp.payment_handlers).sort()).toEqual([
    'dev.agent_commerce.agent_wallet',
    'dev.agent_commerce.hosted_link',
  ]);
  // The keys are the ones that sign quotes and receipts.
  const jwks = (await stack.call('GET', '/.well-known/jwks.json')).body as { keys: { kid: string; x: string }[] };
  expect(profile.keys.map((k: { kid: string; x: string }) => [k.kid, k.x])).toEqual(jwks.keys.map((k) => [k.kid, k.x]));
});

/** Verifies a signed answer with the business profile's keys (RFC 9421 over @status, Content-Digest, Content-Type). */
async function verifyAnswer(res: ApiResponse): Promise<void> {
  const profile = (await stack.call('GET', '/.well-known/ucp')).body as { keys: Record<string, unknown>[] };
  expect(res.headers.get('content-digest')).toBe(contentDigest(res.text));
  const headers: Record<string, string> = {};
  res.headers.forEach((v, k) => (headers[k] = v));
  expect(headers['signature-input']).toMatch(/^sig1=\("@status" "content-digest" "content-type"\);created=\d+;keyid="/);
  const ok = await httpbis.verifyMessage(
    {
      keyLookup: async (params) => {
        const jwk = profile.keys.find((k) => k.kid === params.keyid);
        return jwk
          ? {
              id: String(jwk.kid),
              algs: ['ed25519'],
              verify: createVerifier(createPublicKey({ key: jwk as any, format: 'jwk' }), 'ed25519'),
            }
          : null;
      },
      requiredFields: ['@status', 'content-digest', 'content-type'],
    },
    { status: res.status, headers },
  );
  expect(ok).toBe(true);
}

test('a platform buys services with the agent wallet: incomplete until the inputs come, then completed and signed', async () => {
  const agentKey = await fundedAgent(stack, 'ucp-buyer', 500);
  for (const [serviceId, inputs] of Object.entries(INPUTS)) {
    const open = await create(alice, serviceId);
    expect(open.status).toBe('incomplete');
    // One recoverable `missing` message per required input, at its path.
    const paths = open.messages.map((m: { path: string }) => m.path) as string[];
    expect(paths.length).toBeGreaterThan(0);
    for (const p of paths) expect(Object.keys(inputs).map((n) => `$.service_inputs.${n}`)).toContain(p);
    const update = { ...createBody(serviceId, inputs), id: open.id };
    ucpConforms(UCP.checkout, update, 'update');
    const ready = checkout(await alice.send('update_checkout', { id: open.id, body: update }));
    expect(ready.status).toBe('ready_for_complete');

    const delegated = await stack.call(
      'POST',
      '/agentic_commerce/delegate_payment',
      {
        allowance: {
          reason: 'one_time',
          max_amount: ready.totals.find((t: { type: string }) => t.type === 'total').amount,
          currency: 'usd',
          checkout_session_id: open.id,
          merchant_id: 'agent-commerce',
          expires_at: new Date(Date.now() + 3_600_000).toISOString(),
        },
      },
      { authorization: `Bearer ${agentKey}`, 'api-version': '2026-04-17', 'idempotency-key': `ucp-${serviceId}-tok` },
    );
    expect(delegated.status).toBe(201);
    const complete = {
      payment: {
        instruments: [
          {
            id: 'pi_1',
            handler_id: 'agent_wallet',
            type: 'agent_wallet',
            selected: true,
            credential: { type: 'delegated_token', token: delegated.body.id },
          },
        ],
      },
    };
    ucpConforms(UCP.checkout, complete, 'complete');
    const res = await alice.send('complete_checkout', { id: open.id, body: complete });
    const done = checkout(res);
    expect(done.status).toBe('completed');
    expect(done.order.permalink_url).toBe(`${stack.url}/api/v1/orders/${done.order.id}`);
    await verifyAnswer(res);
    const order = await stack.services.orders.get(done.order.id);
    expect(order?.payment).toBeTruthy();
    expect(order?.agent_id).toBe('ucp-buyer');
    expect(checkout(await alice.send('get_checkout', { id: open.id })).status).toBe('completed');
  }
}, 120_000);

test("the platform's order webhook gets each order's events, signed with the business profile's keys (RFC 9421)", async () => {
  // The orders alice bought above (the wallet test): automation-wf is delivered within seconds.
  const profile = (await stack.call('GET', '/.well-known/ucp')).body as { keys: Record<string, unknown>[] };
  const deadline = Date.now() + 30_000;
  let hooks: typeof profiles.received = [];
  const delivered = () =>
    hooks.some(
      (h) => (JSON.parse(h.body) as { line_items: { status: string }[] }).line_items[0]?.status === 'fulfilled',
    );
  while (Date.now() < deadline) {
    hooks = profiles.received.filter((h) => h.path === '/hooks/alice');
    if (delivered()) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  expect(delivered()).toBe(true);
  const byOrder = new Map<string, string[]>();
  for (const h of hooks) {
    const body = JSON.parse(h.body) as Record<string, any>;
    ucpConforms(UCP.order, body);
    expect(h.headers['ucp-agent']).toBe(`profile="${stack.url}/.well-known/ucp"`);
    expect(h.headers['webhook-id']).toMatch(/\S/);
    expect(Number(h.headers['webhook-timestamp'])).toBeGreaterThan(0);
    expect(h.headers['content-digest']).toBe(contentDigest(h.body));
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(h.headers)) if (typeof v === 'string') headers[k] = v;
    const ok = await httpbis.verifyMessage(
      {
        keyLookup: async (params) => {
          const jwk = profile.keys.find((k) => k.kid === params.keyid);
          return jwk
            ? {
                id: String(jwk.kid),
                algs: ['ed25519'],
                verify: createVerifier(createPublicKey({ key: jwk as any, format: 'jwk' }), 'ed25519'),
              }
            : null;
        },
        requiredFields: ['@method', '@authority', '@path', 'ucp-agent', 'content-digest', 'content-type'],
      },
      { method: 'POST', url: `${profiles.base}${h.path}`, headers },
    );
    expect(ok).toBe(true);
    byOrder.set(body.id, [...(byOrder.get(body.id) ?? []), body.line_items[0].status]);
  }
  // In order per order: processing until delivered, then fulfilled (and never back).
  for (const statuses of byOrder.values()) {
    const first = statuses.indexOf('fulfilled');
    if (first >= 0) expect(statuses.slice(first).every((st) => st === 'fulfilled')).toBe(true);
  }
  // Bob's hook got nothing of alice's orders.
  expect(profiles.received.filter((h) => h.path === '/hooks/bob')).toHaveLength(0);
}, 60_000);

test("Get Order: the platform reads its orders' current state (order.json); another platform's or an unknown one is not_found", async () => {
  // The orders alice bought above (the wallet test).
  const sessions = await stack.services.db.checkoutSessions
    .find({ 'ucp.profile_url': alice.profileUrl, status: 'completed' })
    .toArray();
  expect(sessions.length).toBeGreaterThan(0);
  for (const session of sessions) {
    const res = await alice.send('get_order', { id: session.order_id });
    expect(res.status).toBe(200);
    ucpConforms(UCP.order, res.body);
    const order = await stack.services.orders.get(session.order_id);
    expect(res.body).toMatchObject({
      id: session.order_id,
      checkout_id: session._id,
      permalink_url: `${stack.url}/api/v1/orders/${session.order_id}`,
      line_items: [{ item: { id: order?.service_id, price: Math.round((order?.amount_micros ?? 0) / 10_000) } }],
    });
    const line = res.body.line_items[0].status as string;
    expect(line).toBe(['delivered', 'accepted'].includes(order?.status ?? '') ? 'fulfilled' : 'processing');

    // Bob signs correctly but did not place it: the spec's not_found, as for an id that does not exist.
    const stranger = await bob.send('get_order', { id: session.order_id });
    expect(stranger.status).toBe(200);
    ucpConforms(UCP.errorResponse, stranger.body);
    expect(stranger.body.messages[0]).toMatchObject({ code: 'not_found', severity: 'unrecoverable' });
    expect(JSON.stringify(stranger.body)).not.toContain(session._id);
  }
  const unknown = await alice.send('get_order', { id: 'ord_does_not_exist' });
  ucpConforms(UCP.errorResponse, unknown.body);
  expect(unknown.body.messages[0].code).toBe('not_found');
  refused(await alice.send('get_order', { id: sessions[0]!.order_id }, { sign: false }), 401, 'signature_missing');
});

test('the hosted link: complete answers requires_escalation with the hosted page as continue_url', async () => {
  const open = await create(alice, 'automation-wf', INPUTS['automation-wf']);
  const res = await alice.send('complete_checkout', {
    id: open.id,
    body: { payment: { instruments: [{ id: 'pi_h', handler_id: 'hosted_link', type: 'hosted_link' }] } },
  });
  const esc = checkout(res);
  expect(esc.status).toBe('requires_escalation');
  expect(esc.continue_url).toMatch(new RegExp(`^${stack.url}/pay/orders/ord_[^?]+\\?secret=os_`));
  expect(esc.messages).toContainEqual(expect.objectContaining({ severity: 'requires_buyer_input' }));
  await verifyAnswer(res);
  const page = await fetch(esc.continue_url);
  expect(page.status).toBe(200);
});

test('complete on a session missing inputs answers it incomplete with its messages; cancel, then cancel again is 405', async () => {
  const open = await create(alice, 'automation-wf');
  const early = checkout(
    await alice.send('complete_checkout', {
      id: open.id,
      body: { payment: { instruments: [{ id: 'pi_h', handler_id: 'hosted_link', type: 'hosted_link' }] } },
    }),
  );
  expect(early.status).toBe('incomplete');
  expect(checkout(await alice.send('cancel_checkout', { id: open.id, body: {} })).status).toBe('canceled');
  refused(await alice.send('cancel_checkout', { id: open.id, body: {} }), 405, 'checkout_session_not_cancelable');
});

test('an item that is not for sale is a business outcome: error_response, item_unavailable', async () => {
  const res = await alice.send('create_checkout', { body: createBody('no-such-service') });
  expect(res.status).toBe(200);
  ucpConforms(UCP.errorResponse, res.body);
  expect(res.body.messages[0]).toMatchObject({ code: 'item_unavailable', severity: 'unrecoverable' });
});

describe('refusals, each with the spec answer', () => {
  test('unsigned: 401 signature_missing; no UCP-Agent: 400 invalid_profile_url', async () => {
    refused(
      await alice.send('create_checkout', { body: createBody('automation-wf') }, { sign: false }),
      401,
      'signature_missing',
    );
    refused(
      await alice.send('create_checkout', { body: createBody('automation-wf') }, { profileUrl: null }),
      400,
      'invalid_profile_url',
    );
  });

  test('tampered signature, tampered body, unknown key, stale created', async () => {
    const body = createBody('automation-wf', INPUTS['automation-wf']);
    refused(await alice.send('create_checkout', { body }, { tamperSignature: true }), 401, 'signature_invalid');
    refused(
      await alice.send('create_checkout', { body }, { tamperBody: (b) => b.replace('Shopify', 'Shopifx') }),
      400,
      'digest_mismatch',
    );
    refused(await alice.send('create_checkout', { body }, { keyid: 'not-in-the-profile' }), 401, 'key_not_found');
    refused(
      await alice.send('create_checkout', { body }, { created: new Date(Date.now() - 3_600_000) }),
      401,
      'signature_invalid',
    );
    // Signed by bob's key but claiming alice's profile: alice's keys do not verify it.
    const impostor = new UcpPlatform(stack, alice.profileUrl, {
      privateKey: platformKey('alice-2026').privateKey,
      kid: 'alice-2026',
    });
    refused(await impostor.send('create_checkout', { body }), 401, 'signature_invalid');
  });

  test('profiles: wrong version 422, malformed 422, unreachable 424', async () => {
    const body = createBody('automation-wf');
    const as = (p: string) => alice.send('create_checkout', { body }, { profileUrl: `${profiles.base}${p}` });
    refused(await as('/old/.well-known/ucp'), 422, 'version_unsupported');
    refused(await as('/malformed/.well-known/ucp'), 422, 'profile_malformed');
    refused(await as('/notjson/.well-known/ucp'), 422, 'profile_malformed');
    refused(await as('/missing/.well-known/ucp'), 424, 'profile_unreachable');
    refused(
      await alice.send('create_checkout', { body }, { profileUrl: 'http://127.0.0.1:9/.well-known/ucp' }),
      424,
      'profile_unreachable',
    );
  });

  test('Idempotency-Key: the same body replays the first answer, another body is 409', async () => {
    const key = '5b7e1f9c-8a3d-4c2b-9e6f-0a1b2c3d4e5f';
    const first = await alice.send('create_checkout', { body: createBody('automation-wf') }, { idempotencyKey: key });
    const again = await alice.send('create_checkout', { body: createBody('automation-wf') }, { idempotencyKey: key });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body.id).toBe(first.body.id);
    refused(
      await alice.send('create_checkout', { body: createBody('integration-project') }, { idempotencyKey: key }),
      409,
      'idempotency_key_reused',
    );
    // Another platform's same key is its own.
    expect(
      (await bob.send('create_checkout', { body: createBody('integration-project') }, { idempotencyKey: key })).status,
    ).toBe(201);
  });

  test("another platform cannot forge a platform's Idempotency-Key scope with an Authorization header", async () => {
    // Alice's key and body; Bob, signing as himself, adds `Authorization` spelling out the scope string Alice's keys
    // were kept under. He must get a session of his own, not a replay of Alice's.
    const key = 'a4c1e2d3-5f6a-4b7c-8d9e-0f1a2b3c4d5e';
    const body = createBody('automation-wf', INPUTS['automation-wf']);
    const first = await alice.send('create_checkout', { body }, { idempotencyKey: key });
    expect(first.status).toBe(201);
    for (const forged of [`ucp ${alice.profileUrl}`, JSON.stringify(['', '', `ucp ${alice.profileUrl}`])]) {
      const stolen = await bob.send(
        'create_checkout',
        { body },
        { idempotencyKey: key, extraHeaders: { authorization: forged } },
      );
      expect(stolen.headers.get('idempotent-replayed')).toBeNull();
      expect(stolen.body.id).not.toBe(first.body.id);
    }
    // Alice still replays her own.
    const again = await alice.send('create_checkout', { body }, { idempotencyKey: key });
    expect(again.body.id).toBe(first.body.id);
  });

  test("a stranger platform cannot see or act on another's session (404)", async () => {
    const open = await create(alice, 'automation-wf');
    refused(await bob.send('get_checkout', { id: open.id }), 404, 'checkout_session_not_found');
    refused(await bob.send('cancel_checkout', { id: open.id, body: {} }), 404, 'checkout_session_not_found');
    expect(checkout(await alice.send('get_checkout', { id: open.id })).status).toBe('incomplete');
  });
});
