/**
 * The checkout protocols' MCP bindings on `/mcp` (issue 37 §1 and §2), with the official MCP client
 * (`@modelcontextprotocol/sdk` Client over Streamable HTTP) against the real API, worker, Temporal server and database:
 * - ACP 2026-04-17 (spec/2026-04-17/openrpc/openrpc.agentic_checkout.json): the platform's API key on the MCP request,
 *   `meta` as the REST headers, results validated against the copied JSON schemas, failures as JSON-RPC -32000 with
 *   ACP's Error as data (examples.mcp.agentic_checkout.json);
 * - UCP (source/services/shopping/mcp.openrpc.json), at the MCP endpoint /.well-known/ucp advertises: every MCP request
 *   signed with RFC 9421 by a key of the platform's profile (signatures.md, "MCP Transport"), results validated against
 *   checkout.json, failures with UCP's JSON-RPC codes and `{code, content}`.
 * A session of each is created, updated and completed with a delegated agent-wallet token; the order and the wallet
 * are checked.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { createPublicKey, randomUUID, type KeyObject } from 'node:crypto';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { createSigner, createVerifier, httpbis } from 'http-message-signatures';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { contentDigest } from '../../src/ucp/signatures';
import { ACP_FIXTURES, ACP_VERSION, conforms, issuePlatform } from '../helpers/acpSpec';
import { signAcpRequest, type AcpSigningKey } from '../../src/http/acpSignature';
import { OPERATOR_KEY, fundedAgent, startStack, type Stack } from '../helpers/stack';
import { platformKey, platformProfile, profileServer } from '../helpers/ucpClient';
import { UCP, ucpConforms } from '../helpers/ucpSchemas';

const UCP_FIXTURES = path.join(__dirname, '..', 'fixtures', 'ucp-2026-08-22');
const ACP_RPC = JSON.parse(fs.readFileSync(path.join(ACP_FIXTURES, 'openrpc.agentic_checkout.json'), 'utf8'));
const ACP_MCP_EXAMPLES = JSON.parse(
  fs.readFileSync(path.join(ACP_FIXTURES, 'examples.mcp.agentic_checkout.json'), 'utf8'),
);
const UCP_RPC = JSON.parse(
  fs.readFileSync(path.join(UCP_FIXTURES, 'services', 'shopping', 'mcp.openrpc.json'), 'utf8'),
);
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
/** The bindings' `meta` schemas, which every call's meta is checked against. */
const acpMeta = ajv.compile(ACP_RPC.components.schemas.meta);
const ucpMeta = ajv.compile(UCP_RPC.components.schemas.meta);

const automationInputs = { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' };

let stack: Stack;
let profiles: Awaited<ReturnType<typeof profileServer>>;
let acpKey: string;
let otherAcpKey: string;
const clients: Client[] = [];

beforeAll(async () => {
  stack = await startStack();
  profiles = await profileServer();
  acpKey = await issuePlatform(stack, 'mcp-platform');
  otherAcpKey = await issuePlatform(stack, 'mcp-other-platform');
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await profiles?.close();
  await stack?.stop();
});

/** A connected client whose every HTTP request goes through `fetchFn` (default: plain, with `headers`). */
async function connect(
  headers: Record<string, string> = {},
  fetchFn?: typeof fetch,
  endpoint = `${stack.url}/mcp`,
): Promise<Client> {
  const client = new Client({ name: 'checkout-mcp-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(endpoint), {
      requestInit: { headers },
      ...(fetchFn ? { fetch: fetchFn } : {}),
    }),
  );
  clients.push(client);
  return client;
}

type Json = any;

/** Calls a tool that must succeed; its structured content. */
async function ok(client: Client, name: string, args: Record<string, unknown>): Promise<Json> {
  const res = await client.callTool({ name, arguments: args });
  expect(res.isError).not.toBe(true);
  const text = (res.content as { type: string; text: string }[])[0]?.text ?? '';
  expect(JSON.parse(text)).toEqual(res.structuredContent);
  return res.structuredContent;
}

