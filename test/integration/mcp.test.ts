/**
 * MCP at POST /mcp (issue 5 §3) with the official client (`@modelcontextprotocol/sdk` Client over Streamable HTTP):
 * tools listed with JSON Schemas, a whole purchase run through tools, business failures as `isError`, protocol
 * errors as JSON-RPC errors, and the stateless 2026-07-28 style (`server/discover` without initialize).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { OPERATOR_KEY, startStack, type Stack } from '../helpers/stack';

let stack: Stack;
const clients: Client[] = [];
beforeAll(async () => {
  stack = await startStack();
}, 120_000);
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await stack?.stop();
});

async function connect(headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: 'agent-commerce-test', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(`${stack.url}/mcp`), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

// Tool results are loosely typed by the SDK; tests read JSON members.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Structured = any;
async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<{ isError: boolean; data: Structured; text: string }> {
  const res = await client.callTool({ name, arguments: args });
  const content = res.content as { type: string; text?: string }[];
  return { isError: res.isError === true, data: res.structuredContent, text: content[0]?.text ?? '' };
}

const TOOL_NAMES = [
  'list_services',
  'discover_services',
  'negotiate_capabilities',
  'create_quote',
  'create_order',
  'get_order',
  'confirm_payment',
  'verify_order',
  'review_order',
  'procure',
  'get_wallet',
  'trust_status',
  'micro_catalogue',
  'buy_micro_item',
  'register_webhook',
  'list_webhook_events',
];

test('initialize, ping and tools/list: one tool per operation, each with an object input schema', async () => {
  const client = await connect();
  expect(client.getServerVersion()).toMatchObject({ name: 'agent-commerce' });
  expect(client.getServerCapabilities()?.tools).toBeDefined();
  await expect(client.ping()).resolves.toEqual({});
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toEqual(TOOL_NAMES);
  for (const t of tools) {
    expect(t.inputSchema.type).toBe('object');
    expect(t.description).toBeTruthy();
  }
  const createOrder = tools.find((t) => t.name === 'create_order')!;
  expect(Object.keys(createOrder.inputSchema.properties ?? {})).toEqual(expect.arrayContaining(['service_id', 'quote_id', 'agent_id', 'email', 'webhook_url', 'inputs']));
  expect(createOrder.outputSchema?.properties).toHaveProperty('status');
  const confirm = tools.find((t) => t.name === 'confirm_payment')!;
  expect(confirm.inputSchema.required).toEqual(['order_id']);
  expect((confirm.inputSchema.properties as Record<string, { enum?: string[] }>).rail).toBeDefined();
});

test('a whole purchase through tools: quote, order, wallet, payment with the agent key, delivery, verification, review', async () => {
  const client = await connect();
  const services = await call(client, 'list_services');
  expect(services.isError).toBe(false);
  expect(services.data.services).toHaveLength(14);

  const wallet = await call(client, 'get_wallet', { agent_id: 'mcp-agent' });
  expect(wallet.isError).toBe(false);
  const agentKey = wallet.data.agent_key as string;
  expect(agentKey).toMatch(/^ak_/);
  const credit = await stack.call('POST', '/api/v1/wallets/mcp-agent/credits', { amount: 100, transaction_id: 'mcp-fund' }, { authorization: `Bearer ${OPERATOR_KEY}` });
  expect(credit.status).toBe(201);

  const quote = await call(client, 'create_quote', { service_id: 'automation-wf' });
  expect(quote.isError).toBe(false);
  expect(quote.data).toMatchObject({ service_id: 'automation-wf', amount: 69 });
  const order = await call(client, 'create_order', {
    quote_id: quote.data.quote_id,
    agent_id: 'mcp-agent',
    inputs: { workflow_type: 'lead_sync', source_app: 'Typeform', target_app: 'HubSpot' },
  });
  expect(order.isError).toBe(false);
  expect(order.data.status).toBe('awaiting_payment');
  const orderId = order.data.order_id as string;

  // Without the key the REST API answers 401: a business failure, so isError with the problem detail.
  const unpaid = await call(client, 'confirm_payment', { order_id: orderId });
  expect(unpaid.isError).toBe(true);
  expect(unpaid.data).toMatchObject({ status: 401, code: 'unauthorized' });
  expect(unpaid.text).toContain('401');

  // The caller's Authorization header is forwarded to the inner call.
  const keyed = await connect({ authorization: `Bearer ${agentKey}` });
  const paid = await call(keyed, 'confirm_payment', { order_id: orderId });
  expect(paid.isError).toBe(false);
  expect(paid.data.payment).toMatchObject({ rail: 'agent_wallet', amount: 69 });

  let current: Structured;
  const deadline = Date.now() + 30_000;
  do {
    current = (await call(client, 'get_order', { order_id: orderId })).data;
    if (current.status === 'delivered') break;
    await new Promise((r) => setTimeout(r, 200));
  } while (Date.now() < deadline);
  expect(current.status).toBe('delivered');
  expect(current.deliverables.length).toBeGreaterThan(0);

  const verification = await call(client, 'verify_order', { order_id: orderId });
  expect(verification.isError).toBe(false);
  expect(verification.data.status).toBe('verified');

  // Only the buyer reviews: without a credential 401, with another agent's key 403, with the buyer's key as an argument 200.
  const anonymous = await call(client, 'review_order', { order_id: orderId, action: 'accept' });
  expect(anonymous.isError).toBe(true);
  expect(anonymous.data).toMatchObject({ status: 401, code: 'unauthorized' });
  const strangerKey = (await call(client, 'get_wallet', { agent_id: 'mcp-stranger' })).data.agent_key as string;
  const stranger = await call(client, 'review_order', { order_id: orderId, action: 'reject', agent_key: strangerKey });
  expect(stranger.data).toMatchObject({ status: 403, code: 'forbidden' });
  const reviewed = await call(client, 'review_order', { order_id: orderId, action: 'accept', agent_key: agentKey });
  expect(reviewed.isError).toBe(false);
  expect(reviewed.data.status).toBe('accepted');

  const balance = await call(keyed, 'get_wallet', { agent_id: 'mcp-agent' });
  expect(balance.data.balance).toBe(31);
  // The agent_key argument works too, instead of the header.
  const viaArg = await call(client, 'get_wallet', { agent_id: 'mcp-agent', agent_key: agentKey });
  expect(viaArg.data.balance).toBe(31);
}, 60_000);

test('business failures are isError results; unknown tools and bad arguments are JSON-RPC errors', async () => {
  const client = await connect();
  const missing = await call(client, 'get_order', { order_id: 'ord_doesnotexist0000000000000' });
  expect(missing.isError).toBe(true);
  expect(missing.data).toMatchObject({ status: 404, code: 'order_not_found' });

  const unknownService = await call(client, 'create_quote', { service_id: 'no-such-service' });
  expect(unknownService).toMatchObject({ isError: true, data: { code: 'service_not_found' } });

  await expect(client.callTool({ name: 'teleport', arguments: {} })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  const bad = await client.callTool({ name: 'create_quote', arguments: { service_id: 42 } }).catch((e: unknown) => e);
  expect(bad).toBeInstanceOf(McpError);
  expect((bad as McpError).code).toBe(ErrorCode.InvalidParams);
  expect((bad as McpError).message).toContain('service_id');
  await expect(client.callTool({ name: 'review_order', arguments: { order_id: 'ord_x', action: 'maybe' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
});

test('discovery, negotiation, procurement, trust and micro catalogue tools answer within their output schemas', async () => {
  const client = await connect();
  // The client checks structuredContent against each tool's outputSchema and throws on a mismatch.
  const discovered = await call(client, 'discover_services', { capability: 'appointment_scheduling', budget_max: '100' });
  expect(discovered.isError).toBe(false);
  expect(discovered.data.services.length).toBeGreaterThan(0);
  await expect(client.callTool({ name: 'discover_services', arguments: { budget_max: 'lots' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
  const negotiated = await call(client, 'negotiate_capabilities', { required_capabilities: ['appointment_scheduling'] });
  expect(negotiated.isError).toBe(false);
  expect(negotiated.data.matches.length).toBeGreaterThan(0);
  const trust = await call(client, 'trust_status');
  expect(trust.isError).toBe(false);
  expect(trust.data.generated_at).toBeTruthy();
  const micro = await call(client, 'micro_catalogue');
  expect(micro.isError).toBe(false);
  expect(micro.data).toMatchObject({ tier: 'impulse', version: 2 });
  const tooCheap = await call(client, 'procure', { objective: 'answer the phone for my clinic', budget: 60, auto_purchase: false });
  expect(tooCheap).toMatchObject({ isError: true, data: { status: 422, code: 'no_matching_service' } });
  const planned = await call(client, 'procure', { objective: 'answer the phone for my clinic', budget: 300, auto_purchase: false });
  expect(planned.isError).toBe(false);
  expect(planned.data).toMatchObject({ status: 'planned' });
  expect(planned.data.procurement_id).toBeTruthy();
  await expect(client.callTool({ name: 'procure', arguments: { budget: 'cheap' } })).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
}, 60_000);

test('register_webhook over MCP returns the signing secret once', async () => {
  const client = await connect();
  const res = await call(client, 'register_webhook', { url: 'http://127.0.0.1:9/hook', events: ['order.delivered'] });
  expect(res.isError).toBe(false);
  expect(res.data.secret).toMatch(/^whsec_/);
  expect(res.data.management_token).toMatch(/^wht_/);
});

describe('raw HTTP', () => {
  const post = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${stack.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers }, body: JSON.stringify(body) });

  test('GET and DELETE answer 405 (stateless: no SSE stream, no sessions)', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${stack.url}/mcp`, { method });
      expect(res.status).toBe(405);
      expect(res.headers.get('allow')).toBe('POST');
    }
  });

  test('2026-07-28 style: server/discover without initialize, then tools/list and tools/call; unknown methods 404 / -32601', async () => {
    const h = { 'mcp-protocol-version': '2026-07-28' };
    const discover = await post({ jsonrpc: '2.0', id: 1, method: 'server/discover', params: {} }, h);
    expect(discover.status).toBe(200);
    const d = (await discover.json()) as Structured;
    expect(d.result).toMatchObject({ serverInfo: { name: 'agent-commerce' }, capabilities: { tools: {} } });
    expect(d.result.supportedVersions).toEqual(expect.arrayContaining(['2026-07-28', '2025-11-25']));
    expect(d.result.tools.map((t: { name: string }) => t.name)).toEqual(TOOL_NAMES);

    const list = (await (await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, h)).json()) as Structured;
    expect(list.result.tools).toHaveLength(TOOL_NAMES.length);
    const quote = (await (await post({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'create_quote', arguments: { service_id: 'task-worker' } } }, h)).json()) as Structured;
    expect(quote.result.structuredContent).toMatchObject({ service_id: 'task-worker', amount: 15 });
    const unknownTool = (await (await post({ jsonrpc: '2.0', id: 4, method: 'tools/call', params: { name: 'nope', arguments: {} } }, h)).json()) as Structured;
    expect(unknownTool.error.code).toBe(-32602);

    const unknown = await post({ jsonrpc: '2.0', id: 5, method: 'resources/teleport' }, h);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as Structured).error.code).toBe(-32601);

    const mismatch = await post({ jsonrpc: '2.0', id: 6, method: 'ping', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } }, h);
    expect(mismatch.status).toBe(400);

    // server/discover is answered even without the header.
    const bare = await post({ jsonrpc: '2.0', id: 7, method: 'server/discover' });
    expect(((await bare.json()) as Structured).result.protocolVersion).toBe('2026-07-28');
  });

  test('foreign browser origins are refused', async () => {
    const res = await post({ jsonrpc: '2.0', id: 1, method: 'ping' }, { origin: 'https://evil.example' });
    expect(res.status).toBe(403);
  });
});