/** Calls a tool that must fail with a JSON-RPC error; its code, message and data. */
async function fails(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<{ code: number; message: string; data: Json }> {
  try {
    await client.callTool({ name, arguments: args });
  } catch (err) {
    expect(err).toBeInstanceOf(McpError);
    const e = err as McpError;
    return { code: e.code, message: e.message, data: e.data };
  }
  throw new Error(`${name} did not fail`);
}

/** ACP `meta` for a call (checked against the binding's meta schema). */
function meta(extra: Record<string, unknown> = {}): Record<string, unknown> {
  const m = { api_version: ACP_VERSION, user_agent: 'checkout-mcp-test/1.0', ...extra };
  expect(acpMeta(m)).toBe(true);
  return m;
}

/** A delegated wallet token (the PSP side, REST) for `sessionId` up to `maxAmount` cents. */
async function delegate(agentKey: string, sessionId: string, maxAmount: number): Promise<string> {
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
  return res.body.id as string;
}

test('tools/list offers the ACP and UCP checkout tools; /ucp/mcp serves UCP’s binding with get_order; the bindings’ argument names', async () => {
  const client = await connect();
  const { tools } = await client.listTools();
  const byName = new Map(tools.map((t) => [t.name, t]));
  for (const m of ACP_RPC.methods as { name: string; params: { name: string; required?: boolean }[] }[]) {
    const tool = byName.get(m.name);
    expect(tool).toBeDefined();
    expect(Object.keys(tool!.inputSchema.properties ?? {}).sort()).toEqual(m.params.map((p) => p.name).sort());
    expect(tool!.inputSchema.required).toEqual(
      expect.arrayContaining(m.params.filter((p) => p.required).map((p) => p.name)),
    );
    expect(tool!.outputSchema).toBeDefined();
  }
  // UCP's binding at its own endpoint (the profile names it): the checkout tools and the order capability's get_order.
  const ucpTools = new Map(
    (await (await connect({}, undefined, `${stack.url}/ucp/mcp`)).listTools()).tools.map((t) => [t.name, t]),
  );
  const ucpMethods = (UCP_RPC.methods as { name: string; params: { name: string }[] }[]).filter(
    (m) => m.name.endsWith('_checkout') || m.name === 'get_order',
  );
  expect(ucpMethods).toHaveLength(6);
  expect([...ucpTools.keys()].sort()).toEqual(ucpMethods.map((m) => m.name).sort());
  for (const m of ucpMethods) {
    const tool = ucpTools.get(m.name);
    expect(Object.keys(tool!.inputSchema.properties ?? {}).sort()).toEqual(m.params.map((p) => p.name).sort());
    // /mcp serves the same checkout tools; its get_order is the seed's (order_id), not UCP's (meta, id).
    const onMain = byName.get(m.name);
    if (m.name === 'get_order') expect(onMain?.inputSchema.required).toContain('order_id');
    else expect(onMain?.inputSchema.properties).toEqual(tool!.inputSchema.properties);
  }
});

test('ACP over MCP: create → update → complete with a delegated wallet token, the order paid once, results per the schemas', async () => {
  const client = await connect({ authorization: `Bearer ${acpKey}` });
  const agentKey = await fundedAgent(stack, 'acp-mcp-buyer', 100);

  // The spec's own create example shape: meta with api_version, idempotency_key and user_agent; payload.
  const example = ACP_MCP_EXAMPLES.create_checkout_session_request.params.arguments;
  const createPayload = { line_items: [{ id: 'automation-wf' }], currency: 'usd', capabilities: {} };
  conforms('checkout#/$defs/CheckoutSessionCreateRequest', createPayload);
  const created = await ok(client, 'create_checkout_session', {
    meta: meta({ idempotency_key: `idem_${randomUUID()}`, user_agent: example.meta.user_agent }),
    payload: createPayload,
  });
  conforms('checkout#/$defs/CheckoutSession', created);
  expect(created.status).toBe('not_ready_for_payment');
  expect(created.messages.map((m: { param: string }) => m.param).sort()).toEqual(
    Object.keys(automationInputs)
      .map((k) => `$.metadata.inputs.${k}`)
      .sort(),
  );

  const updatePayload = { metadata: { inputs: automationInputs } };
  const updated = await ok(client, 'update_checkout_session', { meta: meta(), id: created.id, payload: updatePayload });
  conforms('checkout#/$defs/CheckoutSession', updated);
  expect(updated.status).toBe('ready_for_payment');
  const total = updated.totals.find((t: { type: string }) => t.type === 'total').amount as number;
  expect(total).toBe(6900);

  const read = await ok(client, 'get_checkout_session', { meta: meta(), id: created.id });
  conforms('checkout#/$defs/CheckoutSession', read);
  expect(read.status).toBe('ready_for_payment');

  const token = await delegate(agentKey, created.id, total);
  const completePayload = {
    payment_data: {
      handler_id: 'agent_wallet',
      instrument: { type: 'wallet_token', credential: { type: 'spt', token } },
    },
  };
  conforms('checkout#/$defs/CheckoutSessionCompleteRequest', completePayload);
  const idem = `idem_${randomUUID()}`;
  const done = await ok(client, 'complete_checkout_session', {
    meta: meta({ idempotency_key: idem }),
    id: created.id,
    payload: completePayload,
  });
  conforms('checkout#/$defs/CheckoutSessionWithOrder', done);
  expect(done.status).toBe('completed');
  expect(done.order).toMatchObject({
    checkout_session_id: created.id,
    permalink_url: `${stack.url}/api/v1/orders/${done.order.id}`,
  });
  // The books: one order, paid from the wallet the token delegated, debited once even when complete is retried.
  const order = await stack.services.orders.get(done.order.id);
  expect(order).toMatchObject({ agent_id: 'acp-mcp-buyer' });
  expect(order?.payment).toBeTruthy();
  expect(await stack.services.wallets.balance('acp-mcp-buyer')).toBe(100_000_000 - total * 10_000);
  const replay = await ok(client, 'complete_checkout_session', {
    meta: meta({ idempotency_key: idem }),
    id: created.id,
    payload: completePayload,
  });
  expect(replay.order.id).toBe(done.order.id);
  expect(await stack.services.wallets.balance('acp-mcp-buyer')).toBe(100_000_000 - total * 10_000);
  expect(await stack.services.db.orders.countDocuments({ agent_id: 'acp-mcp-buyer' })).toBe(1);

  // Cancel of a completed session: the REST answer (405) as -32000 with ACP's Error.
  const notCancelable = await fails(client, 'cancel_checkout_session', { meta: meta(), id: created.id });
  expect(notCancelable).toMatchObject({ code: -32000, data: { code: 'checkout_session_not_cancelable' } });
  conforms('checkout#/$defs/Error', notCancelable.data);

  // A session that is canceled.
  const other = await ok(client, 'create_checkout_session', { meta: meta(), payload: createPayload });
  const canceled = await ok(client, 'cancel_checkout_session', {
    meta: meta(),
    id: other.id,
    payload: { intent_trace: { reason_code: 'price_sensitivity' } },
  });
  conforms('checkout#/$defs/CheckoutSession', canceled);
  expect(canceled.status).toBe('canceled');
}, 120_000);

test('ACP over MCP refusals: JSON-RPC -32000 with the ACP Error, as the binding’s examples show', async () => {
  const session = await ok(await connect({ authorization: `Bearer ${acpKey}` }), 'create_checkout_session', {
    meta: meta(),
    payload: { line_items: [{ id: 'automation-wf' }], currency: 'usd', capabilities: {} },
  });

  // No platform key on the MCP request: 401; another platform's key: its session is not found (404).
  const anonymous = await fails(await connect(), 'get_checkout_session', { meta: meta(), id: session.id });
  expect(anonymous).toMatchObject({ code: -32000, data: { code: 'unauthorized', type: 'invalid_request' } });
  conforms('checkout#/$defs/Error', anonymous.data);
  const stranger = await fails(await connect({ authorization: `Bearer ${otherAcpKey}` }), 'get_checkout_session', {
    meta: meta(),
    id: session.id,
  });
  expect(stranger).toMatchObject({ code: -32000, data: { code: 'checkout_session_not_found' } });
  // An agent key is not a platform's: 403.
  const agentKey = await fundedAgent(stack, 'acp-mcp-stranger', 0);
  const agent = await fails(await connect({ authorization: `Bearer ${agentKey}` }), 'get_checkout_session', {
    meta: meta(),
    id: session.id,
  });
  expect(agent).toMatchObject({ code: -32000, data: { code: 'forbidden' } });

  const client = await connect({ authorization: `Bearer ${acpKey}` });
  // An unsupported version: 400 naming the supported one.
  const version = await fails(client, 'get_checkout_session', {
    meta: meta({ api_version: '2025-01-01' }),
    id: session.id,
  });
  expect(version).toMatchObject({ code: -32000, data: { type: 'invalid_request', param: 'API-Version' } });
  conforms('checkout#/$defs/Error', version.data);
  expect(version.message).toContain(ACP_VERSION);
  // A payload the REST operation refuses: the param is a JSONPath into the tool's arguments (the example's shape).
  const missing = await fails(client, 'create_checkout_session', {
    meta: meta(),
    payload: { line_items: [{ id: 'automation-wf' }], capabilities: {} },
  });
  expect(missing).toMatchObject({
    code: ACP_MCP_EXAMPLES.error_invalid_request.error.code,
    data: { type: 'invalid_request', param: ACP_MCP_EXAMPLES.error_invalid_request.error.data.param },
  });
  // No meta at all.
  const noMeta = await fails(client, 'get_checkout_session', { id: session.id });
  expect(noMeta).toMatchObject({
    code: -32000,
    data: { type: 'invalid_request', code: 'missing_required_field', param: '$.meta' },
  });
}, 60_000);

test('ACP over MCP for a platform with a signing key: meta.signature over the payload’s RFC 8785 JSON, verified as on REST', async () => {
  const key: AcpSigningKey = { alg: 'HS256', secret: `mcp-hmac-${'s'.repeat(32)}` };
  const issued = await stack.call(
    'POST',
    '/api/v1/acp/platforms',
    { name: 'mcp-signing-platform', request_signing: key },
    { authorization: `Bearer ${OPERATOR_KEY}` },
  );
  expect(issued.status).toBe(201);
  const client = await connect({ authorization: `Bearer ${issued.body.api_key}` });
  const payload = { line_items: [{ id: 'automation-wf' }], currency: 'usd', capabilities: {} };
  const timestamp = new Date().toISOString();
  const created = await ok(client, 'create_checkout_session', {
    meta: meta({ timestamp, signature: signAcpRequest(key, timestamp, payload) }),
    payload,
  });
  conforms('checkout#/$defs/CheckoutSession', created);
  // Unsigned, or signed over another payload: invalid_signature.
  const unsigned = await fails(client, 'create_checkout_session', { meta: meta(), payload });
  expect(unsigned).toMatchObject({ code: -32000, data: { code: 'invalid_signature' } });
  const tampered = await fails(client, 'create_checkout_session', {
    meta: meta({ timestamp, signature: signAcpRequest(key, timestamp, payload) }),
    payload: { ...payload, line_items: [{ id: 'task-worker' }] },
  });
  expect(tampered).toMatchObject({ code: -32000, data: { code: 'invalid_signature' } });
  // A read signs the empty body.
  const ts = new Date().toISOString();
  const read = await ok(client, 'get_checkout_session', {
    meta: meta({ timestamp: ts, signature: signAcpRequest(key, ts, undefined) }),
    id: created.id,
  });
  expect(read.id).toBe(created.id);
}, 60_000);

/** A fetch that signs every MCP request as a UCP platform (RFC 9421: Content-Digest, UCP-Agent; signatures.md). */
function signingFetch(
  profileUrl: string,
  key: { privateKey: KeyObject; kid: string },
  answers: { status: number; headers: Headers; text: string }[] = [],
): typeof fetch {
  return async (input, init = {}) => {
    const url = String(input instanceof Request ? input.url : input);
    const method = (init.method ?? 'GET').toUpperCase();
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((v, k) => (headers[k] = v));
    headers['ucp-agent'] = `profile="${profileUrl}"`;
    const fields = ['@method', '@authority', '@path', 'ucp-agent'];
    if (typeof init.body === 'string') {
      headers['content-digest'] = contentDigest(init.body);
      fields.push('content-digest', 'content-type');
    }
    const signed = await httpbis.signMessage(
      {
        key: createSigner(key.privateKey, 'ecdsa-p256-sha256', key.kid),
        name: 'sig1',
        fields,
        params: ['created', 'keyid'],
        paramValues: { created: new Date() },
      },
      { method, url, headers },
    );
    const sent = Object.fromEntries(
      Object.entries(signed.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]),
    );
    const res = await fetch(url, { ...init, method, headers: sent });
    answers.push({ status: res.status, headers: res.headers, text: await res.clone().text() });
    return res;
  };
}

test('UCP over MCP at the endpoint /.well-known/ucp names: signed calls create → update → complete, the order paid', async () => {
  const profile = (await stack.call('GET', '/.well-known/ucp')).body as Json;
  ucpConforms(UCP.businessProfile, profile);
  const mcp = profile.ucp.services['dev.ucp.shopping'].find((s: { transport: string }) => s.transport === 'mcp');
  expect(mcp).toMatchObject({ endpoint: `${stack.url}/ucp/mcp`, schema: expect.stringMatching(/mcp\.openrpc\.json$/) });

  const k = platformKey('mcp-platform-2026');
  const profileUrl = `${profiles.base}/mcp-platform/.well-known/ucp`;
  profiles.set('/mcp-platform/.well-known/ucp', platformProfile([k.jwk], `${profiles.base}/hooks/mcp`));
  // The client connects where the profile says.
  const answers: { status: number; headers: Headers; text: string }[] = [];
  const client = await connect(
    {},
    signingFetch(profileUrl, { privateKey: k.privateKey, kid: 'mcp-platform-2026' }, answers),
    mcp.endpoint as string,
  );
  const m = (extra: Record<string, unknown> = {}) => {
    const v = { 'ucp-agent': { profile: profileUrl }, ...extra };
    expect(ucpMeta(v)).toBe(true);
    return v;
  };
  const agentKey = await fundedAgent(stack, 'ucp-mcp-buyer', 100);

  const body = { line_items: [{ item: { id: 'automation-wf' }, quantity: 1 }], buyer: { email: 'b@example.com' } };
  ucpConforms(UCP.checkout, body, 'create');
  const created = await ok(client, 'create_checkout', { meta: m({ 'idempotency-key': randomUUID() }), checkout: body });
  ucpConforms(UCP.checkout, created);
  expect(created.status).toBe('incomplete');

  const update = { ...body, id: created.id, service_inputs: automationInputs };
  ucpConforms(UCP.checkout, update, 'update');
  const ready = await ok(client, 'update_checkout', { meta: m(), id: created.id, checkout: update });
  ucpConforms(UCP.checkout, ready);
  expect(ready.status).toBe('ready_for_complete');
  const total = ready.totals.find((t: { type: string }) => t.type === 'total').amount as number;

  const token = await delegate(agentKey, created.id, total);
  const complete = {
    payment: {
      instruments: [
        {
          id: 'pi_1',
          handler_id: 'agent_wallet',
          type: 'agent_wallet',
          selected: true,
          credential: { type: 'delegated_token', token },
        },
      ],
    },
  };
  ucpConforms(UCP.checkout, complete, 'complete');
  const done = await ok(client, 'complete_checkout', {
    meta: m({ 'idempotency-key': randomUUID() }),
    id: created.id,
    checkout: complete,
  });
  ucpConforms(UCP.checkout, done);
  expect(done.status).toBe('completed');
  // The complete answer is signed by a key of our profile, over the JSON-RPC body (as a REST answer is).
  const signedAnswer = answers.at(-1)!;
  expect(JSON.parse(signedAnswer.text).result.structuredContent.id).toBe(created.id);
  expect(signedAnswer.headers.get('content-digest')).toBe(contentDigest(signedAnswer.text));
  const answerHeaders: Record<string, string> = {};
  signedAnswer.headers.forEach((v, key) => (answerHeaders[key] = v));
  const verified = await httpbis.verifyMessage(
    {
      keyLookup: async (params) => {
        const jwk = (profile.keys as Json[]).find((j) => j.kid === params.keyid);
        return jwk
          ? {
              id: String(jwk.kid),
              algs: ['ed25519'],
              verify: createVerifier(createPublicKey({ key: jwk, format: 'jwk' }), 'ed25519'),
            }
          : null;
      },
      requiredFields: ['@status', 'content-digest', 'content-type'],
    },
    { status: signedAnswer.status, headers: answerHeaders },
  );
  expect(verified).toBe(true);
  const order = await stack.services.orders.get(done.order.id);
  expect(order).toMatchObject({ agent_id: 'ucp-mcp-buyer' });
  expect(order?.payment).toBeTruthy();
  expect(await stack.services.wallets.balance('ucp-mcp-buyer')).toBe(100_000_000 - total * 10_000);
  const read = await ok(client, 'get_checkout', { meta: m(), id: created.id });
  ucpConforms(UCP.checkout, read);
  expect(read.status).toBe('completed');
  // The order capability's MCP binding: get_order, the order as order.json; an unknown one is not_found.
  const got = await ok(client, 'get_order', { meta: m(), id: done.order.id });
  ucpConforms(UCP.order, got);
  expect(got).toMatchObject({ id: done.order.id, checkout_id: created.id });
  const missing = await ok(client, 'get_order', { meta: m(), id: 'ord_nope' });
  ucpConforms(UCP.errorResponse, missing);
  expect(missing.messages[0].code).toBe('not_found');

  // Cancel: idempotency-key is required by the binding; a completed checkout cannot be canceled.
  const noKey = await fails(client, 'cancel_checkout', { meta: m(), id: created.id });
  expect(noKey.code).toBe(-32602);
  const closed = await fails(client, 'cancel_checkout', {
    meta: m({ 'idempotency-key': randomUUID() }),
    id: created.id,
  });
  expect(closed.code).toBe(-32000);
  expect(Object.keys(closed.data).sort()).toEqual(['code', 'content']);

  // Another profile in meta than the one that signed: refused; an unsigned MCP request: signature_missing.
  const mismatch = await fails(client, 'get_checkout', {
    meta: { 'ucp-agent': { profile: `${profiles.base}/other/.well-known/ucp` } },
    id: created.id,
  });
  expect(mismatch).toMatchObject({ code: -32001, data: { code: 'invalid_profile_url' } });
  const unsigned = await fails(await connect(), 'get_checkout', { meta: m(), id: created.id });
  expect(unsigned).toMatchObject({ code: -32000, data: { code: 'signature_missing' } });
}, 120_000);
